"""Live documents shared by replicas: whose turn it is to change a document's buffer, and
hearing that another replica stored updates of a document open here.

Every replica holds its own Yjs document of an open file, and all of them rest on the one
journal in the shared database. A replica's edits reach the others through it: once updates of
a document are committed, the replica signals the document's id (``TOPIC``), and each replica
that has the document open reads the updates stored since the last one it read
(``quire.db.buffers.updates_after``) and applies them. Yjs updates are idempotent, so reading
one's own updates back changes nothing.

What must not happen twice (the first load of a file into a Yjs document, a reload after the
file changed on disk, a save) happens in the document's turn: its advisory lock, held while the
buffer is read, caught up and replaced, so two replicas never build independent Yjs documents
from the same file text (which would double the text once merged).

Editors' cursors travel between replicas too, unstored (``quire.services.live.cursors``).

With one replica (or SQLite) nothing is signalled and a turn is only this server's own lock.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Final

import anyio
from pycrdt import Awareness

from quire.db.advisory_locks import AdvisoryLocks
from quire.db.buffers import document_lock
from quire.db.engine import Database
from quire.services.live.cursors import CURSORS, RemoteCursors
from quire.services.replicas.fanout import POLL_S, Alone, Fanout

logger = logging.getLogger(__name__)

TOPIC: Final = "documents"
"""The topic on which a replica names a document whose journal it added to."""


class DocumentSharing:
    """The replicas' side of one server's live documents: shared locks and signals."""

    def __init__(self, database: Database, fanout: Fanout | None = None) -> None:
        self._fanout = fanout if fanout is not None else Alone()
        self.shared = self._fanout.state != "alone" and database.backend == "postgresql"
        """Whether other replicas share the documents' journals."""
        self._locks = AdvisoryLocks(database, shared=self.shared)

    def held(self, doc_id: str) -> AbstractAsyncContextManager[None]:
        """Hold ``doc_id``'s shared lock for the block (nothing with one replica). Never ask
        the journal writer to store updates of ``doc_id`` inside it: its batch waits for the
        same lock."""
        return self._locks.held(document_lock(doc_id))

    def announce(self, doc_id: str) -> None:
        """Tell the other replicas that ``doc_id``'s journal changed (committed already)."""
        if self.shared:
            self._fanout.send(TOPIC, doc_id)

    async def flush(self) -> None:
        """Return once every announcement so far has gone out (see ``Fanout.flush``)."""
        if self.shared:
            await self._fanout.flush()

    def listen(
        self, catch_up: Callable[[str], Awaitable[None]], open_ids: Callable[[], list[str]]
    ) -> CatchUps:
        """Run ``catch_up(doc_id)`` for each document another replica announces, and for every
        open one (``open_ids``) when announcements may have been lost; returns the
        ``CatchUps`` to run (``CatchUps.run``) for as long as the server serves."""
        catch_ups = CatchUps(catch_up, open_ids)
        if self.shared:
            self._fanout.listen(TOPIC, catch_ups)
        return catch_ups

    def share_cursors(self, awareness_of: Callable[[str], Awareness | None]) -> RemoteCursors:
        """Apply the cursors other replicas send to the awareness of the open document
        (``awareness_of``); returns the ``RemoteCursors`` whose ``send_changes`` each open
        document's awareness is to be observed with, and whose ``run`` drops stale ones."""
        cursors = RemoteCursors(self._fanout, awareness_of)
        if self.shared:
            self._fanout.listen(CURSORS, cursors)
        return cursors


class CatchUps:
    """The documents behind the journal, caught up one after another by one task.

    Announcements of one document that arrive while it is behind are one catch-up. A catch-up
    that fails (the database is away) is tried again after ``POLL_S``.
    """

    def __init__(
        self, catch_up: Callable[[str], Awaitable[None]], open_ids: Callable[[], list[str]]
    ) -> None:
        self._catch_up = catch_up
        self._open_ids = open_ids
        self._behind: dict[str, None] = {}
        self._wake = anyio.Event()

    def received(self, data: str) -> None:
        self._behind[data] = None
        self._wake.set()

    def missed(self, *, recovered: bool) -> None:
        for doc_id in self._open_ids():
            self._behind[doc_id] = None
        self._wake.set()

    async def run(self) -> None:
        """Catch documents up as they fall behind, until cancelled."""
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            while self._behind:
                doc_id = next(iter(self._behind))
                del self._behind[doc_id]
                try:
                    await self._catch_up(doc_id)
                except Exception as exc:
                    logger.warning(
                        "Could not read another replica's edits of %s (%s); trying again.",
                        doc_id,
                        exc,
                    )
                    self._behind[doc_id] = None
                    await anyio.sleep(POLL_S)
