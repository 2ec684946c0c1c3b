"""Bringing a database's schema up to the newest revision with Alembic, in process.

Owns how migrations are found (the migrations folder inside the package) and run; no alembic.ini
is read. The schema itself is defined by models.py and the revision scripts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from quire.core.errors import StorageFailed
from quire.db import sqlite_schema
from quire.db.engine import SQLITE_PRAGMAS

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
HEAD_REVISION = "0008"
"""The newest revision script's id: a database already there needs no Alembic at start (a test
checks it against the scripts, so a new migration updates it)."""
# Any fixed number: servers migrating one PostgreSQL database at once take turns on it.
_ADVISORY_LOCK_KEY = 0x5175697265


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config for Quire's migrations, handing over ``connection`` when given."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


async def migrate(engine: AsyncEngine) -> None:
    """Apply every migration the database has not had yet (``upgrade head``), atomically.

    Running it again is a no-op. Raises StorageFailed when the database carries a revision this
    version of Quire does not know (a newer Quire migrated it).
    """
    async with engine.connect() as connection:
        if await _revision(connection) == HEAD_REVISION:
            return
    sqlite = engine.dialect.name == "sqlite"
    if sqlite and await _made_from_the_script(engine):
        return  # a new database: the newest schema in one step, without loading Alembic
    async with engine.connect() as connection:
        if sqlite:
            # Take the write lock first, so the whole upgrade is one transaction.
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK_KEY}
            )
        await connection.run_sync(_upgrade)
        await connection.commit()


async def _made_from_the_script(engine: AsyncEngine) -> bool:
    """Whether the SQLite database ``engine`` opens was empty and now holds the newest schema,
    made from the schema script (``sqlite_schema``)."""
    # The file as the driver opens it (made absolute, ".." resolved), not as the URL says.
    arguments, _options = engine.dialect.create_connect_args(engine.url)
    database = str(arguments[0])
    return await anyio.to_thread.run_sync(sqlite_schema.create_if_empty, database, SQLITE_PRAGMAS)


async def _revision(connection: AsyncConnection) -> str | None:
    """The database's revision, None when it has none (new, or not Quire's yet)."""
    try:
        found = (await connection.execute(text("SELECT version_num FROM alembic_version"))).all()
    except DBAPIError:
        found = []
    await connection.rollback()
    return str(found[0][0]) if len(found) == 1 else None


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.util.exc import CommandError

    try:
        command.upgrade(alembic_config(connection), "head")
    except CommandError as err:
        raise StorageFailed(
            f"The database's schema is not one this version of Quire knows ({err}). "
            "It was probably created by a newer Quire: upgrade Quire, or use another database."
        ) from None
