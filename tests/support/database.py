"""The `database` fixture: a migrated database on SQLite and on PostgreSQL, fresh per test.

`database_url` gives the URL alone (for tests that start a server on it). PostgreSQL comes from
QUIRE_TEST_POSTGRES_URL (scripts/postgres-test-server starts one); without it those cases skip.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from quire.db.engine import Database, open_database
from quire.settings import database as db_settings

POSTGRES_ENV = "QUIRE_TEST_POSTGRES_URL"
POSTGRES_SKIP_REASON = (
    "PostgreSQL tests need QUIRE_TEST_POSTGRES_URL=postgresql+asyncpg://… "
    "(apt-get install postgresql; see .ci/run)"
)
BACKENDS = ["sqlite", "postgresql"]


def postgres_server_url() -> URL:
    """The maintenance URL of the test PostgreSQL server; skips the test when none is given."""
    raw = os.environ.get(POSTGRES_ENV, "").strip()
    if not raw:
        pytest.skip(POSTGRES_SKIP_REASON)
    return make_url(db_settings.database_url(raw, Path()))


@pytest.fixture(params=BACKENDS)
async def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, anyio_backend: str
) -> AsyncIterator[str]:
    """A URL of an empty database for this test alone, on each backend in turn."""
    if request.param == "sqlite":
        yield db_settings.database_url(None, tmp_path)
        return
    async with postgres_database() as url:
        yield url


@asynccontextmanager
async def postgres_database() -> AsyncIterator[str]:
    """``async with postgres_database() as url``: an empty PostgreSQL database for the block
    (dropped after it); skips the test when no test PostgreSQL is given."""
    server = postgres_server_url()
    name = f"quire_test_{secrets.token_hex(6)}"
    maintenance = create_async_engine(server, isolation_level="AUTOCOMMIT")
    try:
        async with maintenance.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield server.set(database=name).render_as_string(hide_password=False)
        finally:
            async with maintenance.connect() as connection:
                await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await maintenance.dispose()


@pytest.fixture
async def database(database_url: str, tmp_path: Path) -> AsyncIterator[Database]:
    """An opened, migrated Database for this test alone, on SQLite and on PostgreSQL."""
    db = await open_database(database_url)
    try:
        yield db
    finally:
        await db.close()
