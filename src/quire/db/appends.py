"""The connection that appends live buffers' updates in batches: one transaction per batch.

Owns the fast path of the journal's writes (a connection held open, the driver's executemany,
the commit) and its durability setting. It does not decide what goes in a batch or in which
order: the caller (``quire.services.live.writer``) does, and hands one batch at a time.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import anyio
from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection

from quire.core.errors import StorageFailed, StorageFull
from quire.db.advisory_locks import lock_key
from quire.db.buffers import document_lock
from quire.db.engine import NOT_STORED, Database, no_space_reason
from quire.db.models import Buffer, BufferUpdate

_UPDATES = cast(Table, BufferUpdate.__table__)
_BUFFERS = cast(Table, Buffer.__table__)
_SQLITE_INSERT = f'INSERT INTO {_UPDATES.name} (doc_id, "update", created_at_ms) VALUES '
_SQLITE_ROW = "(?, ?, ?)"
_SQLITE_ROWS_PER_INSERT = 300
"""Rows per INSERT statement: 3 parameters each, under SQLite's oldest limit of 999."""
_SQLITE_MARK = f"UPDATE {_BUFFERS.name} SET dirty = 1, updated_at_ms = ? WHERE doc_id = ?"


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

    On SQLite the connection is in autocommit mode and the batch goes straight to aiosqlite:
    the usual batch (up to 300 updates, no dirty mark to set) is one multi-row INSERT, its own
    transaction, so one trip to aiosqlite's thread, where an ORM session cost five (cursor,
    execute, cursor close, commit, the pool's reset) and each trip costs about a millisecond on
    a loaded machine. A larger batch runs BEGIN IMMEDIATE ... COMMIT. On PostgreSQL it is one
    transaction with one executemany; with ``shared`` (replicas on the database) it first takes
    the advisory lock of each buffer in the batch (``quire.db.buffers.document_lock``, in one
    order, so two replicas' batches never wait on each other in a circle). Only one batch runs
    at a time (the caller's rule, enforced here).
    """

    def __init__(self, db: Database, *, shared: bool = False) -> None:
        self._db = db
        self._shared = shared and db.backend == "postgresql"
        self._connection: AsyncConnection | None = None
        self._busy = anyio.Lock()
        db.on_close(self.close)

    async def write(self, appends: Sequence[Append]) -> None:
        """Store ``appends`` in one transaction, in order; when it fails nothing of it is stored
        and StorageFull (no space) or StorageFailed says why. Committed when it returns: on
        SQLite in the WAL (synchronous=NORMAL, as every connection: it survives the process
        dying, not a power loss), on PostgreSQL synced if its ``synchronous_commit`` is on
        (the default)."""
        rows = [(a.doc_id, update, a.now_ms) for a in appends for update in a.updates]
        marks = [(a.now_ms, a.doc_id) for a in appends if a.dirty and a.updates]
        if not rows and not marks:
            return
        async with self._busy:
            try:
                connection = await self._open()
                if self._db.backend == "sqlite":
                    await _write_sqlite(connection, rows, marks)
                else:
                    locks = sorted({lock_key(document_lock(a.doc_id)) for a in appends})
                    await _write_postgres(connection, rows, marks, locks if self._shared else [])
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
                # Given back to the pool, the connection gets its default isolation back.
                connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
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
    driver: Any = raw.driver_connection  # aiosqlite's, in autocommit mode
    chunks = [
        rows[start : start + _SQLITE_ROWS_PER_INSERT]
        for start in range(0, len(rows), _SQLITE_ROWS_PER_INSERT)
    ]
    if len(chunks) == 1 and not marks:
        await driver.execute(*_insert(chunks[0]))  # one statement: atomic on its own
        return
    await driver.execute("BEGIN IMMEDIATE")
    try:
        for chunk in chunks:
            await driver.execute(*_insert(chunk))
        if marks:
            await driver.executemany(_SQLITE_MARK, marks)
        await driver.execute("COMMIT")
    except BaseException:
        # SQLite ends the transaction itself after some errors (a full disk among them).
        if driver.in_transaction:
            with anyio.CancelScope(shield=True), contextlib.suppress(sqlite3.Error):
                await driver.execute("ROLLBACK")  # else the connection is dropped anyway
        raise


def _insert(rows: list[tuple[str, bytes, int]]) -> tuple[str, list[object]]:
    sql = _SQLITE_INSERT + ", ".join([_SQLITE_ROW] * len(rows))
    return sql, [value for row in rows for value in row]


async def _write_postgres(
    connection: AsyncConnection,
    rows: list[tuple[str, bytes, int]],
    marks: list[tuple[int, str]],
    locks: list[int],
) -> None:
    async with connection.begin():
        for key in locks:
            await connection.execute(select(func.pg_advisory_xact_lock(key)))
        if rows:
            await connection.execute(
                insert(_UPDATES),
                [{"doc_id": d, "update": u, "created_at_ms": t} for d, u, t in rows],
            )
        if marks:
            await connection.execute(
                update(_BUFFERS)
                .where(_BUFFERS.c.doc_id == bindparam("mark_doc"), _BUFFERS.c.dirty.is_(False))
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
