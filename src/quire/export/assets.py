"""The web UI's built bundle as export material: the Read view's stylesheet in each theme, the
Mermaid and KaTeX modules, and the KaTeX fonts.

Owns finding those files in ``quire/web/static`` (names carry build hashes) and turning the
preview's stylesheet, which follows the system's colour scheme, into one fixed theme. Reads
only the package's own files; never a user's.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from quire.api.exports import ExportTheme
from quire.core.errors import ExportFailed

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
"""The built web UI (committed; ``pip install`` needs no Node)."""

_STYLESHEET = re.compile(r'<link rel="stylesheet"[^>]*href="/assets/([\w.-]+\.css)"')
_APP_SCRIPT = re.compile(r'<script type="module"[^>]*src="/assets/([\w.-]+\.js)"')
APP_SHIM = b"export function _(load) { return load(); }\n"
"""What the page gets for the app's own entry module: the diagram and math chunks import only
Vite's preload helper (``_``) from it, and the app itself must not start in an export page."""
_DARK_BLOCK = "@media(prefers-color-scheme:dark){"
_FONT_URL = re.compile(r"url\(/assets/([\w.-]+\.(?:woff2|woff|ttf))\)")
_MEDIA_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".svg": "image/svg+xml",
}

EXPORT_CSS = (Path(__file__).resolve().parent / "export.css").read_text(encoding="utf-8")
"""The rules an exported page adds to the preview's: page margins come from the printer, code
wraps instead of scrolling, tables and figures break cleanly, and the ``print`` palette."""


@dataclass(frozen=True)
class Bundle:
    """The files of one build of the web UI an export uses (names relative to ``assets/``)."""

    folder: Path
    stylesheet: str
    app_module: str
    math_module: str
    math_stylesheet: str
    mermaid_module: str

    def read(self, name: str) -> bytes:
        """The bytes of ``assets/<name>``; ExportFailed when the bundle has no such file."""
        if "/" in name or name.startswith("."):
            raise ExportFailed(f"The export page asked for '{name}', which is no bundle file.")
        if name == self.app_module:
            return APP_SHIM
        try:
            return (self.folder / name).read_bytes()
        except OSError as exc:
            raise ExportFailed(
                f"The web UI bundle has no readable '{name}' ({exc.strerror}); reinstall Quire."
            ) from None


def media_type(name: str) -> str:
    """The Content-Type a bundle file is served with."""
    return _MEDIA_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


@lru_cache(maxsize=1)
def bundle(static: Path = STATIC) -> Bundle:
    """The bundle under ``static``; ExportFailed naming what is missing when it is incomplete."""
    folder = static / "assets"
    try:
        index = (static / "index.html").read_text(encoding="utf-8")
    except OSError:
        raise ExportFailed(
            f"The web UI bundle is missing ('{static}/index.html'); reinstall Quire, or run "
            "`cd web && npm ci && npm run build` in a checkout."
        ) from None
    found = _STYLESHEET.search(index)
    app = _APP_SCRIPT.search(index)
    if found is None or app is None:
        raise ExportFailed(
            f"'{static}/index.html' links no stylesheet or no script; rebuild the web UI."
        )
    return Bundle(
        folder=folder,
        stylesheet=found.group(1),
        app_module=app.group(1),
        math_module=_one(folder, "math-*.js"),
        math_stylesheet=_one(folder, "math-*.css"),
        mermaid_module=_one(folder, "mermaid-*.js"),
    )


def _one(folder: Path, pattern: str) -> str:
    names = sorted(path.name for path in folder.glob(pattern))
    if len(names) != 1:
        raise ExportFailed(
            f"The web UI bundle in '{folder}' should hold one '{pattern}' and holds "
            f"{len(names)}; rebuild the web UI (`cd web && npm run build`)."
        )
    return names[0]


@lru_cache(maxsize=8)
def themed_css(theme: ExportTheme, *, inline_fonts: bool, with_math: bool) -> str:
    """The Read view's stylesheet fixed to ``theme``, the KaTeX one when ``with_math``, and the
    export rules; with ``inline_fonts`` every font is a data URI (a self-contained file)."""
    files = bundle()
    css = files.read(files.stylesheet).decode("utf-8")
    if with_math:
        css += "\n" + files.read(files.math_stylesheet).decode("utf-8")
    css = fix_scheme(css, dark=theme == "dark")
    if inline_fonts:
        css = _FONT_URL.sub(lambda match: f"url({_font_data(match.group(1))})", css)
    scheme = "dark" if theme == "dark" else "light"
    return f"{css}\n:root{{color-scheme:{scheme}}}\n{EXPORT_CSS}"


def fix_scheme(css: str, *, dark: bool) -> str:
    """``css`` with each ``@media (prefers-color-scheme: dark)`` block dropped (light) or
    unwrapped so its rules always apply (dark)."""
    parts: list[str] = []
    position = 0
    while (start := css.find(_DARK_BLOCK, position)) != -1:
        parts.append(css[position:start])
        body_start = start + len(_DARK_BLOCK)
        end = _closing_brace(css, body_start)
        if dark:
            parts.append(css[body_start:end])
        position = end + 1
    parts.append(css[position:])
    return "".join(parts)


def _closing_brace(css: str, start: int) -> int:
    depth = 1
    quote = ""
    for index in range(start, len(css)):
        char = css[index]
        if quote:
            if char == quote and css[index - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    raise ExportFailed("The web UI stylesheet has an unclosed @media block; rebuild the web UI.")


@lru_cache(maxsize=64)
def _font_data(name: str) -> str:
    data = base64.b64encode(bundle().read(name)).decode("ascii")
    return f"data:{media_type(name)};base64,{data}"
