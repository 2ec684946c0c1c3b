"""The warm pages for real (Debian's chromium): one page serves export after export with
nothing of one document left in the next, a closed-when-idle browser starts again, exports at
once each get a page, and a document with nothing to draw never starts the browser."""

from __future__ import annotations

import asyncio
import os
import shutil
import struct
import zlib
from pathlib import Path

import pypdf
import pytest

from quire.api.exports import ExportJob, ExportResult
from quire.export.exporter import Exporter

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="needs chromium (apt-get install chromium)"
)

FIRST = """# Alpha report

Only-in-alpha paragraph.

```mermaid
graph TD
  AlphaGateway --> AlphaQueue
```

![pixel](pixel.png)
"""

SECOND = """# Beta notes

Beta body $e^{i\\pi}+1=0$ here.

```mermaid
graph LR
  BetaStart --> BetaEnd
```

![borrowed](../alpha/pixel.png)
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


def _text(result: ExportResult) -> str:
    reader = pypdf.PdfReader(result.path)
    return "\n".join(page.extract_text() for page in reader.pages)


def _pixels(result: ExportResult) -> int:
    """How many images of the document's 1x1 pixel the PDF holds (a refused image is
    Chromium's larger broken-image icon)."""
    count = 0
    for page in pypdf.PdfReader(result.path).pages:
        resources = page.get("/Resources")
        objects = resources.get_object().get("/XObject") if resources is not None else None
        for item in objects.get_object().values() if objects is not None else ():
            image = item.get_object()
            if image.get("/Subtype") == "/Image" and (image["/Width"], image["/Height"]) == (1, 1):
                count += 1
    return count


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    (alpha / "pixel.png").write_bytes(_png())
    (alpha / "a.md").write_text(FIRST, encoding="utf-8")
    (beta / "b.md").write_text(SECOND, encoding="utf-8")
    return alpha, beta


def test_back_to_back_exports_on_one_warm_page_leak_nothing(folders: tuple[Path, Path]) -> None:
    alpha, beta = folders

    async def run() -> tuple[ExportResult, ExportResult, ExportResult, int, int]:
        exporter = Exporter()
        try:
            first = await exporter.export(ExportJob(alpha / "a.md", "pdf"), allowed=[alpha])
            second = await exporter.export(ExportJob(beta / "b.md", "pdf"), allowed=[beta])
            dark = await exporter.export(
                ExportJob(alpha / "a.md", "html", theme="dark"), allowed=[alpha]
            )
            pages, browser = exporter.pages(), exporter.browser()
            assert pages is not None and browser is not None
            return first, second, dark, pages.opened, browser.launches
        finally:
            await exporter.aclose()

    first, second, dark, opened, launches = asyncio.run(run())
    assert (opened, launches) == (1, 1)  # one page, one browser, three documents
    alpha_text, beta_text = _text(first), _text(second)
    assert "Only-in-alpha" in alpha_text and "AlphaGateway" in alpha_text
    assert _pixels(first) == 1
    assert "Beta body" in beta_text and "BetaStart" in beta_text and "BetaEnd" in beta_text
    for word in ("Alpha", "alpha", "AlphaGateway", "AlphaQueue"):
        assert word not in beta_text
    # The first export's image is outside the second's folders: asked for again and refused,
    # never reused from the page.
    assert _pixels(second) == 0
    assert any("pixel.png" in warning for warning in second.warnings)
    assert not first.warnings
    # The page's theme is set again for every document: the third one is dark, its diagram
    # drawn in the dark palette and none of the second's text left in it.
    html = Path(dark.path).read_text(encoding="utf-8")
    assert '<html lang="en" class="theme-dark">' in html
    assert "AlphaGateway" in html and "Beta" not in html
    assert "#25304a" in html  # the dark palette's node colour


