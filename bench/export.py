"""Exports against other tools on the same file, in the same run: a 20-page document with 5
Mermaid diagrams and 50 formulas.

Quire: PDF cold (the first export of a new export service, which starts its browser; p50 of
3) and warm (10 in a row, p50), HTML and DOCX (p50 of 5), and the bare render the HTML export
wraps. Beside it: pandoc (DOCX, standalone HTML, and PDF through WeasyPrint when the
``weasyprint`` program is installed) and md-to-pdf (npm, pointed at Debian's chromium; p50 of
3, each starting its browser as a cold export does) when ``MD_TO_PDF`` names its program.

The bare render is what the preview itself does with the same document: the Markdown
renderer's HTML, then its diagrams drawn and its math typeset in a warm page (the same drawing
the Read view does), p50 of 5 after one to warm the page. The HTML target then measures what
an export adds: reading the file, reading the drawn page back, inlining fonts and images,
writing the file.

Targets (issue 14): warm PDF p50 at least 3x faster than md-to-pdf's (<= 0.33x), cold PDF no
slower than md-to-pdf's (<= 1.0x), HTML export at most 2x the bare render; all reported as
ratios, never asserted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.timing import print_table, progress
from quire.api.exports import ExportJob
from quire.export.browser import Browser, find_browser
from quire.export.pool import Pages
from quire.export.printing import shown
from quire.export.resources import Resources
from quire.export.source import source_from_text
from quire.fs.folders import AllowedFolders
from quire.markdown.render import render
from quire.services.export import ExportService

WARM_RUNS = 10
RUNS = 5
COLD_RUNS = 3
BARE = "bare render"
TARGETS = {
    "quire PDF cold": "<= 1.0x md-to-pdf",
    "quire PDF warm p50": "<= 0.33x md-to-pdf",
    "quire HTML p50": f"<= 2x {BARE}",
}


def document() -> str:
    """About 20 printed pages: sections of prose, 5 diagrams, 50 formulas, tables and code."""
    parts = ["# Export benchmark\n"]
    for section in range(1, 21):
        parts.append(f"## Section {section}\n")
        parts.append(("Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12) + "\n")
        if section % 4 == 0:
            parts.append(
                f"```mermaid\ngraph LR\n  Start{section} --> Middle{section}\n"
                f"  Middle{section} --> End{section}\n```\n"
            )
        for formula in range(1, 3):
            parts.append(f"Inline $x_{{{section}}}^{formula} + y = {formula}$ here.\n")
        parts.append(f"$$\n\\sum_{{k=1}}^{{{section}}} k^2 = \\frac{{n(n+1)(2n+1)}}{{6}}\n$$\n")
        parts.append("| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n")
        parts.append("```python\ndef f(x):\n    return x * 2\n```\n")
    return "\n".join(parts)


def run() -> None:
    """Measure and print the table."""
    with tempfile.TemporaryDirectory(prefix="quire-bench-export-") as raw:
        folder = Path(raw)
        source = folder / "bench.md"
        text = document()
        source.write_text(text, encoding="utf-8")
        rows = asyncio.run(_quire(folder, source, text))
        rows += _others(folder, source)
    base = dict(rows)
    md_to_pdf = base.get("md-to-pdf PDF")
    table = []
    for name, seconds in rows:
        ratio = f"{seconds / md_to_pdf:.2f}x md-to-pdf" if md_to_pdf else ""
        if name == "quire HTML p50":
            ratio = f"{seconds / base[BARE]:.2f}x {BARE}"
        kind = name.split()[1]
        if name.startswith(("quire DOCX", "quire HTML")) and f"pandoc {kind}" in base:
            ratio += f" · {seconds / base[f'pandoc {kind}']:.2f}x pandoc"
        table.append((name, f"{seconds * 1000:.0f} ms", ratio, TARGETS.get(name, "")))
    if md_to_pdf is None:
        table.append(("md-to-pdf PDF", "not run", "set MD_TO_PDF to its program to include it", ""))
    if "pandoc PDF (WeasyPrint)" not in base:
        hint = "needs pandoc and weasyprint (apt-get install pandoc weasyprint)"
        table.append(("pandoc PDF (WeasyPrint)", "not run", hint, ""))
    print_table(
        "export (20 pages, 5 diagrams, 50 formulas; bare render = the preview's HTML, then its "
        "diagrams and math drawn in a warm page)",
        ("what", "time", "ratio", "target"),
        table,
    )


async def _quire(folder: Path, source: Path, text: str) -> list[tuple[str, float]]:
    rows = [("quire PDF cold", await _cold_pdf(folder, source))]
    service = ExportService()
    try:
        await service.export(ExportJob(source, "pdf", overwrite=True), allowed=[folder])
        warm = []
        for _ in range(WARM_RUNS):
            start = time.perf_counter()
            await service.export(ExportJob(source, "pdf", overwrite=True), allowed=[folder])
            warm.append(time.perf_counter() - start)
        rows.append(("quire PDF warm p50", statistics.median(warm)))
        for format in ("html", "docx"):
            progress(f"quire {format}")
            runs = []
            for _ in range(RUNS):
                start = time.perf_counter()
                await service.export(ExportJob(source, format, overwrite=True), allowed=[folder])
                runs.append(time.perf_counter() - start)
            rows.append((f"quire {format.upper()} p50", statistics.median(runs)))
    finally:
        await service.aclose()
    rows.append((BARE, await _bare_render(folder, source, text)))
    return rows


async def _cold_pdf(folder: Path, source: Path) -> float:
    """The first PDF of a new export service (its browser starts), p50 of ``COLD_RUNS``."""
    runs = []
    for index in range(COLD_RUNS):
        progress(f"quire PDF cold {index + 1}/{COLD_RUNS}")
        service = ExportService()
        try:
            start = time.perf_counter()
            result = await service.export(
                ExportJob(source, "pdf", overwrite=True), allowed=[folder]
            )
            runs.append(time.perf_counter() - start)
        finally:
            await service.aclose()
        progress(f"  {result.pages} pages, {len(result.diagram_errors)} diagram errors")
    return statistics.median(runs)


async def _bare_render(folder: Path, source: Path, text: str) -> float:
    """The preview's work on the document: render, then draw in a warm page (p50)."""
    found = find_browser(None)
    if found is None:
        raise SystemExit("The export bench needs a browser (apt-get install chromium).")
    pages = Pages(Browser(found))
    resources = Resources(AllowedFolders([folder], how_to_add=""), remote=False)
    runs = []
    try:
        page = shown(source_from_text(source, text), "light")
        async with pages.page() as tab:
            await tab.show(page, resources)
            for _ in range(RUNS):
                start = time.perf_counter()
                html = render(text).html
                await tab.show(dataclasses.replace(page, body=html), resources)
                runs.append(time.perf_counter() - start)
    finally:
        await pages.browser.aclose()
    return statistics.median(runs)


