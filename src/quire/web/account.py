"""HTTP routes of the account page: who is signed in, the password, API tokens, sign-out
everywhere.

Thin: parse the request, call ``services.users.account.OwnAccount`` (which decides what the
request may change), answer its model. ``GET /api/account`` is served in both modes (the UI
learns the mode from it); the rest only in multi mode. A change that takes access away closes
the open connections it ended at once.
"""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.account import (
    AccountToken,
    AccountTokens,
    AccountView,
    NewAccountToken,
    NoAccountBody,
    PasswordBody,
    SignedOutEverywhere,
    TokenBody,
    TokenIdBody,
)
from quire.api.base import Ok
from quire.services.users.access import current_access
from quire.services.users.account import OwnAccount
from quire.services.users.admin import actor_of
from quire.services.users.identity import TokenInfo
from quire.web.answers import answer
from quire.web.arguments import query_args, read_body
from quire.web.auth import SESSION_COOKIE, session_cookie
from quire.web.context import (
    current_user,
    rechecked,
    services_of,
    signed_in_by_browser,
)


def _own(request: Request) -> OwnAccount:
    services = services_of(request)
    assert services.team is not None, "the account changes are served in multi mode only"
    actor = actor_of(current_access(), by_browser=signed_in_by_browser(request))
    return OwnAccount(
        services.team, actor, session_id=session_cookie(request.headers), clock=services.clock
    )


def _token(token: TokenInfo, now_ms: int) -> AccountToken:
    state: Literal["active", "expired", "revoked"]
    if token.revoked_at_ms is not None:
        state = "revoked"
    elif token.expires_at_ms is not None and token.expires_at_ms <= now_ms:
        state = "expired"
    else:
        state = "active"
    return AccountToken(
        id=token.id,
        name=token.name,
        created_at=token.created_at_ms,
        expires_at=token.expires_at_ms,
        last_used_at=token.last_used_at_ms,
        revoked_at=token.revoked_at_ms,
        state=state,
    )


async def _tokens_answer(request: Request, own: OwnAccount) -> Response:
    now = services_of(request).clock()
    return answer(AccountTokens(tokens=tuple(_token(token, now) for token in await own.tokens())))


async def get_account(request: Request) -> Response:
    """Who this request signed in as: `{mode, username, role, admin, signedInBy}`. In single
    mode (and for the server's own token in multi mode) it is the owner, with role null."""
    query_args(request, ())
    services = services_of(request)
    by_browser = signed_in_by_browser(request)
    actor = actor_of(current_access(), by_browser=by_browser)
    multi = services.team is not None
    return answer(
        AccountView(
            mode="multi" if multi else "single",
            username=actor.name if multi else current_user(request),
            role=actor.role,
            admin=multi and (actor.manages_everything or actor.role == "admin"),
            signed_in_by="browser" if by_browser else "token",
        )
    )


async def list_tokens(request: Request) -> Response:
    """The account's API tokens, oldest first, revoked and expired ones included: `{tokens:
    [{id, name, createdAt, expiresAt, lastUsedAt, revokedAt, state}]}`, never a token's
    text."""
    query_args(request, ())
    return await _tokens_answer(request, _own(request))


async def create_token(request: Request) -> Response:
    """Make an API token named `name`, expiring after `expires` (a duration such as `30d`, or
    a date such as `2027-01-31`; leave it out for a token that does not expire). Answers
    `{token, info}`: the token's text is shown this once. Needs the browser's session (403
    BrowserLoginNeeded for a token)."""
    body = await read_body(request, TokenBody)
    issued = await _own(request).create_token(body.name, body.expires)
    return answer(
        NewAccountToken(token=issued.token, info=_token(issued.info, services_of(request).clock()))
    )


async def revoke_token(request: Request) -> Response:
    """Revoke the account's token `id`; the requests and connections it has open end at once.
    Answers the token list. Needs the browser's session or a superadmin's token."""
    body = await read_body(request, TokenIdBody)
    own = _own(request)
    await own.revoke_token(body.id)
    return rechecked(request, await _tokens_answer(request, own))


async def change_password(request: Request) -> Response:
    """Set a new password (`new_password`, by the password rules) after checking
    `current_password` (a wrong one counts toward the sign-in lockout). Every other browser
    session of the account ends; this one stays, and API tokens stay. Needs the browser's
    session."""
    body = await read_body(request, PasswordBody)
    address = request.client.host if request.client else None
    await _own(request).change_password(body.current_password, body.new_password, address=address)
    return rechecked(request, answer(Ok()))


async def sign_out_everywhere(request: Request) -> Response:
    """End every browser session of the account, this one included (API tokens stay: revoke
    them apart): `{ended}`. Needs the browser's session or a superadmin's token."""
    await read_body(request, NoAccountBody)
    ended = await _own(request).sign_out_everywhere()
    response = answer(SignedOutEverywhere(ended=ended))
    if signed_in_by_browser(request):
        response.delete_cookie(SESSION_COOKIE, path="/")
    return rechecked(request, response)


routes: list[BaseRoute] = [
    Route("/api/account", get_account, methods=["GET"], name="account"),
]
"""Served in both modes."""

multi_routes: list[BaseRoute] = [
    Route("/api/account/tokens", list_tokens, methods=["GET"], name="account-tokens"),
    Route("/api/account/tokens", create_token, methods=["POST"], name="account-token-create"),
    Route(
        "/api/account/tokens/revoke", revoke_token, methods=["POST"], name="account-token-revoke"
    ),
    Route("/api/account/password", change_password, methods=["POST"], name="account-password"),
    Route(
        "/api/account/sign-out-everywhere",
        sign_out_everywhere,
        methods=["POST"],
        name="account-sign-out-everywhere",
    ),
]
"""Served in multi mode only."""