def test_an_export_after_the_idle_close_starts_the_browser_again(
    folders: tuple[Path, Path],
) -> None:
    alpha, _ = folders

    async def run() -> tuple[bool, int, str]:
        exporter = Exporter(idle_seconds=0.05)
        try:
            await exporter.export(ExportJob(alpha / "a.md", "pdf"), allowed=[alpha])
            browser = exporter.browser()
            assert browser is not None
            async with asyncio.timeout(30):
                while browser.is_running:  # noqa: ASYNC110 - the idle close has no event
                    await asyncio.sleep(0.05)
            closed = not browser.is_running
            again = await exporter.export(
                ExportJob(alpha / "a.md", "pdf", overwrite=True), allowed=[alpha]
            )
            return closed, browser.launches, _text(again)
        finally:
            await exporter.aclose()

    closed, launches, text = asyncio.run(run())
    assert closed
    assert launches == 2
    assert "Only-in-alpha" in text and "AlphaGateway" in text


def test_closing_while_the_idle_close_is_under_way_waits_for_it(
    folders: tuple[Path, Path],
) -> None:
    """An idle close still waiting for its browser to exit when the exporter closes is waited
    for: the process is gone and reaped before the loop ends, not left running (or a zombie)
    for another loop to find."""
    alpha, _ = folders

    async def run() -> int:
        # A long idle time while the export runs (a loaded machine may take longer than a short
        # one between the export's last release and the pid read), then a zero one for one
        # more acquire and release, which starts the idle close at the loop's next turn.
        exporter = Exporter(idle_seconds=3600)
        try:
            await exporter.export(ExportJob(alpha / "a.md", "pdf"), allowed=[alpha])
            browser = exporter.browser()
            assert browser is not None and browser.pid is not None
            pid = browser.pid
            browser.idle_seconds = 0
            await browser.acquire()
            browser.release()
            async with asyncio.timeout(30):
                while browser.is_running:  # noqa: ASYNC110 - the idle close has no event
                    await asyncio.sleep(0.001)
            return pid
        finally:
            await exporter.aclose()

    pid = asyncio.run(run())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_exports_at_once_each_draw_on_their_own_page_up_to_the_bound(
    folders: tuple[Path, Path],
) -> None:
    alpha, beta = folders

    async def run() -> tuple[list[ExportResult], int, int]:
        exporter = Exporter()
        try:
            results = await asyncio.gather(
                *(
                    exporter.export(
                        ExportJob(folder / name, "pdf", output=folder / f"{index}.pdf"),
                        allowed=[folder],
                    )
                    for index, (folder, name) in enumerate(
                        [(alpha, "a.md"), (beta, "b.md"), (alpha, "a.md"), (beta, "b.md")]
                    )
                )
            )
            pages = exporter.pages()
            assert pages is not None
            return list(results), pages.opened, pages.size
        finally:
            await exporter.aclose()

    results, opened, size = asyncio.run(run())
    assert 1 <= opened <= size
    for index, result in enumerate(results):
        text = _text(result)
        mine, other = ("AlphaGateway", "Beta") if index % 2 == 0 else ("BetaStart", "Alpha")
        assert mine in text and other not in text


def test_a_document_with_nothing_to_draw_never_starts_the_browser(tmp_path: Path) -> None:
    source = tmp_path / "plain.md"
    source.write_text("# Plain\n\nJust *words* and a [link](https://example.com).\n")

    async def run() -> tuple[list[ExportResult], int]:
        exporter = Exporter()
        try:
            results = [
                await exporter.export(ExportJob(source, format), allowed=[tmp_path])
                for format in ("html", *(("docx", "epub") if shutil.which("pandoc") else ()))
            ]
            browser = exporter.browser()
            assert browser is not None
            return results, browser.launches
        finally:
            await exporter.aclose()

    results, launches = asyncio.run(run())
    assert launches == 0
    html = results[0]
    assert (html.engine, html.warnings) == ("quire-html", [])
    text = Path(html.path).read_text(encoding="utf-8")
    assert "<em>words</em>" in text and "<script" not in text.lower()
