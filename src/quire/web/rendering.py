"""``POST /api/render``: any Markdown text (not a file) as the shared renderer's sanitised HTML,
for views that show text outside a document, such as chat messages.

Thin: parse the body, render off the event loop with ``quire.markdown.render``, answer. It
reads no file and keeps nothing.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from quire.api.documents import RenderBody
from quire.core.errors import InvalidArgument
from quire.markdown.render import Rendered, render
from quire.web.arguments import read_body

MAX_TEXTS = 1000
"""The most texts one request may render (the request body is capped at 16 MiB as well)."""


def _data(rendered: Rendered) -> dict[str, object]:
    return {
        "html": rendered.html,
        "has_math": rendered.has_math,
        "has_mermaid": rendered.has_mermaid,
    }


def _render_all(texts: list[str]) -> list[Rendered]:
    return [render(text) for text in texts]


async def render_markdown(request: Request) -> JSONResponse:
    """Render `markdown` (one text) or `texts` (a list of at most 1,000) with the same
    renderer and sanitiser as the Read view and exports: `{html, has_math, has_mermaid}` for
    `markdown`, `{items: [{html, has_math, has_mermaid}]}` in order for `texts`. Scripts,
    handlers, frames, SVG and unsafe URLs never survive; math and Mermaid are left for the
    client to typeset."""
    body = await read_body(request, RenderBody)
    if (body.markdown is None) == (body.texts is None):
        raise InvalidArgument(
            "Pass either `markdown` (one text) or `texts` (a list of texts) to render, "
            "not both and not neither.",
            argument="markdown",
        )
    if body.markdown is not None:
        one = await anyio.to_thread.run_sync(render, body.markdown)
        return JSONResponse(_data(one))
    assert body.texts is not None
    if len(body.texts) > MAX_TEXTS:
        raise InvalidArgument(
            f"`texts` holds {len(body.texts):,} texts; render at most {MAX_TEXTS:,} per "
            "request and send the rest in further requests.",
            argument="texts",
        )
    many = await anyio.to_thread.run_sync(_render_all, body.texts)
    return JSONResponse({"items": [_data(item) for item in many]})


routes: list[BaseRoute] = [Route("/api/render", render_markdown, methods=["POST"])]
