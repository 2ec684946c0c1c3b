"""Markdown as the Read view's HTML: the shared renderer, run off the event loop.

Owns what is rendered for whom: an open document's text (whole, or the head of a long one)
by block through one ``BlockCache`` (an edit re-renders only the blocks it touched; exports
render through it too), and batches of loose texts (chat messages) with their size limit. It
reads no file and changes no document; the HTML is ``quire.markdown.render``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from quire.core.errors import InvalidArgument
from quire.markdown.head import head_end
from quire.markdown.render import Rendered, render
from quire.services.render_cache import BlockCache, BlockView, Splice

__all__ = [
    "BLOCKS",
    "MAX_TEXTS",
    "DocumentBlocks",
    "DocumentView",
    "Rendered",
    "render_blocks",
    "render_document",
    "render_text",
    "render_texts",
    "render_whole",
]

MAX_TEXTS = 1000
"""The most texts one batch may render (a request body is capped at 16 MiB as well)."""


@dataclass(frozen=True)
class DocumentView:
    """A document's text rendered; ``partial`` when only its beginning was."""

    rendered: Rendered
    partial: bool


BLOCKS = BlockCache()
"""The server's rendered blocks: the Read view asks again after every edit and view switch,
and a long document takes seconds to render whole."""


@dataclass(frozen=True)
class DocumentBlocks:
    """A document's text rendered by block, and the units that turn ``since`` into it."""

    view: BlockView
    splice: Splice
    partial: bool


def _part(text: str, head: bool) -> tuple[str, bool]:
    end = head_end(text) if head else None
    return (text, False) if end is None else (text[:end], True)


def render_whole(text: str, remote_images: bool = False) -> Rendered:
    """``text`` rendered through the block cache, in this thread (exports, benchmarks)."""
    return BLOCKS.render(text, remote_images=remote_images)


async def render_document(
    text: str, *, head: bool = False, remote_images: bool = False
) -> DocumentView:
    """A document's ``text`` rendered; with ``head``, only the beginning of a long one (up to
    a heading past its first 8 KB, see ``quire.markdown.head``) so a view can show it at
    once. A short document is rendered whole either way. Remote images are placeholders
    unless ``remote_images`` (the document's folder turns them on)."""
    part, partial = _part(text, head)
    rendered = await anyio.to_thread.run_sync(render_whole, part, remote_images)
    return DocumentView(rendered, partial=partial)


async def render_blocks(
    text: str, *, since: str | None, head: bool = False, remote_images: bool = False
) -> DocumentBlocks:
    """As ``render_document``, by block: the view, and what changes the version ``since`` (a
    view's ``version`` given out before) into it; every unit when ``since`` is unknown."""
    part, partial = _part(text, head)

    def rendered() -> DocumentBlocks:
        view = BLOCKS.view(part, remote_images=remote_images)
        return DocumentBlocks(view, BLOCKS.splice(view, since), partial)

    return await anyio.to_thread.run_sync(rendered)


async def render_text(text: str) -> Rendered:
    """One loose Markdown text rendered (nothing remembered; remote images as placeholders,
    since a loose text belongs to no folder)."""
    return await anyio.to_thread.run_sync(render, text)


async def render_texts(texts: Sequence[str]) -> list[Rendered]:
    """Loose Markdown texts rendered, in order; InvalidArgument (``texts``) for more than
    MAX_TEXTS of them."""
    if len(texts) > MAX_TEXTS:
        raise InvalidArgument(
            f"`texts` holds {len(texts):,} texts; render at most {MAX_TEXTS:,} per "
            "request and send the rest in further requests.",
            argument="texts",
        )
    return await anyio.to_thread.run_sync(lambda: [render(text) for text in texts])
