import anyio
import httpx
import pytest
from starlette.applications import Starlette

from quire.core.views import OWNER
from quire.services.app import AppServices
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio


async def test_stopping_the_app_ends_every_event_stream(
    app: Starlette, services: AppServices
) -> None:
    async with services.bus.subscribe(OWNER) as events:
        async with app.router.lifespan_context(app):
            pass
        with anyio.fail_after(5):
            assert [event async for event in events] == []


async def test_the_home_page_is_never_cached_or_framed(client: httpx.AsyncClient) -> None:
    response = await client.get("/", headers=AUTH)
    assert response.headers["Cache-Control"] == "no-store"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


async def test_the_routes_reach_the_services(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/documents/current", headers=AUTH)
    assert response.status_code == 200
    assert response.json() == {"path": None, "content": ""}
