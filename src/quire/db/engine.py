"""Opening the server's database from the URL the settings chose (SQLite or PostgreSQL).

Owns connection settings and the session factory; which URL to use is decided by
``quire.settings.database``. Never shows a password, and holds no queries (the repo modules
beside it do).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import anyio
from sqlalchemy import event, text
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from quire.core.errors import DatabaseUnavailable, InvalidArgument, StorageFailed, StorageFull

BUSY_TIMEOUT_MS = 5000
CONNECT_TIMEOUT_S = 10
SQLITE_DRIVER = "sqlite+aiosqlite"
POSTGRES_DRIVER = "postgresql+asyncpg"
# Every connection gets these; WAL lets readers run beside the one writer, the busy timeout
# makes a second writer wait its turn instead of failing with "database is locked".
SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    "PRAGMA foreign_keys=ON",
    "PRAGMA synchronous=NORMAL",
)
Backend = Literal["sqlite", "postgresql"]

_SQLITE_FULL = 13
"""SQLite's primary result code for "database or disk is full"."""
_POSTGRES_DISK_FULL = "53100"

NOT_STORED = (
    "The database cannot store the change: {reason}. The transaction was rolled back, so "
    "this change was not applied. Free some space on the disk of the state folder (or the "
    "database server's), then try again."
)


class Database:
    """An open database: the async engine and a factory of sessions over it."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._closers: list[Callable[[], Awaitable[None]]] = []

    @property
    def backend(self) -> Backend:
        """Which kind of database this is."""
        return "sqlite" if self.engine.dialect.name == "sqlite" else "postgresql"

    @property
    def display_url(self) -> str:
        """The URL with any password masked, safe to log or show."""
        return safe_url(self.engine.url)

    def session(self) -> AsyncSession:
        """A new session; use it as ``async with db.session() as session:``."""
        return self._sessions()

    async def answers(self, timeout_s: float = 1.0) -> bool:
        """Whether the database answers a query within ``timeout_s``."""
        with anyio.move_on_after(timeout_s):
            try:
                async with self.engine.connect() as connection:
                    await connection.execute(text("SELECT 1"))
            except Exception:  # whatever the driver raises for a database that is gone
                return False
            return True
        return False

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Await ``closer`` first thing in ``close`` (a holder of a connection gives it back)."""
        self._closers.append(closer)

    async def close(self) -> None:
        """Close every pooled connection; the Database is unusable afterwards."""
        closers, self._closers = self._closers, []
        try:
            for closer in closers:
                await closer()
        finally:
            await self.engine.dispose()


async def open_database(url: str, *, migrate: bool = True) -> Database:
    """Open (and by default migrate to the newest schema) the database ``url`` names.

    ``url`` is one ``quire.settings.database.database_url`` returned (an async driver).
    Raises InvalidArgument for a URL of another kind and StorageFailed when the database
    cannot be reached or opened.
    """
    parsed = _parse(url)
    if parsed.get_backend_name() == "sqlite":
        _prepare_sqlite_file(parsed)
    engine = _create_engine(parsed)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
        if migrate:
            from quire.db.migrate import migrate as apply_migrations

            await apply_migrations(engine)
    except (SQLAlchemyError, OSError, sqlite3.Error) as err:
        await engine.dispose()
        raise _unreachable(parsed, err) from None
    except DatabaseUnavailable as err:
        await engine.dispose()
        raise _unreachable(parsed, err.__cause__ or err) from None
    return Database(engine)


def _parse(url: str) -> URL:
    """``url`` read by SQLAlchemy; InvalidArgument unless it names one of the async drivers."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise InvalidArgument(
            "The database URL cannot be read as a URL. Pass one that "
            "quire.settings.database.database_url returned.",
            argument="db",
        ) from None
    if parsed.drivername not in (SQLITE_DRIVER, POSTGRES_DRIVER):
        raise InvalidArgument(
            f"The database URL {safe_url(parsed)!r} is not of a kind Quire opens: use "
            f"{SQLITE_DRIVER}:// or {POSTGRES_DRIVER}:// (quire.settings.database.database_url "
            "turns the kinds a person may write into these).",
            argument="db",
        )
    return parsed


def safe_url(url: URL) -> str:
    """``url`` as text with its password replaced by ***."""
    return url.render_as_string(hide_password=True)


def _prepare_sqlite_file(url: URL) -> None:
    """Create the database file owner-only (0600) before SQLite creates it with the umask."""
    assert url.database is not None
    path = Path(url.database).expanduser()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    except OSError as err:
        raise StorageFailed(
            f"Could not create the database file {path}: {err.strerror or err}. "
            "Check that the state folder exists and is writable, or pass --db with another URL."
        ) from None


def _create_engine(url: URL) -> AsyncEngine:
    if url.get_backend_name() == "sqlite":
        engine = create_async_engine(url)
        event.listen(engine.sync_engine, "connect", _set_sqlite_pragmas)
    else:
        try:
            engine = create_async_engine(
                url, pool_pre_ping=True, connect_args={"timeout": CONNECT_TIMEOUT_S}
            )
        except ModuleNotFoundError as err:
            if err.name != "asyncpg":
                raise
            raise InvalidArgument(
                f"The database URL {safe_url(url)!r} names PostgreSQL, and this Quire has no "
                "PostgreSQL driver. Install the `postgres` extra (`pip install "
                "'quire[postgres]'`), or leave out --db to use SQLite.",
                argument="db",
            ) from None
    event.listen(engine.sync_engine, "handle_error", _no_space_is_storage_full)
    return engine


def _no_space_is_storage_full(context: ExceptionContext) -> None:
    """Raise StorageFull in place of a driver's "disk full" error (any statement or commit),
    so every caller learns the change was rolled back, not applied; and DatabaseUnavailable in
    place of a failure to reach the database (a connection refused, lost or shut out)."""
    reason = no_space_reason(context.original_exception)
    if reason is not None:
        raise StorageFull(NOT_STORED.format(reason=reason))
    lost = context.is_disconnect or context.connection is None
    if lost and context.dialect is not None and context.dialect.name == "postgresql":
        cause = context.original_exception
        detail = (str(cause).splitlines() or [type(cause).__name__])[0]
        raise DatabaseUnavailable(
            f"The database does not answer ({detail}), so nothing was done or written. Try "
            "again in a moment; if it lasts, check that the database server runs and that "
            "the server's --db URL reaches it."
        ) from cause


def no_space_reason(error: BaseException) -> str | None:
    """The words for a driver error that means "no space left", or None for any other."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF == _SQLITE_FULL:
        return "the database or its disk is full (SQLITE_FULL)"
    if getattr(error, "sqlstate", None) == _POSTGRES_DISK_FULL:
        return "the database server's disk is full (53100 disk_full)"
    return None


def _set_sqlite_pragmas(dbapi_connection: Any, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    try:
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def _unreachable(url: URL, err: BaseException) -> StorageFailed:
    cause = getattr(err, "orig", None) or err
    detail = (str(cause).splitlines() or [type(cause).__name__])[0]
    if url.password:
        detail = detail.replace(str(url.password), "***")
    if url.get_backend_name() == "sqlite":
        advice = (
            "Check that the state folder is writable and the file is a Quire database, "
            "or pass --db with another URL."
        )
    else:
        advice = (
            "Check that PostgreSQL is running there and that the host, port, user, password "
            "and database name are right, or leave --db out to use SQLite in the state folder."
        )
    return StorageFailed(f"Could not open the database at {safe_url(url)} ({detail}). {advice}")
