"""One open document: its Yjs document, the text inside it, who is changing it, and its journal.

Owns the tagging of every change with its origin and the routing of every update into the
journal. It never reads or writes the file; ``services/live/documents.py`` decides what to change.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import anyio
from pycrdt import Awareness, Doc, Text, TransactionEvent

from quire.services.live.journal import BufferJournal, text_hash
from quire.services.live.text_changes import TextChange, apply_changes

CONTENT: Final = "content"
"""The name of the Text inside the Yjs document (the browser's editor binds the same name)."""

OriginKind = Literal["agent", "person", "disk", "replica"]


@dataclass(frozen=True)
class Origin:
    """Who made a change: an agent (by name), a person's editor (by connection), the file on
    disk (a load or a reload, which is not an unsaved edit), or another replica (updates it
    stored already, read back from the journal)."""

    kind: OriginKind
    name: str


DISK: Final = Origin("disk", "file")
REPLICA: Final = Origin("replica", "another replica")


class LiveDocument:
    """An open document. Change it only inside ``change(origin)``; read it any time."""

    def __init__(
        self,
        doc_id: str,
        path: Path,
        ydoc: Doc[Text],
        journal: BufferJournal,
        *,
        folder: tuple[int, int],
    ) -> None:
        self.doc_id = doc_id
        self.path = path
        self.folder = folder
        """(device, inode) of the folder the file was opened from: saves go there or nowhere."""
        self.ydoc = ydoc
        self.content: Text = ydoc.get(CONTENT, type=Text)
        self.journal = journal
        self.awareness = Awareness(ydoc)
        # The server has no cursor of its own to show.
        self.awareness.set_local_state(None)
        self.lock = anyio.Lock()
        """Held by each edit, save and reload, so they take turns."""
        self.version = 0
        """How many updates the document has seen since it was opened."""
        self.conflict: str | None = None
        """The file's text on disk while it conflicts with unsaved edits; else None."""
        self.connections = 0
        """How many editors are connected to it."""
        self._origin: Origin | None = None
        self._subscription = ydoc.observe(self._on_update)

    def text(self) -> str:
        """The live text, unsaved edits included."""
        return str(self.content)

    @property
    def is_dirty(self) -> bool:
        """Whether the live text holds edits the file does not have."""
        return self.journal.dirty

    @property
    def origin(self) -> Origin | None:
        """The origin of the change being made now (read it from an observer); else None."""
        return self._origin

    @contextmanager
    def change(self, origin: Origin) -> Iterator[None]:
        """One transaction tagged with ``origin``; its update is journaled as that origin's."""
        self._origin = origin
        try:
            with self.ydoc.transaction(origin=origin):
                yield
        finally:
            self._origin = None

    def apply(self, old: str, changes: Sequence[TextChange], origin: Origin) -> None:
        """Apply ``changes`` (computed against ``old``, the live text now) as ``origin``."""
        with self.change(origin):
            apply_changes(self.content, old, changes, origin=origin)

    def prepare(self, old: str, changes: Sequence[TextChange], origin: Origin) -> bytes | None:
        """The update that would apply ``changes`` (computed against ``old``, the live text
        now) as ``origin``, made on a copy: the document itself is untouched, so nothing is
        applied or sent before the update is stored. None when there is nothing to change."""
        if not changes:
            return None
        # The same client id: under the document's lock no one else mints its items.
        copy: Doc[Text] = Doc(client_id=self.ydoc.client_id)
        copy.apply_update(self.ydoc.get_update())
        state = self.ydoc.get_state()
        apply_changes(copy.get(CONTENT, type=Text), old, changes, origin=origin)
        return copy.get_update(state)

    def apply_update(self, update: bytes, origin: Origin) -> None:
        """Apply ``update`` (from ``prepare``) as ``origin``: every editor is sent it."""
        with self.change(origin):
            self.ydoc.apply_update(update)

    async def store_and_apply(
        self, old: str, changes: Sequence[TextChange], origin: Origin
    ) -> None:
        """Apply ``changes`` (against ``old``, the live text now) as ``origin`` once their
        update is stored in the journal. When it cannot be stored, nothing is applied or sent
        to an editor and the journal's error propagates (a retry cannot apply it twice). Call
        it holding ``lock``."""
        update = self.prepare(old, changes, origin)
        if update is not None:
            await self.journal.store_then_apply(update, lambda: self.apply_update(update, origin))

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold the document's turn (``BufferJournal.turn``): saves, reloads and a conflict's
        end are made in it. Call it holding ``lock``."""
        async with self.journal.turn(self._apply_stored):
            self._settle_conflict()
            yield

    async def catch_up(self) -> None:
        """Apply what other replicas stored of this document since it last looked."""
        await self.journal.catch_up(self._apply_stored)
        self._settle_conflict()

    def _apply_stored(self, updates: Sequence[bytes]) -> None:
        with self.change(REPLICA):
            for update in updates:
                self.ydoc.apply_update(update)

    def _settle_conflict(self) -> None:
        # Another replica ended the conflict: the buffer rests on the file's text now.
        if self.conflict is not None and text_hash(self.conflict) == self.journal.base_hash:
            self.conflict = None

    def detach(self) -> None:
        """Stop journaling updates (the document is being closed)."""
        self.ydoc.unobserve(self._subscription)

    def _on_update(self, event: TransactionEvent) -> None:
        self.version += 1
        origin = self._origin
        if origin is not None and origin.kind == "replica":
            return  # stored already, by the replica that made it
        self.journal.record(event.update, dirty=origin is None or origin.kind != "disk")
