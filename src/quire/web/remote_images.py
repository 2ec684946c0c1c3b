"""``GET /remote-image?url=…``: the frame one clicked remote image loads in.

The Read view's page policy allows no remote image (unless a folder turns them on), so a click
swaps the placeholder for a sandboxed frame served here, whose own policy allows exactly the
clicked address and nothing else. The frame tells its parent the image's size with one
inline script (allowed by its hash); it is an opaque origin, so it reaches no cookie or API.
Thin: the address rule is ``quire.core.remote_images``'s; nothing is fetched here.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape
from typing import Final

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from quire.core.errors import InvalidArgument
from quire.core.remote_images import RemoteImage

FRAME_PATH: Final = "/remote-image"

SIZE_SCRIPT: Final = (
    "(()=>{const i=document.getElementById('i');"
    "const tell=(state)=>parent.postMessage({quireRemoteImage:state,"
    "width:i.naturalWidth,height:i.naturalHeight},'*');"
    "if(i.complete&&i.naturalWidth)tell('loaded');"
    "else{i.addEventListener('load',()=>tell('loaded'));"
    "i.addEventListener('error',()=>tell('failed'));}})();"
)
"""Tells the Read view the image's natural size (or that it failed), so the frame fits it."""

_SCRIPT_HASH: Final = base64.b64encode(hashlib.sha256(SIZE_SCRIPT.encode()).digest()).decode()

_PAGE: Final = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<style>html,body{{margin:0;padding:0;background:transparent;overflow:hidden}}
img{{display:block;max-width:100%;height:auto}}</style></head>
<body><img id="i" src="{src}" alt="" referrerpolicy="no-referrer"><script>{script}</script>
</body></html>
"""


def frame_policy(image: RemoteImage) -> str:
    """The frame's Content-Security-Policy: the one image address, the size script, no more."""
    return (
        f"default-src 'none'; img-src {image.source}; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'self'; sandbox allow-scripts"
    )


async def remote_image_frame(request: Request) -> Response:
    """The frame page of the remote image `url` (an absolute http or https address), allowed
    by the frame's policy alone; 400 with the reason for any other address."""
    values = request.query_params.getlist("url")
    try:
        if len(values) != 1:
            raise InvalidArgument("Pass the image address once, as `url`.", argument="url")
        image = RemoteImage.parse(values[0])
    except InvalidArgument as err:
        return PlainTextResponse(
            err.message,
            status_code=400,
            headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
        )
    page = _PAGE.format(src=escape(image.url), script=SIZE_SCRIPT)
    return HTMLResponse(
        page,
        headers={
            "Cache-Control": "no-store",
            "Content-Security-Policy": frame_policy(image),
            "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "SAMEORIGIN",
        },
    )


routes: list[BaseRoute] = [Route(FRAME_PATH, remote_image_frame, methods=["GET"])]
