"""Alembic's entry point for Quire's migrations, run in process or by the alembic command.

In process, quire.db.migrate hands over an open connection in ``config.attributes``; from the
command line (``alembic -x url=…``), an async engine is made from the URL. No logging setup.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from quire.db.models import Base

TARGET = Base.metadata


def _configure_and_run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=TARGET,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url")
    url = url or context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("Give the database URL: alembic -x url=sqlite+aiosqlite:///path/quire.db")
    return url


async def _run_with_new_engine() -> None:
    engine = create_async_engine(_url())
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_configure_and_run)
    finally:
        await engine.dispose()


def _run() -> None:
    if context.is_offline_mode():
        context.configure(url=_url(), target_metadata=TARGET, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _configure_and_run(connection)
    else:
        asyncio.run(_run_with_new_engine())


_run()
