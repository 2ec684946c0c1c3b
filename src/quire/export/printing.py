"""PDF and self-contained HTML from the browser: the page drawn, then printed or read back.

Owns the print options (paper, margins, header and footer with page numbers, the outline from
the headings) and turning a drawn page into one HTML file with no script and every local image
and font inside it. WeasyPrint stands in for the browser when there is none.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from html import escape, unescape

from quire.api.exports import DiagramError, ExportTheme, Paper
from quire.core.errors import EngineMissing
from quire.export.assets import themed_css
from quire.export.browser import INSTALL_HINT
from quire.export.cdp import Message
from quire.export.page import Shown, build_page
from quire.export.pool import Pages
from quire.export.resources import Resources
from quire.export.source import Source
from quire.export.tab import Finished

PAPER_INCHES: dict[Paper, tuple[float, float]] = {
    "a4": (8.27, 11.69),
    "letter": (8.5, 11.0),
    "legal": (8.5, 14.0),
    "a5": (5.83, 8.27),
}
MARGIN_INCHES = 0.7

_IMG_SRC = re.compile(r'(<img\b[^>]*?\ssrc=")([^"]*)(")', re.I)
_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")

_FOOTER = (
    '<div style="width:100%;font-size:8px;color:#888;padding:0 0.7in;display:flex;'
    'justify-content:space-between;font-family:sans-serif">'
    '<span>{title}</span><span><span class="pageNumber"></span> / '
    '<span class="totalPages"></span></span></div>'
)


@dataclass(frozen=True)
class Made:
    """An export's bytes and what its engine reported."""

    data: bytes
    engine: str
    pages: int | None
    diagram_errors: list[DiagramError]
    warnings: tuple[str, ...] = ()
    """What the engine could not do."""


def shown(source: Source, theme: ExportTheme, *, body: str | None = None) -> Shown:
    """``source`` (or ``body`` in its place) as the warm page shows it: fonts by URL."""
    css = themed_css(theme, inline_fonts=False, with_math=source.has_math)
    return Shown(
        body=source.html if body is None else body,
        title=source.title,
        theme=theme,
        css=css,
        path=source.path,
    )


async def print_pdf(
    pages: Pages, source: Source, *, theme: ExportTheme, paper: Paper, resources: Resources
) -> Made:
    """``source`` printed to PDF by the browser."""
    async with pages.page() as tab:
        finished = await tab.show(shown(source, theme), resources)
        data = await tab.print_pdf(_pdf_options(source.title, paper))
    return Made(data, "chromium", count_pages(data), diagram_errors(source, finished))


async def drawn_body(
    pages: Pages,
    source: Source,
    *,
    theme: ExportTheme,
    resources: Resources,
    math_as_tex: bool = False,
) -> tuple[str, list[DiagramError]]:
    """The article's HTML once the browser has drawn its diagrams (as inline SVG) and typeset
    its math; with ``math_as_tex`` the math is left as its TeX (for pandoc)."""
    page = dataclasses.replace(shown(source, theme), typeset=not math_as_tex)
    async with pages.page() as tab:
        finished = await tab.show(page, resources)
        body = await tab.evaluate(
            "(() => { const a = document.querySelector('article.markdown-body').cloneNode(true);"
            " a.querySelectorAll('[data-queued]').forEach(e => e.removeAttribute('data-queued'));"
            " return a.innerHTML; })()"
        )
    return str(body), diagram_errors(source, finished)


async def snapshot_html(
    pages: Pages, source: Source, *, theme: ExportTheme, resources: Resources
) -> Made:
    """``source`` as one self-contained HTML file: drawn by the browser, then read back."""
    body, errors = await drawn_body(pages, source, theme=theme, resources=resources)
    data = standalone_html(source, body, theme=theme, resources=resources)
    return Made(data.encode("utf-8"), "chromium", None, errors)


def standalone_html(source: Source, body: str, *, theme: ExportTheme, resources: Resources) -> str:
    """One HTML file with ``body`` (the article's content): CSS and fonts inline, local images
    as data URIs, no script."""
    css = themed_css(theme, inline_fonts=True, with_math=source.has_math)
    body = inline_images(body, source, resources)
    return build_page(body, title=source.title, theme=theme, css=css)


def inline_images(html: str, source: Source, resources: Resources) -> str:
    """Every ``<img src>`` of ``html`` as a data URI when the request rule allows it; a refused
    image keeps its ``alt`` text and loses its source."""

    def replace(match: re.Match[str]) -> str:
        uri = resources.data_uri(unescape(match.group(2)), source.path.parent)
        return match.group(1) + escape(uri or "", quote=True) + match.group(3)

    return _IMG_SRC.sub(replace, html)


def diagram_errors(source: Source, finished: Finished) -> list[DiagramError]:
    """The page's failed diagrams, each by the line of its fence."""
    errors: list[DiagramError] = []
    for index, message in finished.failed_diagrams:
        line = source.mermaid_lines[index] if index < len(source.mermaid_lines) else 0
        errors.append(DiagramError(line=line, message=message))
    return errors


def count_pages(pdf: bytes) -> int | None:
    """The number of page objects in ``pdf`` (the browser writes them uncompressed)."""
    return len(_PAGE_OBJECT.findall(pdf)) or None


def _pdf_options(title: str, paper: Paper) -> Message:
    width, height = PAPER_INCHES[paper]
    return {
        "paperWidth": width,
        "paperHeight": height,
        "marginTop": MARGIN_INCHES,
        "marginBottom": MARGIN_INCHES,
        "marginLeft": MARGIN_INCHES,
        "marginRight": MARGIN_INCHES,
        "printBackground": True,
        "displayHeaderFooter": True,
        "headerTemplate": "<span></span>",
        "footerTemplate": _FOOTER.format(title=escape(title)),
        "generateDocumentOutline": True,
        "generateTaggedPDF": True,
        "preferCSSPageSize": False,
    }


def weasyprint_pdf(
    source: Source, *, theme: ExportTheme, paper: Paper, resources: Resources
) -> Made:
    """``source`` printed by WeasyPrint (no browser): diagrams and math stay as their source."""
    try:
        import weasyprint  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise EngineMissing(
            f"No browser was found to print the PDF. {INSTALL_HINT} Or install the `pdf` "
            "extra (`pip install 'quire[pdf]'`) for WeasyPrint."
        ) from None
    width, height = PAPER_INCHES[paper]
    css = themed_css(theme, inline_fonts=True, with_math=False)
    page_css = f"@page {{ size: {width}in {height}in; margin: {MARGIN_INCHES}in; }}"
    body = inline_images(source.html, source, resources)
    html = build_page(body, title=source.title, theme=theme, css=css + page_css)

    def fetch(url: str, *args: object, **kwargs: object) -> object:
        # Every allowed image is a data URI by now; nothing else the page names is fetched.
        if url.startswith("data:"):
            return weasyprint.default_url_fetcher(url)
        raise ValueError(f"{url} is not fetched by an export")

    document = weasyprint.HTML(string=html, url_fetcher=fetch).render()
    data: bytes = document.write_pdf()
    return Made(data, "weasyprint", len(document.pages), [])
