"""Who may talk to the server: the token or session cookie, and the Host and Origin checks.

Pure ASGI middleware in front of every route, HTTP and WebSocket alike. Tokens and session
ids are compared in constant time and never logged or echoed back.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlencode, urlsplit

from starlette.datastructures import Headers, QueryParams
from starlette.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from quire.core.errors import QuireError
from quire.services.users.access import EVERYTHING, Access, acting_as
from quire.services.users.team import Team
from quire.web.context import BROWSER_SCOPE_KEY, USER_SCOPE_KEY
from quire.web.errors import (
    WEBSOCKET_ERROR_CODE,
    close_reason,
    error_response,
    quire_error_body,
    status_of,
)
from quire.web.pages import sign_in_needed_page

if TYPE_CHECKING:
    from quire.web.connections import OpenConnections

SESSION_COOKIE = "quire_session"
MAX_SESSIONS = 64
OPEN_PATHS = frozenset({"/health"})
"""Paths anyone who passed the Host and Origin checks may reach: they carry no data."""
LOGIN_PATH = "/"
WS_UNAUTHORIZED = 4401
WS_FORBIDDEN = 4403


def tokens_match(candidate: str, token: str) -> bool:
    """Whether ``candidate`` is ``token``, in time that does not depend on where they differ."""
    return hmac.compare_digest(
        candidate.encode("utf-8", "surrogateescape"), token.encode("utf-8", "surrogateescape")
    )


def bearer_token(headers: Headers) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, if there is one."""
    scheme, _, value = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def session_cookie(headers: Headers) -> str | None:
    """The session id the browser sent in its ``quire_session`` cookie, if any."""
    cookie: SimpleCookie = SimpleCookie()
    for header in headers.getlist("cookie"):
        try:
            cookie.load(header)
        except CookieError:
            continue
    morsel = cookie.get(SESSION_COOKIE)
    return morsel.value if morsel is not None and morsel.value else None


class Sessions:
    """Browser sessions: random ids mapped to a user, kept in memory.

    A restart of the server forgets them, so browsers sign in again with the new login URL
    (the token changes at each start anyway). At most MAX_SESSIONS are kept, oldest dropped.
    """

    def __init__(self) -> None:
        self._users: OrderedDict[str, str] = OrderedDict()

    def create(self, user: str) -> str:
        """A new session id for ``user``."""
        session_id = secrets.token_urlsafe(32)
        self._users[session_id] = user
        while len(self._users) > MAX_SESSIONS:
            self._users.popitem(last=False)
        return session_id

    def user_of(self, session_id: str) -> str | None:
        """The user of ``session_id``, or None; compared in constant time against each id."""
        found = None
        for known, user in self._users.items():
            if tokens_match(session_id, known):
                found = user
        return found


@dataclass(frozen=True)
class SignedIn:
    """Who a request signed in as: the user name routes see, whether a browser login's cookie
    did it (not a token), what the request may reach, and for an account the credential it
    came with, so an open connection can be checked again and closed when it is revoked."""

    user: str
    by_browser: bool
    access: Access = EVERYTHING
    credential: Credential | None = None


@dataclass(frozen=True)
class Credential:
    """An account's token (``kind`` ``token``) or browser session id (``session``)."""

    kind: str
    secret: str = field(repr=False)


class OwnerSignIn:
    """Single mode: the server's token, or the session cookie of a browser that brought it
    once, signs in as the owner, who may reach everything served."""

    def __init__(self, *, token: str, user: str, sessions: Sessions) -> None:
        self.token = token
        self.user = user
        self.sessions = sessions

    async def sign_in(self, headers: Headers) -> SignedIn | None:
        """The owner, when the request carries the server's token or a live session cookie.
        A request that carries a token is a token request, whatever cookie comes with it."""
        token = bearer_token(headers)
        if token is not None and tokens_match(token, self.token):
            return SignedIn(self.user, False)
        session_id = session_cookie(headers)
        if session_id is not None:
            user = self.sessions.user_of(session_id)
            if user is not None:
                return SignedIn(user, token is None)
        return None


