"""Every format exported for real (Debian's chromium and pandoc) and read back.

One module-scoped run exports the same document to each format with one warm browser; the
tests read the files back. Without chromium or pandoc the tests that need it skip, naming it.
"""

from __future__ import annotations

import asyncio
import shutil
import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from quire.api.exports import ExportFormat, ExportJob, ExportResult
from quire.services.export import ExportService

DOCUMENT = """# Quarterly Report

Opening paragraph with inline math $a^2+b^2=c^2$ and a footnote.[^1]

## Architecture

```mermaid
graph TD
  Gateway --> Scheduler
```

A broken one follows.

```mermaid
graph TD
  this is broken -->
```

## Numbers

| Region | Sales |
|---|---|
| North | 120 |

$$
\\int_0^1 x^2 \\, dx = \\frac{1}{3}
$$

- [x] shipped
- [ ] pending

```python
def total(items):
    return sum(items)
```

![inside](pixel.png) ![outside](../secret/leak.png) ![remote](https://example.com/x.png)

[^1]: The footnote text.
"""


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@dataclass(frozen=True)
class Run:
    results: dict[ExportFormat, ExportResult]
    folder: Path


NEEDS: dict[ExportFormat, str] = {"pdf": "chromium", "html": "chromium", "docx": "pandoc",
                                  "epub": "pandoc"}  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("export")
    folder = root / "notes"
    folder.mkdir()
    (root / "secret").mkdir()
    (root / "secret" / "leak.png").write_bytes(_png())
    (folder / "pixel.png").write_bytes(_png())
    source = folder / "report.md"
    source.write_text(DOCUMENT, encoding="utf-8")

    async def export_all() -> dict[ExportFormat, ExportResult]:
        service = ExportService()
        results: dict[ExportFormat, ExportResult] = {}
        try:
            for format, program in NEEDS.items():
                if shutil.which(program) is not None:
                    results[format] = await service.export(
                        ExportJob(source, format), allowed=[folder]
                    )
        finally:
            await service.aclose()
        return results

    return Run(asyncio.run(export_all()), folder)


def _result(run: Run, format: ExportFormat) -> ExportResult:
    if format not in run.results:
        pytest.skip(f"needs {NEEDS[format]} (apt-get install {NEEDS[format]})")
    return run.results[format]


def test_the_pdf_has_the_text_headings_outline_diagram_labels_and_math(run: Run) -> None:
    import pypdf

    result = _result(run, "pdf")
    assert result.engine == "chromium"
    reader = pypdf.PdfReader(result.path)
    text = "\n".join(page.extract_text() for page in reader.pages)
    for words in ("Quarterly Report", "Opening paragraph", "Region", "North", "shipped"):
        assert words in text
    assert "Gateway" in text and "Scheduler" in text
    assert "graph TD" in text  # the broken diagram's source, shown in its place
    assert "∫" in text or "\u222b" in text
    assert result.pages == len(reader.pages)
    assert 1 <= len(reader.pages) <= 4

    def titles(items: Sequence[object]) -> list[str]:
        found: list[str] = []
        for item in items:
            if isinstance(item, list):
                found += titles(item)
            else:
                found.append(str(getattr(item, "title", "")))
        return found

    assert titles(reader.outline) == ["Quarterly Report", "Architecture", "Numbers"]


def test_a_broken_diagram_is_reported_by_its_fence_line_and_the_file_is_still_written(
    run: Run,
) -> None:
    result = _result(run, "pdf")
    assert [error.line for error in result.diagram_errors] == [14]
    assert "Parse error" in result.diagram_errors[0].message
    assert Path(result.path).stat().st_size == result.bytes


def test_images_outside_the_allowed_folders_and_remote_ones_are_left_out_with_warnings(
    run: Run,
) -> None:
    result = _result(run, "html")
    html = Path(result.path).read_text(encoding="utf-8")
    assert "data:image/png;base64," in html
    assert html.count("data:image/png;base64,") == 1
    assert any("leak.png" in warning for warning in result.warnings)
    assert any("example.com" in warning for warning in result.warnings)
    # The remote image is its placeholder: no address a reader's browser would fetch.
    assert ' src="https://example.com' not in html
    assert "Image from example.com not loaded: remote" in html


def test_the_html_is_self_contained_with_diagrams_as_svg_and_math_typeset(run: Run) -> None:
    result = _result(run, "html")
    html = Path(result.path).read_text(encoding="utf-8")
    assert "<script" not in html
    assert "<svg" in html and "Gateway" in html
    assert 'class="katex"' in html
    assert "url(/assets/" not in html
    assert "font/woff2;base64," in html


def test_the_html_shows_its_diagrams_in_a_browser_with_javascript_off(run: Run) -> None:
    from playwright.sync_api import sync_playwright

    result = _result(run, "html")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox"]
        )
        try:
            page = browser.new_context(java_script_enabled=False).new_page()
            page.goto(Path(result.path).as_uri())
            box = page.locator("pre.mermaid-drawn svg").first.bounding_box()
            assert box is not None and box["width"] > 50 and box["height"] > 20
            assert page.locator(".katex").count() >= 2
        finally:
            browser.close()


def test_the_docx_has_headings_a_table_an_equation_and_highlighted_code(run: Run) -> None:
    import docx

    result = _result(run, "docx")
    document = docx.Document(result.path)
    headings = [p.text for p in document.paragraphs if p.style is not None and
                p.style.name.startswith("Heading")]  # fmt: skip
    assert headings == ["Quarterly Report", "Architecture", "Numbers"]
    assert document.tables and document.tables[0].cell(1, 0).text == "North"
    xml = document.element.xml
    assert "m:oMath" in xml
    assert "KeywordTok" in xml or "w:color" in xml


def test_the_epub_is_structurally_valid_with_a_table_of_contents(run: Run) -> None:
    result = _result(run, "epub")
    with zipfile.ZipFile(result.path) as book:
        first = book.infolist()[0]
        assert first.filename == "mimetype"
        assert first.compress_type == zipfile.ZIP_STORED
        assert book.read("mimetype") == b"application/epub+zip"
        container = book.read("META-INF/container.xml").decode("utf-8")
        assert "full-path=" in container
        names = book.namelist()
        nav = next(name for name in names if name.endswith("nav.xhtml"))
        assert "Architecture" in book.read(nav).decode("utf-8")
        assert any(name.endswith("content.opf") for name in names)


def test_an_existing_output_is_not_replaced_without_overwrite(run: Run) -> None:
    from quire.core.errors import PathRefused

    result = _result(run, "html")
    before = Path(result.path).read_bytes()

    async def again() -> None:
        service = ExportService()
        try:
            await service.export(ExportJob(run.folder / "report.md", "html"), allowed=[run.folder])
        finally:
            await service.aclose()

    with pytest.raises(PathRefused, match="already exists"):
        asyncio.run(again())
    assert Path(result.path).read_bytes() == before
