"""``GET /llms.txt``: what Quire is and how an agent uses it, as plain text for a model.

Serves the copy generated into the package (``quire/web/llms.txt``, written by
``python -m quire.cli.llms --write`` from the tool catalog and the command help); it never
builds the text itself. Behind the token like every route but ``/health``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.web.errors import error_response

LLMS_TXT: Final = Path(__file__).resolve().parent / "llms.txt"


MISSING: Final = (
    "This copy of Quire has no llms.txt in its package. From the repository, run "
    "`python -m quire.cli.llms --write`, or reinstall Quire from its wheel."
)


@cache
def _text() -> bytes | None:
    try:
        return LLMS_TXT.read_bytes()
    except FileNotFoundError:
        return None


async def llms_txt(request: Request) -> Response:
    """The package's llms.txt (text/plain, UTF-8)."""
    text = _text()
    if text is None:
        return error_response(404, "NotFound", MISSING)
    return Response(text, media_type="text/plain; charset=utf-8")


routes: list[BaseRoute] = [Route("/llms.txt", llms_txt, methods=["GET"], name="llms_txt")]
