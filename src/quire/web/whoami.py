"""``GET /api/whoami``: which account the request's credential signs in as.

What ``quire login`` checks a token with and ``quire whoami`` prints. Thin: reads what the
sign-in put on the request (its user and access) and answers ``api.server.SignedInAs``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.server import SignedInAs
from quire.services.users.access import current_access
from quire.web.answers import answer
from quire.web.arguments import query_args
from quire.web.context import current_user, services_of


async def whoami(request: Request) -> Response:
    """The account this request signed in as: `{username, owner, multi, role?}`. `owner` is
    true for the server's own token (and everyone in single mode), which reaches everything
    served; an account's `role` is its role on this server."""
    query_args(request, ())
    identity = current_access().identity
    return answer(
        SignedInAs(
            username=current_user(request),
            owner=identity is None,
            multi=services_of(request).team is not None,
            role=None if identity is None else identity.role,
        )
    )


routes: list[BaseRoute] = [Route("/api/whoami", whoami, methods=["GET"])]
