"""The journal of one live document: every Yjs update, kept in the database until the next save.

Owns the order of the buffer's writes (one lock per document), the dirty mark, and the rule that
an agent's edit is applied only once it is stored (``store_then_apply``); appends go through the
server's one ``JournalWriter``, which groups them across documents. With replicas it also owns
reading back what the others stored (``catch_up``) and the document's turn (``turn``; see
``quire.services.live.sharing``). It never reads or writes the document's file and never edits
the Yjs document itself: updates read back are handed to the caller's ``apply``.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import anyio
from pycrdt import Doc, Text

from quire.db import buffers
from quire.db.appends import Append
from quire.db.engine import Database
from quire.services.live.sharing import DocumentSharing
from quire.services.live.writer import JournalWriter

ApplyStored = Callable[[Sequence[bytes]], None]
"""Applies updates another replica stored to the Yjs document, without journaling them."""


def text_hash(text: str) -> str:
    """The base hash of a file's text: the SHA-256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class BufferJournal:
    """Pending updates of one document and the writes that make them durable.

    Updates are recorded synchronously (from the document's observer) and written in order by
    ``flush``; ``reset`` replaces the whole journal with one snapshot of the document.

    What a stored (so acknowledged) update means: its transaction committed. That survives the
    server process dying (kill -9, a crash, an OOM kill) on both databases. A power loss or an
    OS crash is survived on PostgreSQL with its default ``synchronous_commit=on``, but on SQLite
    the last edits may be lost (it runs WAL with synchronous=NORMAL: the WAL is synced at each
    checkpoint, not at each commit; the database stays consistent). Chosen on purpose: an fsync
    per commit cost 2 to 4 ms per lone edit where the whole edit costs about 1 ms, the buffer
    is by definition unsaved text, and a save makes the text power-loss durable (the file is
    fsynced, with its folder). Group commit would share that fsync among concurrent edits, but
    a lone agent's edit, the common case, would pay it in full.
    """

    def __init__(
        self,
        db: Database,
        writer: JournalWriter,
        doc_id: str,
        path: str,
        *,
        base_hash: str,
        dirty: bool,
        clock: Callable[[], int],
        sharing: DocumentSharing,
        last_id: int,
    ) -> None:
        self._db = db
        self._writer = writer
        self._sharing = sharing
        self._last_id = last_id
        """The newest stored update this document holds (it may hold later ones too)."""
        self._doc_id = doc_id
        self._path = path
        self._clock = clock
        self._lock = anyio.Lock()
        self._pending: list[bytes] = []
        self._pending_dirty = False
        self.base_hash = base_hash
        """The hash of the file text the buffer rests on (loaded or last saved)."""
        self.dirty = dirty
        """Whether the buffer holds edits the file does not have."""
        self._stored_dirty = dirty
        self._applying_stored = False

    def move_to(self, path: str) -> None:
        """Store the buffer under ``path`` from now on (its file was renamed or moved)."""
        self._path = path

    @property
    def lock(self) -> anyio.Lock:
        """Held while the journal writes; a turn holds it too."""
        return self._lock

    @asynccontextmanager
    async def turn(self, apply: ApplyStored) -> AsyncIterator[None]:
        """Hold the document's turn for the block: ``lock``, and with replicas the document's
        shared lock, having applied (``apply``) what the others stored before it. A save, a
        reload or a conflict's end is made in it, so no replica makes one at the same time or
        on a text that lacks another's stored edits. Inside it, store nothing through the
        writer (``flush``, ``store_then_apply``): resets only."""
        async with self._lock, self._sharing.held(self._doc_id):
            if self._sharing.shared:
                await self._catch_up_locked(apply)
            yield

    async def catch_up(self, apply: ApplyStored) -> None:
        """Apply (``apply``) the updates other replicas stored since the last one read, and
        take the buffer's base and unsaved mark as they are now."""
        async with self._lock:
            await self._catch_up_locked(apply)

    async def _catch_up_locked(self, apply: ApplyStored) -> None:
        async with self._db.session() as session:
            tail = await buffers.updates_after(session, self._doc_id, self._last_id)
        if tail is None:
            return  # the buffer is gone (its file was deleted): nothing to read
        if tail.updates:
            apply(tail.updates)
        self._last_id = tail.last_id
        self.base_hash = tail.base_hash
        self._stored_dirty = tail.dirty
        self.dirty = tail.dirty or self._pending_dirty

    def record(self, update: bytes, *, dirty: bool) -> None:
        """Queue ``update`` for the next flush; ``dirty`` when it is an edit, not a reload."""
        if not self._applying_stored:
            self._pending.append(update)
        if dirty:
            self._pending_dirty = True
            self.dirty = True

    async def flush(self) -> None:
        """Write every queued update, in order, in one transaction."""
        async with self._lock:
            await self._write_pending()

    async def store_then_apply(self, update: bytes, apply: Callable[[], None]) -> None:
        """Store ``update`` (an edit not applied yet, after every queued update), then call
        ``apply`` to apply it to the document, so an edit is applied only once it is durable
        (as the class says). The write joins the writer's next batch: concurrent edits of other
        documents share its transaction. When it fails nothing is applied and the error (a
        StorageFull when there is no space, else StorageFailed) propagates; the queued updates
        stay queued. The write and the apply are shielded from cancellation, so a stored edit
        is never left unapplied."""
        with anyio.CancelScope(shield=True):
            async with self._lock:
                await self._append([update], mark=self._marks(dirty=True))
                self._applying_stored = True
                try:
                    apply()
                finally:
                    self._applying_stored = False
                self.dirty = True
            # An acknowledged edit has been announced: a replica killed now told the others.
            await self._sharing.flush()

    async def _write_pending(self) -> None:
        if self._pending:
            await self._append([], mark=self._marks(dirty=self._pending_dirty))

    def _marks(self, *, dirty: bool) -> bool:
        """Whether an append of edits (``dirty``) sets the buffer's unsaved mark. Alone, the
        mark is written once, when it turns on, not with every update. With replicas it goes
        with every append of edits (the database skips a mark already set): another replica
        may have saved, and so cleared it, since this one last looked."""
        return dirty and (self._sharing.shared or not self._stored_dirty)

    async def _append(self, extra: list[bytes], *, mark: bool) -> None:
        """Append the queued updates and then ``extra``, in one batch of the writer; on failure
        the queued ones go back in front of anything recorded meanwhile, so nothing is lost."""
        batch, dirty = self._pending, self._pending_dirty
        self._pending, self._pending_dirty = [], False
        try:
            await self._writer.append(
                Append(self._doc_id, [*batch, *extra], dirty=mark, now_ms=self._clock())
            )
        except BaseException:
            self._pending[:0] = batch
            self._pending_dirty = self._pending_dirty or dirty
            raise
        self._stored_dirty = self._stored_dirty or mark

    async def reset_locked(self, ydoc: Doc[Text], content: Text, base_text: str) -> None:
        """Store ``ydoc`` as one snapshot resting on ``base_text`` (the file's text); the
        buffer stays dirty when ``content`` differs from it. The caller holds the ``turn`` (or,
        loading the document, its shared lock and ``lock``)."""
        # Snapshot, text and the drained queue are taken together, with no await between:
        # every queued update is inside the snapshot.
        state = ydoc.get_update()
        text = str(content)
        drained, drained_dirty = self._pending, self._pending_dirty
        self._pending, self._pending_dirty = [], False
        base_hash = text_hash(base_text)
        dirty = text != base_text
        try:
            async with self._db.session() as session, session.begin():
                snapshot = await buffers.reset_buffer(
                    session,
                    self._doc_id,
                    self._path,
                    base_hash=base_hash,
                    state=state,
                    dirty=dirty,
                    now_ms=self._clock(),
                )
        except BaseException:
            self._pending[:0] = drained
            self._pending_dirty = self._pending_dirty or drained_dirty
            raise
        self._last_id = snapshot
        self.base_hash = base_hash
        self._stored_dirty = dirty
        self.dirty = dirty or self._pending_dirty
        self._sharing.announce(self._doc_id)

    async def rebase_locked(self, base_text: str) -> None:
        """Record that the buffer now rests on ``base_text`` while keeping its edits (a conflict
        resolved in favour of the person's text). The caller holds the ``turn``."""
        base_hash = text_hash(base_text)
        async with self._db.session() as session, session.begin():
            await buffers.set_base_hash(session, self._doc_id, base_hash, now_ms=self._clock())
        self.base_hash = base_hash
        self._sharing.announce(self._doc_id)
