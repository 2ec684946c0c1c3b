"""Locks every server on one database shares: PostgreSQL advisory locks, named by text.

Replicas serialise one kind of write through them (the posts to one chat, the commits to one
repository). A lock is transaction-scoped, so a replica that dies while holding one lets it go
with its connection. A server that is the only one on its database (every SQLite server, and a
PostgreSQL one without replicas) needs only its own locks: there ``held`` does nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import func, select

from quire.db.engine import Database


class AdvisoryLocks:
    """The shared locks of one database."""

    def __init__(self, database: Database, *, shared: bool) -> None:
        self._database = database
        self._shared = shared and database.backend == "postgresql"
        """Whether other servers share the database (replicas): only then is a lock taken."""

    @asynccontextmanager
    async def held(self, name: str) -> AsyncIterator[None]:
        """Hold the lock ``name`` for the block (waiting for whoever holds it)."""
        if not self._shared:
            yield
            return
        async with self._database.engine.begin() as connection:
            await connection.execute(select(func.pg_advisory_xact_lock(lock_key(name))))
            yield


def lock_key(name: str) -> int:
    """The 64-bit advisory lock key of ``name`` (the first 8 bytes of its SHA-256, signed)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)
