"""The few HTML pages the server renders itself: the placeholder home page and login failures.

Static text with escaped values only; the real user interface arrives with the web UI issue.
"""

from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse

PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}
"""Headers for every server-rendered page: never cached, framed or leaking the URL onward."""

_STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; margin: 0; }
main { max-width: 40rem; margin: 4rem auto; padding: 2rem 2.5rem; background: #fff;
       border: 1px solid #d0d7de; border-radius: 8px; }
h1 { font-size: 1.5rem; margin-top: 0; }
code { font: 0.9em ui-monospace, monospace; background: #eff1f3; padding: 0.1em 0.3em;
       border-radius: 4px; }
ul { padding-left: 1.2rem; }
.muted { color: #59636e; }
.error { color: #b42318; }
input { font: inherit; padding: 0.3rem 0.5rem; width: 100%; box-sizing: border-box; }
button { font: inherit; padding: 0.4rem 1.2rem; }
"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
    return HTMLResponse(html, status_code=status, headers=PAGE_HEADERS)


SIGN_IN_PAGE_HEADERS = {
    **PAGE_HEADERS,
    "Content-Security-Policy": PAGE_HEADERS["Content-Security-Policy"].replace(
        "form-action 'none'", "form-action 'self'"
    ),
    # Under no-referrer a browser sends `Origin: null` with the form's POST, which the Origin
    # check refuses; same-origin sends the page's own origin, and still nothing to other sites.
    "Referrer-Policy": "same-origin",
}
"""The sign-in page posts its form to itself; every other page posts nowhere."""


def account_sign_in_page(
    *, action: str, next_path: str, csrf: str, error: str | None = None, status: int = 200
) -> HTMLResponse:
    """The multi-mode sign-in form (username and password), with the error of the last try."""
    problem = f'<p role="alert" class="error">{escape(error)}</p>\n' if error else ""
    body = (
        "<h1>Sign in to Quire</h1>\n"
        f"{problem}"
        f'<form method="post" action="{escape(action)}">\n'
        f'<input type="hidden" name="csrf" value="{escape(csrf)}">\n'
        f'<input type="hidden" name="next" value="{escape(next_path)}">\n'
        '<p><label>Username<br><input name="username" autocomplete="username" required '
        'autofocus autocapitalize="none" spellcheck="false" maxlength="64"></label></p>\n'
        '<p><label>Password<br><input name="password" type="password" required '
        'autocomplete="current-password" maxlength="1024"></label></p>\n'
        '<p><button type="submit">Sign in</button></p>\n'
        "</form>\n"
        '<p class="muted">No account? Ask the person who runs this Quire server '
        "(<code>quire user add NAME</code>).</p>"
    )
    response = _page("Quire: sign in", body, status=status)
    response.headers.update(SIGN_IN_PAGE_HEADERS)
    return response


def sign_in_needed_page(how_to_sign_in: str) -> HTMLResponse:
    """The 401 page for a browser that is not signed in."""
    return _page(
        "Quire: sign in",
        f'<h1>Sign in to Quire</h1>\n<p class="muted">{escape(how_to_sign_in)}</p>',
        status=401,
    )


def login_failed_page(how_to_sign_in: str) -> HTMLResponse:
    """The 401 page for a login link whose token is wrong (often: the server restarted)."""
    return _page(
        "Quire: login link not valid",
        "<h1>This login link is not valid</h1>\n"
        "<p>Its token does not match this server's. The server gets a new token each time it "
        "starts, so an old link stops working after a restart.</p>\n"
        f'<p class="muted">{escape(how_to_sign_in)}</p>',
        status=401,
    )
