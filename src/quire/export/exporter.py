"""One export from start to finish: read the document, pick the engine, make the bytes, write
them by the output rules.

Owns which engine makes which format (and the fallbacks with their warnings), and that every
format goes through the same source, request rule and output rules. Holds the one warm
browser and its warm pages; knows nothing of HTTP, MCP or the CLI. A document with nothing to
draw never starts the browser (HTML, DOCX, EPUB).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio

from quire.api.exports import (
    DiagramError,
    EngineStatus,
    ExportFormat,
    ExportJob,
    ExportResult,
    ExportTheme,
    Paper,
)
from quire.core.errors import EngineMissing, PathRefused
from quire.export import pandoc, printing
from quire.export.browser import INSTALL_HINT, Browser, find_browser
from quire.export.page import build_page
from quire.export.pool import Pages
from quire.export.resources import Resources
from quire.export.source import Renderer, Source, read_source
from quire.export.targets import check_output, publish
from quire.fs.folders import AllowedFolders

NO_BROWSER_HTML = (
    "No browser was found, so diagrams and math are left as their source in the HTML. "
    + INSTALL_HINT
)


class Exporter:
    """Exports documents; one per process, so repeated PDFs share one warm browser."""

    def __init__(
        self,
        *,
        browser: Path | None = None,
        idle_seconds: float = 60.0,
        renderer: Renderer | None = None,
    ) -> None:
        self._renderer = renderer
        self._configured = browser
        self._idle_seconds = idle_seconds
        self._browser: Browser | None = None
        self._pages: Pages | None = None

    def browser(self) -> Browser | None:
        """The browser exports use (not started until one needs it), or None when none is here."""
        if self._browser is None:
            found = find_browser(self._configured)
            if found is None:
                return None
            self._browser = Browser(found, idle_seconds=self._idle_seconds)
        return self._browser

    def pages(self) -> Pages | None:
        """The warm pages exports draw in, or None when no browser is here."""
        if self._pages is None:
            browser = self.browser()
            if browser is None:
                return None
            self._pages = Pages(browser)
        return self._pages

    def _read(self, source: Path, folders: AllowedFolders, remote_images: bool) -> Source:
        if self._renderer is None:
            return read_source(source, folders, remote_images=remote_images)
        return read_source(source, folders, remote_images=remote_images, renderer=self._renderer)

    async def export(self, job: ExportJob, *, allowed: Sequence[Path]) -> ExportResult:
        """Make ``job`` (its output beside its source when it names none); see the module."""
        folders = AllowedFolders(allowed, how_to_add="Pass the folder to allow, then try again.")
        format = job.format
        pages = self.pages()
        if format == "pdf" and pages is not None:
            pages.prepare()  # the browser starts while the document is read and rendered
        document = await anyio.to_thread.run_sync(
            self._read, job.source, folders, job.remote_images
        )
        target = await anyio.to_thread.run_sync(
            lambda: check_output(
                document.path, job.output, format=format, allowed=folders, overwrite=job.overwrite
            )
        )
        if target == document.path:
            raise PathRefused(f"Refusing to write the export over its own document '{target}'.")
        resources = Resources(folders, job.remote_images)
        for address in document.remote_images:
            resources.remote_allowed(address)
        made = await self._make(
            document, format, theme=job.theme, paper=job.paper, resources=resources
        )
        await anyio.to_thread.run_sync(
            lambda: publish(target, made.data, allowed=folders, overwrite=job.overwrite)
        )
        return ExportResult(
            path=str(target),
            format=format,
            bytes=len(made.data),
            pages=made.pages,
            engine=made.engine,
            warnings=[*resources.warnings, *made_warnings(made)],
            diagram_errors=made.diagram_errors,
        )

    async def _make(
        self,
        document: Source,
        format: ExportFormat,
        *,
        theme: ExportTheme,
        paper: Paper,
        resources: Resources,
    ) -> printing.Made:
        pages = self.pages()
        if format == "pdf":
            if pages is not None:
                return await printing.print_pdf(
                    pages, document, theme=theme, paper=paper, resources=resources
                )
            return await anyio.to_thread.run_sync(
                lambda: printing.weasyprint_pdf(
                    document, theme=theme, paper=paper, resources=resources
                )
            )
        if format == "html":
            drawn = document.has_mermaid or document.has_math
            if pages is not None and drawn:
                return await printing.snapshot_html(
                    pages, document, theme=theme, resources=resources
                )
            # Nothing to draw (or no browser to draw it): the renderer's HTML is the page.
            html = printing.standalone_html(
                document, document.html, theme=theme, resources=resources
            )
            warnings = (NO_BROWSER_HTML,) if drawn else ()
            return printing.Made(html.encode("utf-8"), "quire-html", None, [], warnings)
        return await self._pandoc(pages, document, format, theme=theme, resources=resources)

    async def _pandoc(
        self,
        pages: Pages | None,
        document: Source,
        format: ExportFormat,
        *,
        theme: ExportTheme,
        resources: Resources,
    ) -> printing.Made:
        program = pandoc.find_pandoc()
        if program is None:
            raise EngineMissing(
                f"{format.upper()} exports are made by pandoc. {pandoc.INSTALL_HINT}"
            )
        body, errors = document.html, list[DiagramError]()
        if pages is not None and document.has_mermaid:
            # Only the diagrams need the browser; pandoc makes the math from its TeX.
            body, errors = await printing.drawn_body(
                pages, document, theme=theme, resources=resources, math_as_tex=True
            )
        body = printing.inline_images(pandoc.pandoc_html(body), document, resources)
        page = build_page(body, title=document.title, theme=theme, css="")
        data = await anyio.to_thread.run_sync(
            lambda: pandoc.convert(program, page, format=format, title=document.title)
        )
        return printing.Made(data, "pandoc", None, errors)

    def engines(self) -> list[EngineStatus]:
        """Which engines this machine has, and how to get the missing ones."""
        browser = self.browser()
        program = pandoc.find_pandoc()
        statuses = [
            EngineStatus(
                name="chromium",
                available=browser is not None,
                formats=["pdf", "html"],
                path=str(browser.executable) if browser is not None else None,
                version=None,
                detail="Prints PDFs and draws diagrams and math for every format."
                if browser is not None
                else INSTALL_HINT,
            ),
            EngineStatus(
                name="pandoc",
                available=program is not None,
                formats=["docx", "epub"],
                path=str(program) if program is not None else None,
                version=pandoc.pandoc_version(program) if program is not None else None,
                detail="Makes DOCX and EPUB files." if program is not None else pandoc.INSTALL_HINT,
            ),
        ]
        statuses.append(_weasyprint_status())
        return statuses

    async def aclose(self) -> None:
        """Close the warm browser, if one is running."""
        if self._browser is not None:
            await self._browser.aclose()


def made_warnings(made: printing.Made) -> list[str]:
    """What the engine that ran could not do, as warnings."""
    if made.engine == "weasyprint":
        return [
            "No browser was found, so WeasyPrint printed the PDF: diagrams and math are left as "
            "their source. " + INSTALL_HINT
        ]
    return list(made.warnings)


def _weasyprint_status() -> EngineStatus:
    try:
        import weasyprint  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return EngineStatus(
            name="weasyprint",
            available=False,
            formats=["pdf"],
            path=None,
            version=None,
            detail="Optional: prints PDFs when no browser is found. Install the `pdf` extra "
            "(`pip install 'quire[pdf]'`).",
        )
    return EngineStatus(
        name="weasyprint",
        available=True,
        formats=["pdf"],
        path=getattr(weasyprint, "__file__", None),
        version=str(getattr(weasyprint, "__version__", "")) or None,
        detail="Prints PDFs when no browser is found (diagrams and math as source).",
    )
