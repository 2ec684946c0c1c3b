"""DOCX and EPUB through pandoc, from the same HTML every export starts from.

Owns the hand-over to pandoc: the renderer's HTML (diagrams as SVG images, math as TeX, local
images already data URIs) made readable to pandoc's HTML reader, a Lua filter that turns the
renderer's math into pandoc math (native Word equations, MathML in EPUB). Pandoc reads no file
of the user's: the page comes on stdin, every image in it is a data URI by then (the sanitiser
lets ``src`` only on ``<img>``), and its resource path is an empty folder. (Pandoc 2.17's
``--sandbox`` cannot read its own templates, so it is not used.)
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from quire.api.exports import ExportFormat
from quire.core.errors import EngineMissing, ExportFailed

INSTALL_HINT = "Install pandoc (`apt-get install pandoc` on Debian and Ubuntu, or pandoc.org)."
PANDOC_SECONDS = 120

_FILTER = """
local function tex(el) return pandoc.utils.stringify(el) end
function Span(el)
  if el.classes:includes("math-inline") then return pandoc.Math("InlineMath", tex(el)) end
end
function Div(el)
  if el.classes:includes("math-display") then
    return pandoc.Para({pandoc.Math("DisplayMath", tex(el))})
  end
end
"""

_CODE = re.compile(r'<pre class="highlight"><code class="language-([\w+#.-]+)">')
_DIAGRAM = re.compile(r'<pre class="mermaid[^"]*"[^>]*>\s*(<svg\b.*?</svg>)\s*</pre>', re.S)


def find_pandoc() -> Path | None:
    """The pandoc program on PATH, or None."""
    found = shutil.which("pandoc")
    return None if found is None else Path(found)


def pandoc_version(program: Path) -> str | None:
    """``pandoc --version``'s first line's number, or None when it cannot be asked."""
    try:
        out = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.splitlines()[0] if out else ""
    return first.split()[-1] if first else None


def pandoc_html(body: str) -> str:
    """The article's HTML as pandoc's reader takes it best: a code block's language on its
    ``<pre>`` and each drawn diagram as an SVG image."""
    body = _CODE.sub(r'<pre class="highlight \1"><code>', body)

    def image(match: re.Match[str]) -> str:
        svg = match.group(1).encode("utf-8")
        data = base64.b64encode(svg).decode("ascii")
        return f'<p><img src="data:image/svg+xml;base64,{data}" alt="diagram"></p>'

    return _DIAGRAM.sub(image, body)


def convert(
    program: Path, html: str, *, format: ExportFormat, title: str, pandoc_format: str | None = None
) -> bytes:
    """``html`` (a whole page) converted by pandoc to ``format`` (docx or epub)."""
    target = pandoc_format or ("epub3" if format == "epub" else format)
    with tempfile.TemporaryDirectory(prefix="quire-pandoc-") as folder:
        filter_path = Path(folder) / "math.lua"
        filter_path.write_text(_FILTER, encoding="utf-8")
        (Path(folder) / "empty").mkdir()
        output = Path(folder) / f"out.{format}"
        command = [
            str(program),
            f"--resource-path={Path(folder) / 'empty'}",
            "--from=html",
            f"--to={target}",
            f"--lua-filter={filter_path}",
            f"--metadata=title:{title}",
            "--highlight-style=pygments",
            f"--output={output}",
        ]
        if format == "epub":
            command += ["--toc", "--mathml"]
        try:
            done = subprocess.run(
                command, input=html.encode("utf-8"), capture_output=True, timeout=PANDOC_SECONDS
            )
        except FileNotFoundError:
            raise EngineMissing(f"pandoc was not found at '{program}'. {INSTALL_HINT}") from None
        except subprocess.TimeoutExpired:
            raise ExportFailed(
                f"pandoc did not finish within {PANDOC_SECONDS} seconds; export a smaller file."
            ) from None
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", "replace").strip()[:2000]
            raise ExportFailed(f"pandoc failed making the {format.upper()} file: {reason}")
        return output.read_bytes()
