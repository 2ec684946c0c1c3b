"""The one writer of every live document's journal: a group commit over one connection.

Owns batching (appends queue while a batch is written; the next batch takes the whole queue),
who waits for what, and which callers fail when a batch fails. It does not decide what a
document appends or when (``journal.py`` does), and never touches a Yjs document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import anyio

from quire.core.errors import StorageFailed
from quire.db.appends import Append, AppendConnection
from quire.db.engine import Database

_BROKE_OFF = (
    "Storing the change broke off before the database answered, so it was not applied. Try again."
)


@dataclass(eq=False)
class _Waiting:
    append: Append
    turn: anyio.Event = field(default_factory=anyio.Event)
    """Set when the append is written (or failed), or when its caller is to write next."""
    done: bool = False
    error: Exception | None = None


class JournalWriter:
    """Appends from every open document, written in batches: one transaction per batch.

    An append joins the queue; when no batch is being written its caller writes the queue at
    once (a lone edit waits for no timer), else it waits, and the first caller in line when the
    batch ends writes the next one with everything queued meanwhile. So one writer runs at a
    time, taking turns among the waiting callers (no task of its own to start or stop), and a
    burst of N appends costs about two transactions, not N.

    A caller returns only once the transaction holding its append committed (durable as
    ``AppendConnection.write`` says). When a batch fails, each of its appends is tried again
    alone, in order, so exactly the appends that could not be stored fail (a full disk fails
    them all); after an append of a document fails, that document's later appends in the batch
    fail too without being tried, so a document's updates are never stored out of order.

    ``shared``: other replicas append to the same buffers (see ``AppendConnection``).
    ``stored`` is called with a document's id once updates of it are committed (the other
    replicas are told); it must return at once and must not raise.
    """

    def __init__(
        self,
        db: Database,
        *,
        shared: bool = False,
        stored: Callable[[str], None] | None = None,
    ) -> None:
        self._connection = AppendConnection(db, shared=shared)
        self._stored = stored
        self._queue: list[_Waiting] = []
        self._writing = False
        self.batches = 0
        """How many batches were written (a measure of the grouping, for tests and bench)."""

    async def append(self, append: Append) -> None:
        """Store ``append`` after every append queued before it; returns once it is durable,
        raises StorageFailed (StorageFull for no space) when it was not stored. Shielded from
        cancellation: the append is either stored or refused before this returns."""
        waiting = _Waiting(append)
        self._queue.append(waiting)
        with anyio.CancelScope(shield=True):
            if self._writing:
                await waiting.turn.wait()
            if not waiting.done:
                await self._write_queue()
        if waiting.error is not None:
            raise waiting.error

    async def _write_queue(self) -> None:
        self._writing = True
        batch, self._queue = self._queue, []
        try:
            await self._write(batch)
        finally:
            for waiting in batch:
                if not waiting.done:  # the write itself broke off: no one may wait forever
                    _finish(waiting, StorageFailed(_BROKE_OFF))
            if self._queue:
                self._queue[0].turn.set()
            else:
                self._writing = False

    async def _write(self, batch: Sequence[_Waiting]) -> None:
        self.batches += 1
        try:
            await self._connection.write([waiting.append for waiting in batch])
        except Exception as exc:
            if len(batch) == 1:
                _finish(batch[0], exc)
                return
            await self._write_alone(batch)
            return
        for waiting in batch:
            self._finish_stored(waiting)

    def _finish_stored(self, waiting: _Waiting) -> None:
        if self._stored is not None and waiting.append.updates:
            self._stored(waiting.append.doc_id)
        _finish(waiting, None)

    async def _write_alone(self, batch: Sequence[_Waiting]) -> None:
        failed: dict[str, Exception] = {}
        for waiting in batch:
            doc_id = waiting.append.doc_id
            if doc_id in failed:
                _finish(waiting, failed[doc_id])
                continue
            try:
                await self._connection.write([waiting.append])
            except Exception as exc:
                failed[doc_id] = exc
                _finish(waiting, exc)
            else:
                self._finish_stored(waiting)


def _finish(waiting: _Waiting, error: Exception | None) -> None:
    waiting.done, waiting.error = True, error
    waiting.turn.set()
