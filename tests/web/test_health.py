"""``GET /health`` says whether the database answers: 503 when it does not, for a load balancer
to take the replica out of rotation."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from quire import __version__
from quire.db.engine import Database
from quire.services.app import AppServices
from quire.web.app import create_app
from tests.support.ports import refused_port
from tests.web.conftest import BASE_URL

pytestmark = pytest.mark.anyio


async def test_health_is_503_naming_the_database_when_it_does_not_answer(
    services: AppServices,
) -> None:
    with refused_port() as port:
        engine = create_async_engine(f"postgresql+asyncpg://quire@127.0.0.1:{port}/quire")
        gone = Database(engine)
        try:
            assert not await gone.answers()
            app = create_app(replace(services, database=gone))
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
                health = await client.get("/health")
        finally:
            await engine.dispose()
    assert health.status_code == 503
    assert health.json() == {
        "ok": False,
        "version": __version__,
        "replica": health.json()["replica"],
        "database": "unreachable",
        "fanout": "alone",
    }
