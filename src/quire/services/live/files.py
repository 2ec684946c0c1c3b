"""A live document and its file: loading it (with a stored buffer), taking the file's text,
and saving to the file.

Reads and writes go through ``quire.fs``; callers hold the document's lock and decide when
(``services/live/documents.py``). No events are published here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Final

import anyio
from pycrdt import Doc, Text, merge_updates

from quire.core.errors import EditRefused
from quire.db import buffers
from quire.db.engine import Database
from quire.fs.documents import FoundFile, read_document, write_document
from quire.fs.folders import AllowedFolders
from quire.services.live.document import DISK, LiveDocument
from quire.services.live.journal import BufferJournal, text_hash
from quire.services.live.sharing import DocumentSharing
from quire.services.live.text_changes import TextChange, text_changes
from quire.services.live.writer import JournalWriter

logger = logging.getLogger(__name__)

DIFF_IN_THREAD: Final = 100_000
"""Texts longer than this many characters (old and new together) are diffed off the loop."""


async def read_file(folders: AllowedFolders, path: Path) -> tuple[FoundFile, str]:
    """The file and its text, read off the event loop (see ``quire.fs.documents``)."""
    return await anyio.to_thread.run_sync(read_document, folders, path)


async def load_document(
    db: Database,
    writer: JournalWriter,
    doc_id: str,
    path: Path,
    folders: AllowedFolders,
    *,
    clock: Callable[[], int],
    sharing: DocumentSharing,
) -> LiveDocument:
    """The live document of ``path`` from its file and its stored buffer, if any.

    Without a stored buffer (or with a clean one) it holds the file's text. A dirty buffer
    comes back with its unsaved edits; when the file changed since they were made, they are
    kept and ``conflict`` holds the file's text. Stored updates that cannot be read are
    dropped (logged) and the file is loaded instead. The document remembers the identity of
    the file's folder, so a save after that folder was swapped is refused. All of it happens
    holding the document's shared lock: a replica loading the same file meanwhile waits, then
    builds its document from the buffer this one stored.
    """
    async with sharing.held(doc_id):
        found, disk = await read_file(folders, path)
        async with db.session() as session:
            record = await buffers.load_buffer(session, doc_id)
        ydoc: Doc[Text] = Doc()
        if record is not None and record.updates:
            try:
                ydoc.apply_update(merge_updates(*record.updates))
            except Exception as exc:
                logger.error(
                    "The stored buffer of '%s' is unreadable (%s); loading the file.", path, exc
                )
                ydoc, record = Doc(), None
        journal = BufferJournal(
            db,
            writer,
            doc_id,
            str(path),
            base_hash=record.base_hash if record else text_hash(disk),
            dirty=record.dirty if record else False,
            clock=clock,
            sharing=sharing,
            last_id=record.last_id if record else 0,
        )
        live = LiveDocument(doc_id, path, ydoc, journal, folder=found.folder)
        mine = live.text()
        on_disk = text_hash(disk)
        async with journal.lock:
            if record is None or not record.updates:
                await adopt_file_text(live, disk)
            elif record.dirty and mine != disk:
                # Unsaved edits survive a restart; a file changed meanwhile conflicts with them.
                if record.base_hash != on_disk:
                    live.conflict = disk
            elif mine != disk or record.base_hash != on_disk or record.dirty:
                await adopt_file_text(live, disk)
        return live


async def adopt_file_text(live: LiveDocument, disk: str, *, unless_typed: bool = False) -> bool:
    """Make the live text the file's text ``disk`` (as the smallest change) and rest on it.
    The caller holds the document's turn.

    With ``unless_typed``, nothing changes (and False is returned) when an editor changed the
    live text while a long diff was computed: the caller decides again.
    """
    diffed = await _diff(live, disk)
    if diffed is None:
        if unless_typed:
            return False
        diffed = _diff_on_loop(live, disk)
    current, changes = diffed
    live.apply(current, changes, DISK)
    await live.journal.reset_locked(live.ydoc, live.content, disk)
    return True


async def changes_to(live: LiveDocument, new: str) -> tuple[str, list[TextChange]]:
    """The live text now and the changes that turn it into ``new``; apply them at once."""
    diffed = await _diff(live, new)
    return _diff_on_loop(live, new) if diffed is None else diffed


async def save_to_file(live: LiveDocument, folders: AllowedFolders) -> str:
    """Write the live text to the file atomically and rest the buffer on it (clean, unless an
    editor typed during the write); the text written. Refused (EditRefused) while the file
    conflicts, and (PathRefused) when the file's folder is no longer the one it was opened
    from. Made in the document's turn, with every replica's stored edits in the text."""
    async with live.turn():
        if live.conflict is not None:
            raise EditRefused(
                f"'{live.path}' changed on disk while it had unsaved edits, so saving now would "
                "overwrite that change. Resolve the conflict in the window first (keep your "
                "text or the file's), then save."
            )
        text = live.text()
        await anyio.to_thread.run_sync(
            partial(write_document, folders, live.path, text, folder=live.folder)
        )
        await live.journal.reset_locked(live.ydoc, live.content, text)
    return text


async def _diff(live: LiveDocument, new: str) -> tuple[str, list[TextChange]] | None:
    """The live text and the changes to ``new``; a long text is diffed off the event loop, and
    None means an editor changed the live text meanwhile (the changes would not fit it)."""
    current = live.text()
    if len(current) + len(new) <= DIFF_IN_THREAD:
        return current, text_changes(current, new)
    version = live.version
    changes = await anyio.to_thread.run_sync(text_changes, current, new)
    return (current, changes) if live.version == version else None


def _diff_on_loop(live: LiveDocument, new: str) -> tuple[str, list[TextChange]]:
    current = live.text()
    return current, text_changes(current, new)
