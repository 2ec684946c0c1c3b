"""The built web UI (``web/static/``, committed; sources in ``web/`` at the repo root): its
``index.html`` for a signed-in browser and its assets, with their content types and caching.

Serves files only; it never renders or changes them, and signing in is the auth middleware's.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Final

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from quire.web.errors import error_response

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
ASSETS_DIR: Final = STATIC_DIR / "assets"

CONTENT_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".png": "image/png",
    ".json": "application/json",
    ".wasm": "application/wasm",
}
"""Types by extension, not from the system's mime table (which may not know woff2)."""

IMMUTABLE: Final = "public, max-age=31536000, immutable"
"""Assets carry a content hash in their names, so a cached copy is never stale."""

_MISSING_BUNDLE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quire</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 4rem auto">
<h1>Quire's web interface is not built</h1>
<p>This copy of Quire has no browser bundle. From the repository, run
<code>cd web &amp;&amp; npm ci &amp;&amp; npm run build</code>, then reload this page.</p>
</body></html>
"""


def image_sources(*, remote_images: bool) -> str:
    """The page's ``img-src``: this server, data and blob images; remote ones only when some
    folder turns remote images on (a clicked image loads in its own frame, see
    ``quire.web.remote_images``, so the page never needs them for a click)."""
    return "'self' data: blob:" + (" https: http:" if remote_images else "")


def _security_headers(request: Request, *, remote_images: bool) -> dict[str, str]:
    host = request.headers.get("host", "")
    # The event and document sockets live on this same host; the host was already checked.
    sockets = f" ws://{host} wss://{host}" if host else ""
    return {
        "Cache-Control": "no-store",
        "Content-Security-Policy": (
            "default-src 'self'; script-src 'self'; "
            "style-src 'self' 'unsafe-inline'; "
            f"img-src {image_sources(remote_images=remote_images)}; font-src 'self' data:; "
            f"connect-src 'self'{sockets}; frame-src 'self'; object-src 'none'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
    }


def index_page(request: Request, *, remote_images: bool = False) -> Response:
    """The UI's ``index.html`` for a signed-in browser (never cached: it names the current
    assets), or a page saying how to build the bundle when this copy has none.
    ``remote_images``: whether some folder shows remote images without a click."""
    index = STATIC_DIR / "index.html"
    try:
        html = index.read_text(encoding="utf-8")
    except FileNotFoundError:
        return HTMLResponse(_MISSING_BUNDLE, status_code=503, headers={"Cache-Control": "no-store"})
    return HTMLResponse(html, headers=_security_headers(request, remote_images=remote_images))


def _asset_file(name: str) -> Path | None:
    """The file under ``assets/`` that ``name`` names, or None: no ``..``, no dotfiles."""
    parts = PurePosixPath(name).parts
    if not parts or any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return None
    if "\\" in name or "\0" in name:
        return None
    path = ASSETS_DIR.joinpath(*parts)
    if path.suffix not in CONTENT_TYPES or not path.is_file():
        return None
    return path


async def asset(request: Request) -> Response:
    """One file of the bundle, cached for a year (its name changes when it does)."""
    path = _asset_file(str(request.path_params["name"]))
    if path is None:
        return error_response(
            404,
            "NotFound",
            "No such file in Quire's web bundle. Reload the page: the server may have been "
            "updated since it was loaded.",
        )
    return FileResponse(
        path,
        media_type=CONTENT_TYPES[path.suffix],
        headers={"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"},
    )


async def favicon(request: Request) -> Response:
    """The tab icon."""
    path = STATIC_DIR / "favicon.svg"
    if not path.is_file():
        return Response(status_code=404)
    return FileResponse(
        path,
        media_type=CONTENT_TYPES[".svg"],
        headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
    )


routes: list[BaseRoute] = [
    Route("/assets/{name:path}", asset, methods=["GET"]),
    Route("/favicon.svg", favicon, methods=["GET"]),
]
