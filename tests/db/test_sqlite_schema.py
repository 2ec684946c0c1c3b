"""A new SQLite database made from the schema script is the one the migrations make."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from quire.db import sqlite_schema
from quire.db.engine import SQLITE_PRAGMAS
from quire.db.migrate import alembic_config, migrate
from quire.db.sqlite_schema import SCRIPT, create_if_empty, made_by_the_migrations, statements

pytestmark = pytest.mark.anyio


def _contents(connection: Connection) -> dict[str, object]:
    """Every schema object's SQL and every table's rows, the deployment's name aside."""
    objects = connection.exec_driver_sql(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    ).all()
    rows: dict[str, object] = {"schema": [tuple(row) for row in objects]}
    for (table,) in connection.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).all():
        found = connection.exec_driver_sql(f'SELECT * FROM "{table}"').all()
        rows[table] = sorted(tuple(row) for row in found) if table != "deployment" else len(found)
    return rows


def _engine(folder: Path) -> AsyncEngine:
    folder.mkdir()
    return create_async_engine(f"sqlite+aiosqlite:///{folder / 'quire.db'}")


async def _by_the_migrations(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))


def test_the_committed_script_is_what_the_migrations_make_now() -> None:
    assert SCRIPT.read_text(encoding="utf-8") == made_by_the_migrations(), (
        "run scripts/sqlite-schema"
    )


async def test_a_new_database_from_the_script_equals_one_the_migrations_made(
    tmp_path: Path,
) -> None:
    migrated, scripted = _engine(tmp_path / "migrated"), _engine(tmp_path / "new")
    try:
        await _by_the_migrations(migrated)
        await migrate(scripted)
        contents = []
        for engine in (migrated, scripted):
            async with engine.connect() as connection:
                contents.append(await connection.run_sync(_contents))
                names = await connection.exec_driver_sql("SELECT name FROM deployment")
                contents.append(names.scalar_one())
        migrated_contents, migrated_name, scripted_contents, scripted_name = contents
        assert scripted_contents == migrated_contents
        assert isinstance(scripted_name, str)
        assert len(scripted_name) == len(migrated_name) == 32
        assert scripted_name != migrated_name
    finally:
        await migrated.dispose()
        await scripted.dispose()


async def test_each_new_database_gets_a_deployment_name_of_its_own(tmp_path: Path) -> None:
    names = set()
    for index in range(2):
        engine = _engine(tmp_path / str(index))
        try:
            await migrate(engine)
            async with engine.connect() as connection:
                found = await connection.exec_driver_sql("SELECT name FROM deployment")
                names.add(found.scalar_one())
        finally:
            await engine.dispose()
    assert len(names) == 2


async def test_a_database_with_anything_in_it_is_migrated_not_scripted(tmp_path: Path) -> None:
    """A database holding something that is not Quire's (or an older Quire's tables without a
    revision) is left to the migrations, which say what they find; the script only ever runs
    on an empty file."""
    engine = _engine(tmp_path / "other")
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql("CREATE TABLE notes (body TEXT)")
            await connection.exec_driver_sql("INSERT INTO notes VALUES ('kept')")
        await migrate(engine)
        async with engine.connect() as connection:
            kept = await connection.exec_driver_sql("SELECT body FROM notes")
            assert kept.scalars().all() == ["kept"]
            version = await connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert version.scalar_one() is not None
    finally:
        await engine.dispose()


def test_statements_keep_a_triggers_body_whole_and_skip_comments() -> None:
    script = (
        "-- a comment; with a semicolon\n\n"
        "CREATE TABLE t (a INT);\n\n"
        "CREATE TRIGGER g AFTER INSERT ON t BEGIN UPDATE t SET a = 1; DELETE FROM t; END;\n"
    )
    assert statements(script) == [
        "CREATE TABLE t (a INT)",
        "CREATE TRIGGER g AFTER INSERT ON t BEGIN UPDATE t SET a = 1; DELETE FROM t; END",
    ]


def test_a_script_cut_inside_a_statement_is_refused() -> None:
    with pytest.raises(ValueError, match="ends inside a statement"):
        statements("CREATE TABLE t (a INT);\nCREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1;")


def test_two_servers_making_one_new_database_make_it_once(tmp_path: Path) -> None:
    """Each checks for emptiness under the write lock: one makes the schema, the other finds
    it made and leaves it (no table made twice, one deployment)."""
    database = str(tmp_path / "quire.db")
    with ThreadPoolExecutor(max_workers=4) as pool:
        made = list(pool.map(lambda _: create_if_empty(database, SQLITE_PRAGMAS), range(4)))
    assert made.count(True) == 1
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT count(*) FROM deployment").fetchone() == (1,)


def test_a_script_that_fails_part_way_leaves_the_file_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = str(tmp_path / "quire.db")
    real = statements(SCRIPT.read_text(encoding="utf-8"))
    monkeypatch.setattr(
        sqlite_schema, "statements", lambda _: [*real, "CREATE TABLE deployment (x)"]
    )
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        create_if_empty(database, SQLITE_PRAGMAS)
    with sqlite3.connect(database) as connection:
        left = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    assert left == (0,)
    monkeypatch.undo()
    assert create_if_empty(database, SQLITE_PRAGMAS)


async def test_a_database_named_through_a_chain_of_dotdots_is_made(tmp_path: Path) -> None:
    """The script opens the file the driver opens (made absolute), not the URL's text: SQLite
    cannot open a relative name that climbs past the root."""
    database = "../" * 40 + str(tmp_path / "quire.db").lstrip("/")
    engine = create_async_engine(f"sqlite+aiosqlite:///{database}")
    try:
        await migrate(engine)
        async with engine.connect() as connection:
            found = await connection.exec_driver_sql("SELECT count(*) FROM deployment")
            assert found.scalar_one() == 1
    finally:
        await engine.dispose()
