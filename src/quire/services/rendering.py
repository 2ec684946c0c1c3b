"""Markdown as the Read view's HTML: the shared renderer, run off the event loop.

Owns what is rendered for whom: an open document's text (whole, or the head of a long one)
with the last few texts remembered, and batches of loose texts (chat messages) with their
size limit. It reads no file and changes no document; the HTML is ``quire.markdown.render``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from quire.core.errors import InvalidArgument
from quire.markdown.head import head_end
from quire.markdown.render import Rendered, render

__all__ = [
    "MAX_TEXTS",
    "DocumentView",
    "Rendered",
    "remembered",
    "render_document",
    "render_text",
    "render_texts",
]

MAX_TEXTS = 1000
"""The most texts one batch may render (a request body is capped at 16 MiB as well)."""


@dataclass(frozen=True)
class DocumentView:
    """A document's text rendered; ``partial`` when only its beginning was."""

    rendered: Rendered
    partial: bool


@functools.lru_cache(maxsize=8)
def remembered(text: str, remote_images: bool = False) -> Rendered:
    """The renderer's output for ``text``, remembered for the last few texts: the Read view
    asks again after every view switch, and a long document takes seconds to render."""
    return render(text, remote_images=remote_images)


async def render_document(
    text: str, *, head: bool = False, remote_images: bool = False
) -> DocumentView:
    """A document's ``text`` rendered; with ``head``, only the beginning of a long one (up to
    a heading past its first 32 KB, see ``quire.markdown.head``) so a view can show it at
    once. A short document is rendered whole either way. Remote images are placeholders
    unless ``remote_images`` (the document's folder turns them on)."""
    end = head_end(text) if head else None
    part = text if end is None else text[:end]
    rendered = await anyio.to_thread.run_sync(remembered, part, remote_images)
    return DocumentView(rendered, partial=end is not None)


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


def render_whole(text: str, remote_images: bool = False) -> Rendered:
    """``text`` rendered whole, off no loop (benchmarks and exports call it in a thread)."""
    return remembered(text, remote_images)
