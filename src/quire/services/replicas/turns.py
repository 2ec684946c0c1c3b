"""Turns: one writer at a time per key (a chat, a user's window), in this server and across its
replicas. A key's turn is its lock in this process, then, when replicas share the database, its
PostgreSQL advisory lock (``quire.db.advisory_locks``), so each replica queues its own writers
and only one of them waits on the database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from quire.db.advisory_locks import AdvisoryLocks


class Turns:
    """The turns of one kind of key (``kind`` names it in the shared lock)."""

    def __init__(self, kind: str, shared: AdvisoryLocks) -> None:
        self._kind = kind
        self._shared = shared
        self._locks: dict[str, anyio.Lock] = {}

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        """Hold ``key``'s turn for the block."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = anyio.Lock()
        async with lock, self._shared.held(f"{self._kind}:{key}"):
            yield
