"""Helpers of the review tests: the SQL a block runs, a gate that holds a store call midway,
and a bounded wait for a condition."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import anyio.lowlevel
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.views import ReviewStatus
from quire.db.engine import Database
from quire.db.reviews import StoredReview

WAIT_S = 10

RecordOutcome = Callable[..., Awaitable[bool]]


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """Every SQL statement the database runs inside the block, in order."""
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(str(args[2]))

    target = db.engine.sync_engine
    event.listen(target, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(target, "before_cursor_execute", record)


class Gate:
    """Stands in for ``record_outcome``: each call waits at the gate until ``release`` is
    set, then writes for real. ``reached`` is set once a call waits there."""

    def __init__(self, real: RecordOutcome) -> None:
        self.real = real
        self.reached = anyio.Event()
        self.release = anyio.Event()
        self.writes: list[tuple[str, ReviewStatus]] = []

    async def __call__(
        self, session: AsyncSession, review: StoredReview, *, was: ReviewStatus
    ) -> bool:
        self.writes.append((review.id, review.status))
        self.reached.set()
        await self.release.wait()
        return await self.real(session, review, was=was)


async def until(condition: Callable[[], bool]) -> None:
    """Return once ``condition()`` holds; fail after WAIT_S seconds."""
    with anyio.fail_after(WAIT_S):
        while not condition():
            await anyio.lowlevel.checkpoint()
