"""The connection that appends live buffers' updates in batches: one transaction per batch.

Owns the fast path of the journal's writes (a connection held open, the driver's executemany,
the commit) and its durability setting. It does not decide what goes in a batch or in which
order: the caller (``quire.services.live.writer``) does, and hands one batch at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import anyio
from sqlalchemy import Table, bindparam, insert, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection

from quire.core.errors import StorageFailed, StorageFull
from quire.db.engine import NOT_STORED, Database, no_space_reason
from quire.db.models import Buffer, BufferUpdate

_UPDATES = cast(Table, BufferUpdate.__table__)
_BUFFERS = cast(Table, Buffer.__table__)
_SQLITE_INSERT = f'INSERT INTO {_UPDATES.name} (doc_id, "update", created_at_ms) VALUES (?, ?, ?)'
_SQLITE_MARK = f"UPDATE {_BUFFERS.name} SET dirty = 1, updated_at_ms = ? WHERE doc_id = ?"
SQLITE_SYNCHRONOUS = "PRAGMA synchronous=FULL"
"""The journal's connection syncs the WAL at every commit (the other connections run NORMAL):
an acknowledged edit survives a power loss, and a batch pays one fsync for all its edits."""


@dataclass(frozen=True)
class Append:
    """Updates of one buffer to store, oldest first; ``dirty`` sets the buffer's unsaved mark
    (it never clears it: only a reset does). With no updates it writes nothing at all."""

    doc_id: str
    updates: Sequence[bytes]
    dirty: bool
    now_ms: int


class AppendConnection:
    """One connection of ``db`` kept open for batches of appends (opened at the first one).

    A batch costs the insert, the mark and the commit: on SQLite through aiosqlite's own
    connection (each SQLAlchemy statement there costs three trips to its thread), on PostgreSQL
    as one executemany. Only one batch runs at a time (the caller's rule, checked here).
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._connection: AsyncConnection | None = None
        self._busy = anyio.Lock()
        db.on_close(self.close)

    async def write(self, appends: Sequence[Append]) -> None:
        """Store ``appends`` in one transaction, in order; when it fails nothing of it is stored
        and StorageFull (no space) or StorageFailed says why. Durable when it returns: synced
        to disk on SQLite (``SQLITE_SYNCHRONOUS``) and committed on PostgreSQL (whose default
        ``synchronous_commit`` syncs its WAL)."""
        rows = [(a.doc_id, update, a.now_ms) for a in appends for update in a.updates]
        marks = [(a.now_ms, a.doc_id) for a in appends if a.dirty and a.updates]
        if not rows and not marks:
            return
        async with self._busy:
            connection = await self._open()
            try:
                if self._db.backend == "sqlite":
                    await _write_sqlite(connection, rows, marks)
                else:
                    await _write_postgres(connection, rows, marks)
            except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
                await self._drop()
                raise _not_stored(exc) from exc
            except BaseException:
                await self._drop()
                raise

    async def close(self) -> None:
        """Give the connection back (the next write opens another)."""
        async with self._busy:
            await self._drop()

    async def _open(self) -> AsyncConnection:
        if self._connection is None:
            connection = await self._db.engine.connect()
            if self._db.backend == "sqlite":
                await connection.exec_driver_sql(SQLITE_SYNCHRONOUS)
                await connection.commit()
            self._connection = connection
        return self._connection

    async def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        with anyio.CancelScope(shield=True):
            try:
                await connection.invalidate()
            finally:
                await connection.close()


async def _write_sqlite(
    connection: AsyncConnection, rows: list[tuple[str, bytes, int]], marks: list[tuple[int, str]]
) -> None:
    raw = await connection.get_raw_connection()
    driver: Any = raw.driver_connection
    # sqlite3 opens the transaction at the first write; the commit ends it.
    try:
        if rows:
            await driver.executemany(_SQLITE_INSERT, rows)
        if marks:
            await driver.executemany(_SQLITE_MARK, marks)
        await driver.commit()
    except BaseException:
        with anyio.CancelScope(shield=True):
            await driver.rollback()
        raise


async def _write_postgres(
    connection: AsyncConnection, rows: list[tuple[str, bytes, int]], marks: list[tuple[int, str]]
) -> None:
    async with connection.begin():
        if rows:
            await connection.execute(
                insert(_UPDATES),
                [{"doc_id": d, "update": u, "created_at_ms": t} for d, u, t in rows],
            )
        if marks:
            await connection.execute(
                update(_BUFFERS)
                .where(_BUFFERS.c.doc_id == bindparam("mark_doc"))
                .values(dirty=True, updated_at_ms=bindparam("mark_ms")),
                [{"mark_doc": d, "mark_ms": t} for t, d in marks],
            )


def _not_stored(exc: BaseException) -> StorageFailed:
    if isinstance(exc, StorageFailed):
        return exc
    cause = getattr(exc, "orig", None) or exc
    reason = no_space_reason(cause)
    if reason is not None:
        return StorageFull(NOT_STORED.format(reason=reason))
    detail = (str(cause).splitlines() or [type(cause).__name__])[0]
    return StorageFailed(
        f"The database could not store the change ({detail}); the transaction was rolled "
        "back, so it was not applied. Check the state folder's disk, then try again."
    )
