"""The access-change counter (migration 0006): one read tells whether anything that decides
sign-ins or access changed since a value was read."""

from __future__ import annotations

import sqlite3
from urllib.parse import quote

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import AccessChanges
from quire.db.wal_header import WalHeader

_READ = "SELECT counter FROM access_changes WHERE id = 1"
QUICK_BUSY_TIMEOUT_S = 0.05
"""How long a quick read waits for a lock (WAL readers hardly ever wait) before the caller
falls back to the engine."""


async def access_changes(session: AsyncSession) -> int:
    """The counter now (0 on a database that never had an access change)."""
    found = await session.scalar(select(AccessChanges.counter).where(AccessChanges.id == 1))
    return int(found or 0)


class QuickCounter:
    """The counter of a SQLite file read on the calling thread, through a read-only connection
    of its own: a few microseconds, where a query through the async engine hops between
    threads several times (about 0.7 ms). In WAL mode a reader does not wait for the writer,
    and each read sees every commit made before it, by any process. While the WAL-index
    header (``quire.db.wal_header``) shows no commit since the last read, that read's value is
    the answer, without a query."""

    def __init__(self, path: str) -> None:
        self._uri = f"file:{quote(path)}?mode=ro"
        self._connection: sqlite3.Connection | None = None
        self._header = WalHeader(path)
        self._last: tuple[bytes, int] | None = None
        """The header seen before the last query, and the value it read."""

    def read(self) -> int | None:
        """The counter, or None when the file cannot answer at once (the caller then asks the
        engine)."""
        # The header is read BEFORE the query: a commit made in between changes it again,
        # so the next read queries.
        header = self._header.read() if self._connection is not None else None
        if header is not None and self._last is not None and self._last[0] == header:
            return self._last[1]
        try:
            if self._connection is None:
                self._connection = sqlite3.connect(
                    self._uri,
                    uri=True,
                    timeout=QUICK_BUSY_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                )
            # fetchall steps the statement to its end, so no read transaction is left open
            # (an open one would keep the WAL from being checkpointed).
            rows = self._connection.execute(_READ).fetchall()
        except sqlite3.Error:
            self.close()
            return None
        value = int(rows[0][0]) if rows else 0
        self._last = None if header is None else (header, value)
        return value

    def close(self) -> None:
        """Close the connection (the next read opens another) and the header's map, which
        the connection's hold on the ``-shm`` file keeps safe to read."""
        self._header.close()
        self._last = None
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()
