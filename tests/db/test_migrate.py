"""Migrations: applied in process, idempotent, and producing exactly the models' schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text

from quire.core.errors import StorageFailed
from quire.db.engine import Database, open_database
from quire.db.migrate import HEAD_REVISION, MIGRATIONS_DIR, alembic_config, migrate
from quire.db.models import Base

TABLES = {"users", "windows", "tabs", "recents", "buffers", "buffer_updates", "reviews"}
TABLES |= {"chat_cursors", "chat_sessions", "chat_pins", "approvals", "notices"}
TABLES |= {"accounts", "api_tokens", "browser_sessions", "login_failures", "access_groups"}
TABLES |= {"group_members", "grants"}
TABLES |= {"private_chats", "chat_members", "access_changes", "deployment"}
TABLES |= {"given_versions", "edit_previews"}


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


def _schema(connection: Connection) -> dict[str, object]:
    inspector = inspect(connection)
    return {
        table: (
            [column["name"] for column in inspector.get_columns(table)],
            sorted(str(index["name"]) for index in inspector.get_indexes(table)),
        )
        for table in inspector.get_table_names()
    }


async def _version(db: Database) -> list[str]:
    async with db.engine.connect() as connection:
        rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
        return [str(row[0]) for row in rows]


def _head() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def test_the_migrations_have_one_head_and_ship_inside_the_package() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1
    assert MIGRATIONS_DIR.is_relative_to(Path(__file__).parents[2] / "src" / "quire" / "db")
    assert (MIGRATIONS_DIR / "env.py").is_file()
    assert (MIGRATIONS_DIR / "script.py.mako").is_file()


@pytest.mark.anyio
async def test_a_migrated_database_matches_the_models_exactly(database: Database) -> None:
    async with database.engine.connect() as connection:
        assert await connection.run_sync(_differences) == []
        tables = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    assert tables == TABLES | {"alembic_version"}
    assert await _version(database) == [_head()]


@pytest.mark.anyio
async def test_migrating_again_changes_nothing(database: Database) -> None:
    async with database.engine.connect() as connection:
        before = await connection.run_sync(_schema)
    await migrate(database.engine)
    await migrate(database.engine)
    async with database.engine.connect() as connection:
        assert await connection.run_sync(_schema) == before
        assert await connection.run_sync(_differences) == []
    assert await _version(database) == [_head()]


@pytest.mark.anyio
async def test_opening_without_migrating_leaves_the_database_empty(database_url: str) -> None:
    db = await open_database(database_url, migrate=False)
    try:
        async with db.engine.connect() as connection:
            tables = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
        assert tables == []
        await migrate(db.engine)
        assert await _version(db) == [_head()]
    finally:
        await db.close()


@pytest.mark.anyio
async def test_reopening_a_migrated_database_keeps_its_rows(database_url: str) -> None:
    first = await open_database(database_url)
    try:
        async with first.session() as session:
            await session.execute(
                text("INSERT INTO users (id, name, created_at_ms) VALUES ('owner', 'Owner', 1)")
            )
            await session.commit()
    finally:
        await first.close()
    second = await open_database(database_url)
    try:
        async with second.session() as session:
            names = (await session.execute(text("SELECT name FROM users"))).scalars().all()
        assert names == ["Owner"]
    finally:
        await second.close()


@pytest.mark.anyio
async def test_a_database_from_a_newer_quire_is_refused_with_advice(database: Database) -> None:
    async with database.engine.begin() as connection:
        await connection.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    with pytest.raises(StorageFailed) as caught:
        await migrate(database.engine)
    assert "newer Quire" in caught.value.message
    assert "9999_future" in caught.value.message


def test_the_head_revision_known_at_start_is_the_newest_script() -> None:
    assert _head() == HEAD_REVISION


@pytest.mark.anyio
async def test_a_database_at_the_head_is_left_without_alembic_even_when_its_tables_differ(
    database: Database,
) -> None:
    # Proof that the check, not an upgrade, decided: a table dropped behind Alembic's back stays
    # dropped, since a database at the head revision is trusted as it is.
    async with database.engine.begin() as connection:
        await connection.execute(text("DROP TABLE chat_pins"))
    await migrate(database.engine)
    async with database.engine.connect() as connection:
        tables = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    assert "chat_pins" not in tables
