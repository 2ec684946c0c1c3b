"""Opening the database: URLs, SQLite connection settings, file mode, unreachable servers."""

from __future__ import annotations

import logging
import stat
import sys
import traceback
from pathlib import Path

import anyio
import pytest
from sqlalchemy import text

from quire.core.errors import InvalidArgument, StorageFailed
from quire.db.engine import Database, open_database
from quire.settings.database import database_url
from tests.support.database import postgres_server_url
from tests.support.ports import refused_port

SECRET = "s3cr3t-Pa55word"


def _all_text(err: BaseException) -> str:
    """Everything a log or a traceback could show of ``err``, its causes and contexts."""
    parts = ["".join(traceback.format_exception(err)), repr(err)]
    seen: BaseException | None = err
    while seen is not None:
        parts.append(str(seen))
        seen = seen.__cause__ or seen.__context__
    return "\n".join(parts)


def test_a_url_not_of_an_async_driver_is_refused_without_its_password() -> None:
    for url in (f"postgresql://quire:{SECRET}@db/quire", f"mysql://root:{SECRET}@db/quire"):
        with pytest.raises(InvalidArgument) as caught:
            anyio.run(open_database, url)
        assert "database_url" in caught.value.message
        assert SECRET not in _all_text(caught.value)


async def _sqlite_settings(db: Database) -> dict[str, object]:
    async with db.engine.connect() as connection:
        return {
            name: (await connection.execute(text(f"PRAGMA {name}"))).scalar()
            for name in ("journal_mode", "busy_timeout", "foreign_keys", "synchronous")
        }


@pytest.mark.anyio
async def test_every_sqlite_connection_gets_wal_a_busy_timeout_and_foreign_keys(
    tmp_path: Path,
) -> None:
    db = await open_database(database_url(None, tmp_path))
    expected = {"journal_mode": "wal", "busy_timeout": 5000, "foreign_keys": 1, "synchronous": 1}
    try:
        results: list[dict[str, object]] = []

        async def check() -> None:
            results.append(await _sqlite_settings(db))

        # Several at once, so the pool opens several connections, not one reused.
        async with anyio.create_task_group() as group:
            for _ in range(4):
                group.start_soon(check)
        assert results == [expected] * 4
    finally:
        await db.close()
    assert db.backend == "sqlite"


@pytest.mark.anyio
@pytest.mark.parametrize("state", ["new", "existing"])
async def test_the_sqlite_file_is_readable_by_its_owner_only(tmp_path: Path, state: str) -> None:
    state_dir = tmp_path / "state" if state == "new" else tmp_path
    db = await open_database(database_url(None, state_dir))
    await db.close()
    mode = stat.S_IMODE((state_dir / "quire.db").stat().st_mode)
    assert mode == 0o600


@pytest.mark.anyio
async def test_a_sqlite_file_that_cannot_be_opened_fails_with_a_clear_message(
    tmp_path: Path,
) -> None:
    (tmp_path / "quire.db").mkdir()
    with pytest.raises(StorageFailed) as caught:
        await open_database(database_url(None, tmp_path))
    assert str(tmp_path / "quire.db") in caught.value.message
    assert "--db" in caught.value.message


@pytest.mark.anyio
async def test_a_sqlite_file_that_is_not_a_database_fails_with_a_clear_message(
    tmp_path: Path,
) -> None:
    (tmp_path / "quire.db").write_bytes(b"this is not a database, just some text\n" * 200)
    with pytest.raises(StorageFailed) as caught:
        await open_database(database_url(None, tmp_path))
    assert "Could not open the database" in caught.value.message


@pytest.mark.anyio
async def test_an_unreachable_postgresql_is_named_without_its_password(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with refused_port() as port, pytest.raises(StorageFailed) as caught:
        url = f"postgresql://quire:{SECRET}@127.0.0.1:{port}/quire"
        await open_database(database_url(url, tmp_path))
    message = caught.value.message
    assert f"postgresql+asyncpg://quire:***@127.0.0.1:{port}/quire" in message
    assert "PostgreSQL is running" in message
    assert SECRET not in _all_text(caught.value)
    assert SECRET not in caplog.text


@pytest.mark.anyio
async def test_a_missing_postgresql_database_is_named_without_its_password(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = postgres_server_url()
    url = server.set(password=SECRET, database="quire_no_such_database")
    with pytest.raises(StorageFailed) as caught:
        await open_database(url.render_as_string(hide_password=False))
    assert "quire_no_such_database" in caught.value.message
    assert "***" in caught.value.message
    assert SECRET not in _all_text(caught.value)
    assert SECRET not in caplog.text


@pytest.mark.anyio
async def test_an_open_database_knows_its_backend_and_masks_its_url(database: Database) -> None:
    assert database.backend in ("sqlite", "postgresql")
    assert database.display_url.startswith(
        "sqlite+aiosqlite://" if database.backend == "sqlite" else "postgresql+asyncpg://"
    )
    async with database.session() as session:
        assert (await session.execute(text("SELECT 1"))).scalar() == 1


def test_postgresql_without_its_driver_says_to_install_the_postgres_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "asyncpg", None)  # as if the extra were not installed
    with refused_port() as port, pytest.raises(InvalidArgument) as caught:
        url = database_url(f"postgresql://quire:{SECRET}@127.0.0.1:{port}/quire", Path("/nowhere"))
        anyio.run(open_database, url)
    assert "pip install 'quire[postgres]'" in caught.value.message
    assert caught.value.argument == "db"
    assert SECRET not in _all_text(caught.value)
