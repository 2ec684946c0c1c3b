"""Who a request's changes are attributed to: the agent a token request names, or the person.

Reads the ``X-Quire-Agent`` header (``quire.core.agents``) of requests signed in with the
token; a browser's requests (session cookie) keep the signed-in user. Never trusts the name:
it is cleaned again here.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from quire.core.agents import AGENT_HEADER, FALLBACK_AGENT, agent_from_header
from quire.core.history import commit_author
from quire.services.history.authors import acting
from quire.web.auth import bearer_token
from quire.web.context import USER_SCOPE_KEY, current_user


def is_token_request(connection: HTTPConnection) -> bool:
    """Whether the request came with a bearer token (an agent, the CLI), not a browser session.

    The auth middleware already let it in; a browser's pages never send the token itself.
    """
    return bearer_token(connection.headers) is not None


def request_author(connection: HTTPConnection) -> str:
    """The author of the changes this request makes: for a token request the agent its
    ``X-Quire-Agent`` header names (``agent`` when none), else the signed-in user."""
    if not is_token_request(connection):
        return current_user(connection)
    return agent_from_header(connection.headers.get(AGENT_HEADER)) or FALLBACK_AGENT


def requesting_agent(connection: HTTPConnection) -> str | None:
    """The agent a token request acts for (``agent`` when it names none); None for a browser,
    whose requests speak for the signed-in user."""
    return request_author(connection) if is_token_request(connection) else None


class HistoryAuthorMiddleware:
    """Tells history who each request's saves are by (``services.history.authors.acting``):
    the signed-in account, and the agent a token request names. Runs after auth."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or USER_SCOPE_KEY not in scope:
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        author = commit_author(current_user(connection), requesting_agent(connection))
        token = acting.set(author)
        try:
            await self.app(scope, receive, send)
        finally:
            acting.reset(token)