CACHE_MAX_AGE_S = 1.0
"""How long a cached sign-in is trusted at most, even with no change counted: a token's
expiry and a session's idle limit are times, not changes."""
CACHE_MAX_ENTRIES = 1024


@dataclass(frozen=True)
class _Cached:
    signed: SignedIn | None
    changes: int
    at: float


class TeamSignIn:
    """Multi mode: an account's API token or browser session signs in as that account, with
    the access its grants give; the server's own token (server.json, readable only by the
    account that runs the server) still signs in as the owner, for local tools.

    Who a credential signs in as is kept in memory, keyed by the credential's SHA-256 digest,
    for at most ``CACHE_MAX_AGE_S``, and reused while the database's access-change counter
    (``Team.changes``, moved by triggers on every change to accounts, tokens, sessions, groups,
    grants and private chats, by any process) has not moved: a ``quire user`` command, the
    admin page or a sign-out still ends access on the very next request."""

    def __init__(self, owner: OwnerSignIn, team: Team) -> None:
        self.owner = owner
        self.team = team
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._last_key: tuple[Credential, str] | None = None
        self.lookups = 0
        """Database sign-ins done (tests and the bench read it)."""

    async def sign_in(self, headers: Headers) -> SignedIn | None:
        """The account a token or session cookie signs in as, or None."""
        token = bearer_token(headers)
        if token is not None:
            if tokens_match(token, self.owner.token):
                return SignedIn(self.owner.user, False)
            return await self.cached(Credential("token", token))
        session_id = session_cookie(headers)
        if session_id is not None:
            return await self.cached(Credential("session", session_id))
        return None

    async def cached(self, credential: Credential) -> SignedIn | None:
        """``check``, answered from memory while nothing that decides it changed."""
        key = self._key(credential)
        now = time.monotonic()
        # Read BEFORE the lookup: a change committed during it moves the counter, so the next
        # request looks again.
        changes = await self.team.changes()
        found = self._cache.get(key)
        if found is not None and found.changes == changes and now - found.at < CACHE_MAX_AGE_S:
            return found.signed
        signed = await self.check(credential)
        self._keep(key, _Cached(signed, changes, now))
        return signed

    def _key(self, credential: Credential) -> str:
        """The cache key of ``credential``: its SHA-256 digest, so no secret is a dict key (a
        lookup compares keys in variable time). The last one is kept beside its credential and
        reused when the same credential comes again, compared in constant time: a client's
        requests bring one token again and again, and the digest costs more than the compare."""
        last = self._last_key
        if (
            last is not None
            and last[0].kind == credential.kind
            and tokens_match(credential.secret, last[0].secret)
        ):
            return last[1]
        key = hashlib.sha256(
            f"{credential.kind}:{credential.secret}".encode("utf-8", "surrogateescape")
        ).hexdigest()
        self._last_key = (credential, key)
        return key

    def _keep(self, key: str, cached: _Cached) -> None:
        self._cache[key] = cached
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_MAX_ENTRIES:
            self._cache.popitem(last=False)

    async def check(self, credential: Credential) -> SignedIn | None:
        """Who ``credential`` signs in as now, with the access the account has now; None when
        it is unknown, expired, revoked, or its account is disabled. Always reads the
        database."""
        self.lookups += 1
        if credential.kind == "token":
            identity = await self.team.tokens.verify(credential.secret)
        else:
            identity = await self.team.sessions.verify(credential.secret)
        if identity is None:
            return None
        access = await self.team.access_of(identity)
        return SignedIn(identity.username, credential.kind == "session", access, credential)


class SignInMethod(Protocol):
    """How a request's headers sign it in: ``OwnerSignIn`` or ``TeamSignIn``."""

    async def sign_in(self, headers: Headers) -> SignedIn | None: ...


