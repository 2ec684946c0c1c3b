"""The document an export starts from: read through ``quire.fs``, rendered by the preview's
renderer, with the line of each Mermaid fence (to report a diagram that fails by its line).

Owns the input rules (inside the allowed folders, a Markdown document that is not a dotfile,
at most 16 MiB, UTF-8); the HTML is ``quire.markdown.render``'s, never its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from html import unescape
from pathlib import Path

from markdown_it import MarkdownIt

from quire.fs.documents import read_document
from quire.fs.folders import AllowedFolders
from quire.markdown.parser import build_parser, strip_bom
from quire.markdown.remote_images import diagram_fetch
from quire.markdown.render import Rendered, render

Renderer = Callable[[str, bool], Rendered]
"""Markdown text and whether remote images load, to the renderer's output: ``render`` itself,
or the server's block cache in front of it (the same HTML)."""


def _render(text: str, remote_images: bool) -> Rendered:
    return render(text, remote_images=remote_images)


_TITLE = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Source:
    """A document ready to export: where it is, its text, and the renderer's output."""

    path: Path
    text: str
    html: str
    has_math: bool
    has_mermaid: bool
    mermaid_lines: tuple[int, ...]
    """The 1-based line of each Mermaid fence, in the order the HTML holds them."""
    remote_images: tuple[str, ...]
    """The remote images left out as placeholders (none when remote images were allowed)."""
    title: str


def read_source(
    path: Path,
    allowed: AllowedFolders,
    *,
    remote_images: bool = False,
    renderer: Renderer = _render,
) -> Source:
    """Check ``path`` against the allowed folders and the document rule, read and render it
    (remote images as placeholders unless ``remote_images``).

    Raises PathRefused, FileMissing, FileTooLarge, NotUtf8 or StorageFailed from ``quire.fs``.
    """
    found, text = read_document(allowed, path)
    return source_from_text(found.path, text, remote_images=remote_images, renderer=renderer)


def source_from_text(
    path: Path, text: str, *, remote_images: bool = False, renderer: Renderer = _render
) -> Source:
    """A Source for ``text`` as if read from ``path`` (the live buffer of an open document);
    remote images are placeholders with no address a browser would fetch unless
    ``remote_images``."""
    rendered = renderer(text, remote_images)
    return Source(
        path=path,
        text=strip_bom(text),
        html=rendered.html,
        has_math=rendered.has_math,
        has_mermaid=rendered.has_mermaid,
        mermaid_lines=mermaid_lines(text, remote_images=remote_images)
        if rendered.has_mermaid
        else (),
        remote_images=rendered.remote_images,
        title=_title(rendered.html) or path.stem,
    )


def mermaid_lines(text: str, *, remote_images: bool = False) -> tuple[int, ...]:
    """The 1-based line of each ```` ```mermaid ```` fence's opening, in document order;
    without ``remote_images``, only of those the renderer leaves to draw (a diagram that
    would fetch a remote image is shown as its source)."""
    lines: list[int] = []
    for token in _parser().parse(strip_bom(text)):
        if token.type != "fence" or token.map is None:
            continue
        info = token.info.strip().split(maxsplit=1)
        drawn = remote_images or diagram_fetch(token.content) is None
        if info and info[0].lower() == "mermaid" and drawn:
            lines.append(token.map[0] + 1)
    return tuple(lines)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return build_parser()


def _title(html: str) -> str:
    found = _TITLE.search(html)
    if found is None:
        return ""
    return unescape(_TAG.sub("", found.group(1))).strip()
