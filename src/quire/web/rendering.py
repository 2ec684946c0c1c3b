"""``POST /api/render``: any Markdown text (not a file) as the shared renderer's sanitised HTML,
for views that show text outside a document, such as chat messages.

Thin: parse the body, have the rendering service render it, answer. It reads no file and
keeps nothing.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.documents import RenderBody, Rendered, RenderedTexts
from quire.core.errors import InvalidArgument
from quire.services import rendering
from quire.web.answers import answer
from quire.web.arguments import read_body


def rendered_answer(html: rendering.Rendered) -> Rendered:
    """The renderer's output as the API's answer."""
    return Rendered(html=html.html, has_math=html.has_math, has_mermaid=html.has_mermaid)


async def render_markdown(request: Request) -> Response:
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
        return answer(rendered_answer(await rendering.render_text(body.markdown)))
    assert body.texts is not None
    many = await rendering.render_texts(body.texts)
    return answer(RenderedTexts(items=[rendered_answer(item) for item in many]))


routes: list[BaseRoute] = [Route("/api/render", render_markdown, methods=["POST"])]
