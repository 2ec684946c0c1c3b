"""Who may talk to the server: the token or session cookie, and the Host and Origin checks.

Pure ASGI middleware in front of every route, HTTP and WebSocket alike. Tokens and session
ids are compared in constant time and never logged or echoed back.
"""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie

from starlette.datastructures import Headers, QueryParams
from starlette.types import ASGIApp, Receive, Scope, Send

from quire.web.context import BROWSER_SCOPE_KEY, USER_SCOPE_KEY
from quire.web.errors import error_response
from quire.web.pages import sign_in_needed_page

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


class AuthMiddleware:
    """Signs each request in as the owner from its bearer token or session cookie.

    ``/health`` is open; ``GET /?token=…`` goes through to the login route, which judges the
    token itself. Anything else without valid credentials gets 401 (HTML for the home page,
    JSON elsewhere); a WebSocket is accepted and closed at once with code 4401.
    """

    def __init__(
        self, app: ASGIApp, *, token: str, user: str, sessions: Sessions, how_to_sign_in: str
    ) -> None:
        self.app = app
        self.token = token
        self.user = user
        self.sessions = sessions
        self.how_to_sign_in = how_to_sign_in

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and _is_login(scope):
            await self.app(scope, receive, send)
            return
        user, by_browser = self._user(Headers(scope=scope))
        if user is not None:
            scope[USER_SCOPE_KEY] = user
            scope[BROWSER_SCOPE_KEY] = by_browser
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await _close_websocket(receive, send, WS_UNAUTHORIZED, "sign in first", accept=True)
        elif scope["path"] in (LOGIN_PATH, "/open"):
            await sign_in_needed_page(self.how_to_sign_in)(scope, receive, send)
        else:
            message = f"This request needs Quire's token. {self.how_to_sign_in}"
            response = error_response(401, "Unauthorized", message)
            response.headers["WWW-Authenticate"] = 'Bearer realm="quire"'
            await response(scope, receive, send)

    def _user(self, headers: Headers) -> tuple[str | None, bool]:
        """The signed-in user, and whether a browser login's cookie (not a token) did it. A
        request that carries a token is a token request, whatever cookie comes with it."""
        token = bearer_token(headers)
        if token is not None and tokens_match(token, self.token):
            return self.user, False
        session_id = session_cookie(headers)
        if session_id is not None:
            user = self.sessions.user_of(session_id)
            return user, user is not None and token is None
        return None, False


class HostOriginMiddleware:
    """The DNS-rebinding defence: the Host must name this server, and an Origin be its own.

    Allowed Host values are ``127.0.0.1``, ``localhost``, ``[::1]`` and the configured host,
    each with the port the request arrived on. A request with an Origin header must come from
    ``http://`` one of those. Refused: HTTP 403 with a JSON message; a WebSocket is closed
    before its handshake completes (the browser sees 403).
    """

    def __init__(self, app: ASGIApp, *, host: str, port: int) -> None:
        self.app = app
        self.names = _host_names(host)
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        allowed = self.allowed_hosts(scope)
        headers = Headers(scope=scope)
        problem = _host_problem(headers.get("host"), allowed) or _origin_problem(
            headers.getlist("origin"), allowed
        )
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await _close_websocket(receive, send, WS_FORBIDDEN, "refused", accept=False)
        else:
            await error_response(403, "Forbidden", problem)(scope, receive, send)

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


def _origin_problem(origins: list[str], allowed: Iterable[str]) -> str | None:
    if not origins:
        return None
    own = {f"http://{host}" for host in allowed}
    if len(origins) == 1 and origins[0].lower() in own:
        return None
    return (
        f"Refused: the request was sent by the page at {', '.join(origins)!s}, not by one of "
        "Quire's own pages. Quire accepts requests only from its own pages or from programs "
        "that send no Origin header."
    )


def _is_login(scope: Scope) -> bool:
    if scope["path"] != LOGIN_PATH or scope["method"] not in ("GET", "HEAD"):
        return False
    return "token" in QueryParams(scope.get("query_string", b""))


async def _close_websocket(
    receive: Receive, send: Send, code: int, reason: str, *, accept: bool
) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if accept:
        await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code, "reason": reason})
