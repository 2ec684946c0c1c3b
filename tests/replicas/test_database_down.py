"""PostgreSQL away: a replica says so on /health, fails requests at once with an error that
names the database, writes nothing half, and serves again once the database is back."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.support.database import postgres_server_url
from tests.support.replicas import Cluster, replica_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

FAIL_FAST_S = 5.0


async def _connections(cluster: Cluster, *, allowed: bool) -> None:
    """Let connections to the cluster's database in, or shut them out (and end those open)."""
    name = make_url(cluster.db_url).database
    engine = create_async_engine(postgres_server_url(), isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            flag = "true" if allowed else "false"
            await connection.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {flag}'))
            if not allowed:
                await connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                )
    finally:
        await engine.dispose()


async def test_requests_fail_fast_while_the_database_is_away_and_work_once_it_is_back(
    tmp_path: Path,
) -> None:
    async with replica_cluster(tmp_path, count=1) as cluster:
        token = await cluster.account("alice")
        [replica] = cluster.replicas
        chat = cluster.workspace / "room.md"
        async with replica.client(token) as client:
            made = await client.post("/api/chats", json={"path": str(chat)})
            assert made.status_code == 200, made.text
            before = chat.read_bytes()
            await _connections(cluster, allowed=False)
            try:
                started = time.monotonic()
                health = await client.get("/health")
                assert (health.status_code, health.json()["database"]) == (503, "unreachable")
                await anyio.sleep(1.1)  # past the sign-in cache
                body = {"path": str(chat), "as": "bot", "body": "lost?"}
                posted = await client.post("/api/chats/post", json=body)
                assert time.monotonic() - started < FAIL_FAST_S
                assert posted.status_code == 503, posted.text
                assert "database" in posted.json()["error"]["message"].lower()
                assert chat.read_bytes() == before
            finally:
                await _connections(cluster, allowed=True)
            with anyio.fail_after(15):
                while (await client.get("/health")).status_code != 200:  # noqa: ASYNC110 - another process
                    await anyio.sleep(0.1)
            body = {"path": str(chat), "as": "bot", "body": "back"}
            posted = await client.post("/api/chats/post", json=body)
            assert posted.status_code == 200, posted.text
