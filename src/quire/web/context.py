"""What a route handler knows about its request: the signed-in user and the app's services.

The auth middleware sets the user; ``create_app`` puts the services on the app. Route modules
read both through these two functions and never dig in the ASGI scope themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from starlette.background import BackgroundTask
from starlette.requests import HTTPConnection
from starlette.responses import Response

if TYPE_CHECKING:
    from quire.services.app import AppServices

USER_SCOPE_KEY = "quire.user"
BROWSER_SCOPE_KEY = "quire.browser"
"""Set (True) by the auth middleware when the request signed in with the session cookie of a
browser login, not with an API token."""


def current_user(connection: HTTPConnection) -> str:
    """The user the auth middleware signed this request in as."""
    user = connection.scope.get(USER_SCOPE_KEY)
    if not isinstance(user, str):
        raise RuntimeError("current_user called on a request the auth middleware did not see")
    return user


def services_of(connection: HTTPConnection) -> AppServices:
    """The services of the app serving this request."""
    services: AppServices = connection.app.state.services
    return services


def signed_in_by_browser(connection: HTTPConnection) -> bool:
    """Whether this request signed in with a browser login's session cookie (an API token,
    even one sent beside a cookie, makes it False)."""
    return connection.scope.get(BROWSER_SCOPE_KEY) is True


async def recheck_connections(connection: HTTPConnection) -> None:
    """Close the open requests of accounts whose access just changed in this server (a
    sign-out, a revoked token or grant): at once, not at the next periodic check. Nothing in
    single mode."""
    connections = getattr(connection.app.state, "connections", None)
    if connections is not None:
        await connections.recheck()


def rechecked(request: HTTPConnection, response: Response) -> Response:
    """``response``, and once it is sent, the open connections the change ended closed
    (``recheck_connections``). After the answer, because the change may end this very request
    (its session signed out, its own grant revoked): it still gets its answer, and the
    recheck, shielded, checks every other connection to the end."""

    async def recheck() -> None:
        with anyio.CancelScope(shield=True):
            await recheck_connections(request)

    response.background = BackgroundTask(recheck)
    return response
