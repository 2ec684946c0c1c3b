from pathlib import Path

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from quire.core.views import OWNER
from quire.services.app import AppServices, open_services
from quire.services.settings import Settings
from quire.web.app import create_app
from tests.web.conftest import AUTH, BASE_URL, TOKEN

pytestmark = pytest.mark.anyio


async def test_stopping_the_app_ends_every_event_stream(
    app: Starlette, services: AppServices
) -> None:
    async with services.bus.subscribe(OWNER) as events:
        async with app.router.lifespan_context(app):
            pass
        with anyio.fail_after(5):
            assert [event async for event in events] == []


async def test_the_home_page_escapes_workspace_names(tmp_path: Path) -> None:
    workspace = tmp_path / "<script>notes & more"
    workspace.mkdir()
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=4747)
    async with open_services(settings, token=TOKEN, clock=lambda: 1) as services:
        transport = httpx.ASGITransport(app=create_app(services))
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
            response = await client.get("/", headers=AUTH)
    assert response.status_code == 200
    assert "&lt;script&gt;notes &amp; more" in response.text
    assert "<script>notes" not in response.text


async def test_the_home_page_is_never_cached_or_framed(client: httpx.AsyncClient) -> None:
    response = await client.get("/", headers=AUTH)
    assert response.headers["Cache-Control"] == "no-store"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


async def test_the_routes_reach_the_services(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/documents/current", headers=AUTH)
    assert response.status_code == 200
    assert response.json() == {"path": None, "content": ""}
