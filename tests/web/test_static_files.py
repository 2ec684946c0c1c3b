"""Serving the built web UI: index.html for a signed-in browser, assets with their types and
caching, and nothing outside the bundle."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request

from quire.web import static_files
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

BUNDLE_BUILT = (static_files.STATIC_DIR / "index.html").is_file()
needs_bundle = pytest.mark.skipif(
    not BUNDLE_BUILT, reason="the web bundle is not built (cd web && npm ci && npm run build)"
)


@pytest.fixture
def ui_app(app: Starlette) -> Starlette:
    mounted = {getattr(route, "path", None) for route in app.router.routes}
    for route in static_files.routes:
        if getattr(route, "path", None) not in mounted:
            app.router.routes.append(route)
    return app


def _request(host: str = "127.0.0.1:4747") -> Request:
    return Request(
        {"type": "http", "method": "GET", "path": "/", "headers": [(b"host", host.encode())]}
    )


def _asset_names() -> list[str]:
    return sorted(path.name for path in static_files.ASSETS_DIR.iterdir())


@needs_bundle
def test_the_index_page_is_the_bundles_html_with_a_strict_policy() -> None:
    response = static_files.index_page(_request())
    body = bytes(response.body).decode("utf-8")
    assert '<div id="app">' in body
    assert response.headers["cache-control"] == "no-store"
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy
    assert "connect-src 'self' ws://127.0.0.1:4747 wss://127.0.0.1:4747;" in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-frame-options"] == "DENY"


def test_without_a_bundle_the_index_page_says_how_to_build_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(static_files, "STATIC_DIR", tmp_path)
    response = static_files.index_page(_request())
    assert response.status_code == 503
    assert "npm run build" in bytes(response.body).decode("utf-8")


@needs_bundle
@pytest.mark.parametrize(
    ("suffix", "content_type"),
    [
        (".js", "text/javascript; charset=utf-8"),
        (".css", "text/css; charset=utf-8"),
        (".woff2", "font/woff2"),
    ],
)
async def test_assets_have_their_type_and_are_cached_for_good(
    ui_app: Starlette, client: httpx.AsyncClient, suffix: str, content_type: str
) -> None:
    name = next(name for name in _asset_names() if name.endswith(suffix))
    response = await client.get(f"/assets/{name}", headers=AUTH)
    assert response.status_code == 200
    assert response.headers["content-type"] == content_type
    assert response.headers["cache-control"] == static_files.IMMUTABLE
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.content == (static_files.ASSETS_DIR / name).read_bytes()


@needs_bundle
async def test_the_favicon_is_served(ui_app: Starlette, client: httpx.AsyncClient) -> None:
    response = await client.get("/favicon.svg", headers=AUTH)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"


@pytest.mark.parametrize(
    "name",
    [
        "missing.js",
        "../index.html",
        "..%2Findex.html",
        "%2e%2e/%2e%2e/web/preview.py",
        "./x.js",
        ".build-stamp",
        "a/../../index.html",
        "x.py",
        "x%00.js",
        "x\\..\\y.js",
    ],
)
async def test_nothing_outside_the_bundles_assets_is_served(
    ui_app: Starlette, client: httpx.AsyncClient, name: str
) -> None:
    response = await client.get(f"/assets/{name}", headers=AUTH)
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "NotFound"


async def test_assets_need_a_signed_in_browser(
    ui_app: Starlette, client: httpx.AsyncClient
) -> None:
    response = await client.get("/assets/anything.js")
    assert response.status_code == 401
