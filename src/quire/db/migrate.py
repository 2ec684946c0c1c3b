"""Bringing a database's schema up to the newest revision with Alembic, in process.

Owns how migrations are found (the migrations folder inside the package) and run; no alembic.ini
is read. The schema itself is defined by models.py and the revision scripts.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.util.exc import CommandError
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

from quire.core.errors import StorageFailed

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Any fixed number: servers migrating one PostgreSQL database at once take turns on it.
_ADVISORY_LOCK_KEY = 0x5175697265


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config for Quire's migrations, handing over ``connection`` when given."""
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
        if connection.dialect.name == "sqlite":
            # Take the write lock first, so the whole upgrade is one transaction.
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK_KEY}
            )
        await connection.run_sync(_upgrade)
        await connection.commit()


def _upgrade(connection: Connection) -> None:
    try:
        command.upgrade(alembic_config(connection), "head")
    except CommandError as err:
        raise StorageFailed(
            f"The database's schema is not one this version of Quire knows ({err}). "
            "It was probably created by a newer Quire: upgrade Quire, or use another database."
        ) from None