def _others(folder: Path, source: Path) -> list[tuple[str, float]]:
    rows: list[tuple[str, float]] = []
    if shutil.which("pandoc"):
        for format in ("docx", "html"):
            progress(f"pandoc {format}")
            rows.append((f"pandoc {format.upper()}", _timed(_pandoc(folder, source, format))))
        if shutil.which("weasyprint"):
            progress("pandoc pdf (WeasyPrint)")
            command = [*_pandoc(folder, source, "pdf"), "--pdf-engine=weasyprint"]
            rows.append(("pandoc PDF (WeasyPrint)", _timed(command)))
    program = os.environ.get("MD_TO_PDF")
    browser = shutil.which("chromium")
    if program and browser:
        options = f'{{"executablePath": "{browser}", "args": ["--no-sandbox"]}}'
        runs = []
        for index in range(COLD_RUNS):
            progress(f"md-to-pdf {index + 1}/{COLD_RUNS}")
            command = [program, "--launch-options", options, str(source)]
            runs.append(_timed(command, cwd=folder))
        rows.append(("md-to-pdf PDF", statistics.median(runs)))
    return rows


def _pandoc(folder: Path, source: Path, format: str) -> list[str]:
    return ["pandoc", "-f", "gfm", "-s", "-o", str(folder / f"pandoc.{format}"), str(source)]


def _timed(command: list[str], cwd: Path | None = None) -> float:
    """Seconds ``command`` takes to run to its end (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=cwd)
    return time.perf_counter() - start