class AuthMiddleware:
    """Signs each request in from its bearer token or session cookie, and runs it with the
    access that gives (``services.users.access.acting_as``).

    ``/health`` is open; ``GET /?token=…`` and the sign-in page go through to their routes,
    which judge what they are given themselves. Anything else without valid credentials gets
    401 (HTML for a page: the sign-in page in multi mode; JSON elsewhere); a WebSocket is
    accepted and closed at once with code 4401. An account's request runs inside
    ``connections`` so it ends the moment its credential or grants are taken away.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        method: SignInMethod,
        connections: OpenConnections | None,
        how_to_sign_in: str,
        sign_in_page: str | None = None,
    ) -> None:
        self.app = app
        self.method = method
        self.connections = connections
        self.how_to_sign_in = how_to_sign_in
        self.sign_in_page = sign_in_page

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and _is_login(scope, self.sign_in_page):
            await self.app(scope, receive, send)
            return
        try:
            signed = await self.method.sign_in(Headers(scope=scope))
        except QuireError as error:  # the sign-in could not be checked (the database is away)
            await self.failed(error, scope, receive, send)
            return
        if signed is not None:
            scope[USER_SCOPE_KEY] = signed.user
            scope[BROWSER_SCOPE_KEY] = signed.by_browser
            # A request keeps the levels it finds for its own length; a socket, which may live
            # for hours, looks every path up afresh.
            access = signed.access.for_request() if scope["type"] == "http" else signed.access
            with acting_as(access):
                if signed.credential is None or self.connections is None:
                    await self.app(scope, receive, send)
                else:
                    await self.connections.run(signed, self.app, scope, receive, send)
            return
        await self.refuse(scope, receive, send)

    async def failed(self, error: QuireError, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a request whose sign-in could not be checked with ``error``."""
        if scope["type"] == "websocket":
            reason = close_reason(error.message)
            await close_websocket(receive, send, WEBSOCKET_ERROR_CODE, reason, accept=True)
            return
        body = quire_error_body(error)
        await JSONResponse(body, status_code=status_of(error))(scope, receive, send)

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a request that did not sign in."""
        if scope["type"] == "websocket":
            await close_websocket(receive, send, WS_UNAUTHORIZED, "sign in first", accept=True)
        elif scope["path"] in (LOGIN_PATH, "/open") and self.sign_in_page is not None:
            target = scope["path"] + (
                "?" + scope["query_string"].decode("latin-1") if scope.get("query_string") else ""
            )
            location = f"{self.sign_in_page}?{urlencode({'next': target})}"
            await RedirectResponse(location, status_code=303)(scope, receive, send)
        elif scope["path"] in (LOGIN_PATH, "/open"):
            await sign_in_needed_page(self.how_to_sign_in)(scope, receive, send)
        else:
            response = error_response(401, "Unauthorized", self.refusal(Headers(scope=scope)))
            response.headers["WWW-Authenticate"] = 'Bearer realm="quire"'
            await response(scope, receive, send)

    def refusal(self, headers: Headers) -> str:
        """Why a request did not sign in, and what to do (never echoing what it sent)."""
        if self.sign_in_page is None:
            return f"This request needs Quire's token. {self.how_to_sign_in}"
        if bearer_token(headers) is not None:
            return (
                "This API token does not sign in: it is unknown, expired or revoked, or its "
                "account is disabled. Make a new one on your account page, or ask an admin "
                "(`quire user token USERNAME`)."
            )
        if session_cookie(headers) is not None:
            return (
                f"Your session has ended (signed out, expired, or the account was disabled). "
                f"Sign in again at {self.sign_in_page}."
            )
        return (
            f"Sign in first: open {self.sign_in_page} in a browser, or send "
            "`Authorization: Bearer <token>` with an API token (`quire user token USERNAME` "
            "makes one)."
        )


class HostOriginMiddleware:
    """The DNS-rebinding defence: the Host must name this server, and an Origin be its own.

    Allowed Host values are ``127.0.0.1``, ``localhost``, ``[::1]`` and the configured host,
    each with the port the request arrived on, and the host of the public URL (behind a
    reverse proxy). A request with an Origin header must come from one of those, under the
    scheme the server is reached with (``https://`` with TLS or through an HTTPS proxy), or
    be the public URL's origin. Refused: HTTP 403 with a JSON message; a WebSocket is closed
    before its handshake completes (the browser sees 403).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        host: str,
        port: int,
        scheme: str = "http",
        public_url: str | None = None,
    ) -> None:
        self.app = app
        self.names = _host_names(host)
        self.port = port
        self.scheme = scheme
        self.public_hosts, self.public_origin = _public(public_url)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        allowed = self.allowed_hosts(scope)
        headers = Headers(scope=scope)
        origins = {f"{scheme}://{host}" for host in allowed for scheme in self.schemes(scope)}
        if self.public_origin is not None:
            origins.add(self.public_origin)
        problem = _host_problem(
            headers.get("host"), allowed | self.public_hosts
        ) or _origin_problem(headers.getlist("origin"), origins)
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await close_websocket(receive, send, WS_FORBIDDEN, "refused", accept=False)
        else:
            await error_response(403, "Forbidden", problem)(scope, receive, send)

    def schemes(self, scope: Scope) -> set[str]:
        """The schemes a page of this server is served under: the server's own, and the one
        the request came with (https from a trusted proxy, as uvicorn set it)."""
        request_scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        return {self.scheme, request_scheme}

    def allowed_hosts(self, scope: Scope) -> frozenset[str]:
        """The Host values this server answers to, for the port the request came in on."""
        server = scope.get("server")
        port = server[1] if server and server[1] else self.port
        hosts = {f"{name}:{port}" for name in self.names}
        if port == 80:
            hosts.update(self.names)
        return frozenset(hosts)


