"""Browser login: the one-time URL ``/?token=…`` traded for an HttpOnly session cookie.

The token leaves the address bar at once (a 303 redirect to ``/``) and is never stored in
the browser; the cookie holds a random session id the server maps to the user in memory.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from quire.web.auth import SESSION_COOKIE, Sessions, tokens_match
from quire.web.pages import PAGE_HEADERS, login_failed_page


def login_response(
    request: Request, *, token: str, user: str, sessions: Sessions, how_to_sign_in: str
) -> Response:
    """Sign the browser in when ``?token=`` is the server's token; a 401 page otherwise.

    On success: a new session for ``user``, the ``quire_session`` cookie (HttpOnly,
    SameSite=Strict, Path=/) and a 303 redirect to ``/`` so the token leaves the URL.
    """
    given = request.query_params.getlist("token")
    if len(given) != 1 or not tokens_match(given[0], token):
        return login_failed_page(how_to_sign_in)
    response = RedirectResponse("/", status_code=303, headers=PAGE_HEADERS)
    response.set_cookie(
        SESSION_COOKIE,
        sessions.create(user),
        path="/",
        httponly=True,
        samesite="strict",
    )
    return response
