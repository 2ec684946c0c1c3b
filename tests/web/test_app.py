from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from quire.core.views import OWNER
from quire.services.app import AppServices
from quire.web.app import SubApp, create_app
from tests.web.conftest import AUTH, BASE_URL

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


class _Recorded:
    """A sub-app that answers ``sub-app`` and records its lifespan."""

    def __init__(self) -> None:
        self.log: list[str] = []

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("sub-app")(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self.log.append("started")
        yield
        self.log.append("stopped")

    def sub_app(self) -> SubApp:
        return SubApp("/extra", self.app, self.running, methods=("GET", "POST"), name="extra")


async def test_a_sub_app_is_served_behind_the_host_check_and_the_token(
    services: AppServices,
) -> None:
    recorded = _Recorded()
    app = create_app(services, sub_apps=(recorded.sub_app(),))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
        served = await http.post("/extra", headers=AUTH)
        anonymous = await http.post("/extra")
        rebound = await http.post("/extra", headers={**AUTH, "Host": "evil.com"})
        foreign = await http.post("/extra", headers={**AUTH, "Origin": "http://evil.com"})
    assert (served.status_code, served.text) == (200, "sub-app")
    assert anonymous.status_code == 401
    assert rebound.status_code == 403
    assert foreign.status_code == 403


async def test_a_sub_app_runs_while_the_app_does(services: AppServices) -> None:
    recorded = _Recorded()
    app = create_app(services, sub_apps=(recorded.sub_app(),))
    async with services.bus.subscribe(OWNER) as events:
        async with app.router.lifespan_context(app):
            assert recorded.log == ["started"]
        assert recorded.log == ["started", "stopped"]
        with anyio.fail_after(5):
            assert [event async for event in events] == []


async def test_without_sub_apps_the_app_serves_no_mcp_endpoint(client: httpx.AsyncClient) -> None:
    response = await client.post("/mcp", headers=AUTH)
    assert response.status_code == 404