def _host_names(host: str) -> frozenset[str]:
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host:
        names.add(f"[{host.lower()}]" if ":" in host else host.lower())
    return frozenset(names)


def _host_problem(host: str | None, allowed: Iterable[str]) -> str | None:
    expected = ", ".join(sorted(allowed))
    if host is None or host.lower() not in allowed:
        shown = "no Host header" if host is None else f"the Host {host!r}"
        return (
            f"Refused: the request came with {shown}, and this Quire server answers only to "
            f"{expected}. Open Quire at one of those addresses; a page of another site cannot "
            "reach it."
        )
    return None


def _public(public_url: str | None) -> tuple[frozenset[str], str | None]:
    """The Host values and the Origin of the public URL (none without one)."""
    if public_url is None:
        return frozenset(), None
    parts = urlsplit(public_url.lower())
    default = 443 if parts.scheme == "https" else 80
    port = parts.port or default
    name = parts.hostname or ""
    shown = f"[{name}]" if ":" in name else name
    hosts = {f"{shown}:{port}"} | ({shown} if port == default else set())
    origin = f"{parts.scheme}://{shown}" + ("" if port == default else f":{port}")
    return frozenset(hosts), origin


def _origin_problem(origins: list[str], own: set[str]) -> str | None:
    if not origins:
        return None
    if len(origins) == 1 and origins[0].lower() in own:
        return None
    return (
        f"Refused: the request was sent by the page at {', '.join(origins)!s}, not by one of "
        "Quire's own pages. Quire accepts requests only from its own pages or from programs "
        "that send no Origin header."
    )


def _is_login(scope: Scope, sign_in_page: str | None) -> bool:
    if sign_in_page is not None:
        return bool(scope["path"] == sign_in_page)
    if scope["path"] != LOGIN_PATH or scope["method"] not in ("GET", "HEAD"):
        return False
    return "token" in QueryParams(scope.get("query_string", b""))


async def close_websocket(
    receive: Receive, send: Send, code: int, reason: str, *, accept: bool
) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if accept:
        await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code, "reason": reason})
