"""The journal of one live document: every Yjs update, kept in the database until the next save.

Owns the order and the atomicity of the buffer's writes (one lock per document) and the dirty
mark, and the rule that an agent's edit is applied only once it is stored (``store_then_apply``).
It never reads or writes the document's file and never edits the Yjs document itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import anyio
from pycrdt import Doc, Text
from sqlalchemy.exc import SQLAlchemyError

from quire.core.errors import StorageFailed
from quire.db import buffers
from quire.db.engine import Database


def text_hash(text: str) -> str:
    """The base hash of a file's text: the SHA-256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class BufferJournal:
    """Pending updates of one document and the writes that make them durable.

    Updates are recorded synchronously (from the document's observer) and written in order by
    ``flush``; ``reset`` replaces the whole journal with one snapshot of the document.
    """

    def __init__(
        self,
        db: Database,
        doc_id: str,
        path: str,
        *,
        base_hash: str,
        dirty: bool,
        clock: Callable[[], int],
    ) -> None:
        self._db = db
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
        """Held while the journal writes; a save holds it across its file write too."""
        return self._lock

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
        """Store ``update`` (an edit not applied yet, after every queued update) in one
        transaction, then call ``apply`` to apply it to the document, so an edit is applied
        only once it is durable. When the write fails nothing is applied and the error (a
        StorageFull when there is no space) propagates; the queued updates stay queued. The
        write and the apply are shielded from cancellation, so a stored edit is never left
        unapplied."""
        with anyio.CancelScope(shield=True):
            async with self._lock:
                batch, dirty = self._pending, self._pending_dirty
                self._pending, self._pending_dirty = [], False
                mark = not self._stored_dirty
                try:
                    async with self._db.session() as session, session.begin():
                        await buffers.append_updates(
                            session,
                            self._doc_id,
                            [*batch, update],
                            dirty=mark,
                            now_ms=self._clock(),
                        )
                except BaseException as exc:
                    self._pending[:0] = batch
                    self._pending_dirty = self._pending_dirty or dirty
                    if isinstance(exc, SQLAlchemyError):
                        raise _not_stored(exc) from exc
                    raise
                self._stored_dirty = True
                self._applying_stored = True
                try:
                    apply()
                finally:
                    self._applying_stored = False
                self.dirty = True

    async def _write_pending(self) -> None:
        if not self._pending:
            return
        batch, dirty = self._pending, self._pending_dirty
        self._pending, self._pending_dirty = [], False
        # The row's dirty mark is written once, when it turns on, not with every update.
        mark = dirty and not self._stored_dirty
        try:
            async with self._db.session() as session, session.begin():
                await buffers.append_updates(
                    session, self._doc_id, batch, dirty=mark, now_ms=self._clock()
                )
        except BaseException:
            # Put them back in front of anything recorded meanwhile, so nothing is lost.
            self._pending[:0] = batch
            self._pending_dirty = self._pending_dirty or dirty
            raise
        self._stored_dirty = self._stored_dirty or mark

    async def reset_locked(self, ydoc: Doc[Text], content: Text, base_text: str) -> None:
        """Store ``ydoc`` as one snapshot resting on ``base_text`` (the file's text); the
        buffer stays dirty when ``content`` differs from it. The caller holds ``lock``."""
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
                await buffers.reset_buffer(
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
        self.base_hash = base_hash
        self._stored_dirty = dirty
        self.dirty = dirty or self._pending_dirty

    async def rebase(self, base_text: str) -> None:
        """Record that the buffer now rests on ``base_text`` while keeping its edits (a conflict
        resolved in favour of the person's text)."""
        async with self._lock:
            await self._write_pending()
            base_hash = text_hash(base_text)
            async with self._db.session() as session, session.begin():
                await buffers.set_base_hash(session, self._doc_id, base_hash, now_ms=self._clock())
            self.base_hash = base_hash


def _not_stored(exc: SQLAlchemyError) -> StorageFailed:
    cause = getattr(exc, "orig", None) or exc
    detail = (str(cause).splitlines() or [type(cause).__name__])[0]
    return StorageFailed(
        f"The database could not store the change ({detail}); the transaction was rolled "
        "back, so it was not applied. Check the state folder's disk, then try again."
    )
