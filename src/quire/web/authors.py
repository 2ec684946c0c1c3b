"""Who a request's changes are attributed to: the agent a token request names, or the person.

Reads the ``X-Quire-Agent`` header (``quire.core.agents``) of requests signed in with a
token; a browser's requests (session cookie) keep the signed-in user. Never trusts the name:
it is cleaned again here.

In multi mode the account is always the signed-in user: an agent's name is only a label,
written ``label (via account)`` when it differs from the username (a token request that names
no agent is the account's own). Single mode (and the server's own token) keeps the agent's
bare name, ``agent`` when none is given.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from quire.core.agents import AGENT_HEADER, FALLBACK_AGENT, agent_from_header
from quire.core.history import commit_author
from quire.services.history.authors import acting
from quire.services.users.access import current_access
from quire.web.auth import bearer_token
from quire.web.context import USER_SCOPE_KEY, current_user


def is_token_request(connection: HTTPConnection) -> bool:
    """Whether the request came with a bearer token (an agent, the CLI), not a browser session.

    The auth middleware already let it in; a browser's pages never send the token itself.
    """
    return bearer_token(connection.headers) is not None


def signed_in_account() -> str | None:
    """The username of the account the request signed in as (multi mode); None for single
    mode's owner and the server's own token."""
    identity = current_access().identity
    return None if identity is None else identity.username


def via(label: str | None, account: str) -> str:
    """``label (via account)``, or the account alone when the label is missing or is it."""
    if label is None or label.casefold() == account.casefold():
        return account
    return f"{label} (via {account})"


def _agent_label(connection: HTTPConnection, account: str) -> str | None:
    """The agent a multi-mode token request names, when it is not the account itself."""
    if not is_token_request(connection):
        return None
    agent = agent_from_header(connection.headers.get(AGENT_HEADER))
    return None if agent is None or agent.casefold() == account.casefold() else agent


def request_author(connection: HTTPConnection) -> str:
    """The author of the changes this request makes: for a token request the agent its
    ``X-Quire-Agent`` header names (``agent`` when none; in multi mode ``agent (via
    account)``, or the account when none), else the signed-in user."""
    if not is_token_request(connection):
        return current_user(connection)
    account = signed_in_account()
    agent = agent_from_header(connection.headers.get(AGENT_HEADER))
    if account is None:
        return agent or FALLBACK_AGENT
    return via(agent, account)


def requesting_agent(connection: HTTPConnection) -> str | None:
    """The agent a token request acts for (``agent`` when it names none; in multi mode
    labelled with its account); None for a browser, whose requests speak for the signed-in
    user."""
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
        account = signed_in_account()
        if account is None:
            author = commit_author(current_user(connection), requesting_agent(connection))
        else:
            author = commit_author(account, _agent_label(connection, account))
        token = acting.set(author)
        try:
            await self.app(scope, receive, send)
        finally:
            acting.reset(token)
