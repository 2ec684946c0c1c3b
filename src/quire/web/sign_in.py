"""Multi mode's sign-in: the username and password form, sign-out, and sign-out everywhere.

``GET /login`` shows the form; ``POST /login`` checks it (``services.users.sign_in``: argon2id,
lockout, one answer for every failure) and starts a browser session: a new random id in an
HttpOnly, SameSite=Strict cookie (Secure over HTTPS), so an id planted before sign-in is worth
nothing. A form post must carry the CSRF value the form was served with (a cookie of its own
beside a hidden field) and, when the browser sends one, the server's own Origin (checked by
``auth.HostOriginMiddleware`` before this runs).
"""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from quire.core.errors import SignInLocked, SignInRefused
from quire.services.users.team import Team
from quire.web.auth import SESSION_COOKIE, session_cookie
from quire.web.context import recheck_connections, services_of
from quire.web.pages import account_sign_in_page

SIGN_IN_PATH = "/login"
CSRF_COOKIE = "quire_sign_in"
FORM_MAX_BYTES = 8 * 1024
"""A sign-in form is a username, a password (at most 1,024 characters) and two short values."""


def _team(request: Request) -> Team:
    team = services_of(request).team
    assert team is not None, "the sign-in routes are mounted in multi mode only"
    return team


def _next_path(raw: str | None) -> str:
    """Where to go after signing in: a path of this server only (never ``//host`` or a URL)."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
        return "/"
    if any(ord(char) < 0x20 for char in raw):
        return "/"
    return raw


def _secure(request: Request) -> bool:
    return request.url.scheme in ("https", "wss")


def _form_page(request: Request, *, error: str | None = None, status: int = 200) -> Response:
    csrf = secrets.token_urlsafe(24)
    page = account_sign_in_page(
        action=SIGN_IN_PATH,
        next_path=_next_path(request.query_params.get("next")),
        csrf=csrf,
        error=error,
        status=status,
    )
    page.set_cookie(
        CSRF_COOKIE,
        csrf,
        path=SIGN_IN_PATH,
        httponly=True,
        samesite="strict",
        secure=_secure(request),
    )
    return page


async def sign_in_form(request: Request) -> Response:
    """The sign-in form."""
    return _form_page(request)


async def sign_in(request: Request) -> Response:
    """Check the username and password of the form; on success a new session and a redirect
    to where the browser was going."""
    body = await request.body()
    if len(body) > FORM_MAX_BYTES:
        return _form_page(request, error="That form is too large to be a sign-in.", status=413)
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8)
    except (UnicodeDecodeError, ValueError):
        return _form_page(request, error="That form could not be read; try again.", status=400)

    def one(name: str) -> str:
        values = fields.get(name, [])
        return values[0] if len(values) == 1 else ""

    expected = request.cookies.get(CSRF_COOKIE, "")
    if not expected or not secrets.compare_digest(
        one("csrf").encode("utf-8", "surrogateescape"), expected.encode("utf-8", "surrogateescape")
    ):
        return _form_page(
            request,
            error="This sign-in form expired or came from another page. Sign in again here.",
            status=403,
        )
    address = request.client.host if request.client else None
    team = _team(request)
    try:
        identity = await team.sign_in.authenticate(
            one("username"), one("password"), address=address
        )
    except SignInLocked as exc:
        response = _form_page(request, error=str(exc), status=429)
        if exc.retry_after_s is not None:
            response.headers["Retry-After"] = str(exc.retry_after_s)
        return response
    except SignInRefused as exc:
        return _form_page(request, error=str(exc), status=401)
    brought = session_cookie(request.headers)
    if brought is not None:
        # Whatever session this browser had before (another account's, or one planted in
        # it) ends here; the new one gets a new id.
        await team.sessions.sign_out(brought)
        await recheck_connections(request)
    session_id = await team.sessions.create(identity)
    response = RedirectResponse(_next_path(one("next")), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        path="/",
        httponly=True,
        samesite="strict",
        secure=_secure(request),
    )
    response.delete_cookie(CSRF_COOKIE, path=SIGN_IN_PATH)
    return response


async def sign_out(request: Request) -> Response:
    """End this browser's session and go back to the sign-in form."""
    session_id = session_cookie(request.headers)
    if session_id is not None:
        await _team(request).sessions.sign_out(session_id)
        await recheck_connections(request)
    response = RedirectResponse(SIGN_IN_PATH, status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


routes = [
    Route(SIGN_IN_PATH, sign_in_form, methods=["GET"], name="sign-in-form"),
    Route(SIGN_IN_PATH, sign_in, methods=["POST"], name="sign-in"),
    Route("/logout", sign_out, methods=["POST"], name="sign-out"),
]
