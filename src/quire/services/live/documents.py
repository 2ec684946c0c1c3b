"""Live documents: the open files as Yjs documents that agents and people edit at the same time.

Owns opening (with unsaved edits restored), agents' edits (one at a time per document, applied
as the smallest change, refused when too large to send), a person's task clicks, previews,
saves, reloads after changes on disk, and conflicts. Path rules are the caller's: every path
reaching ``open`` has passed ``quire.fs`` checks. Grants are checked here by document id: a
document the request may not read is as unknown, a change needs write access
(``quire.services.document_access``).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

import anyio
from pycrdt import Awareness

from quire.api.events import Event
from quire.core.errors import EditRefused, NotOpen, QuireError, StorageFailed
from quire.core.views import OWNER, document_id
from quire.db import buffers
from quire.db.engine import Database
from quire.fs.documents import find_file
from quire.fs.folders import AllowedFolders
from quire.markdown import edits, tasks
from quire.markdown.edits import Replacement
from quire.markdown.merge import Conflict, merge3
from quire.services.chat.privacy import check_chat_edit
from quire.services.document_access import readable, require_writable
from quire.services.events import EventBus
from quire.services.live.agent_memory import AgentMemory
from quire.services.live.cursors import RemoteCursors
from quire.services.live.document import LiveDocument, Origin
from quire.services.live.events import (
    conflict_event,
    conflict_resolved_event,
    edit_events,
)
from quire.services.live.files import (
    adopt_file_text,
    changes_to,
    load_document,
    read_file,
    save_to_file,
)
from quire.services.live.journal import text_hash
from quire.services.live.outcomes import ContentSet, EditOutcome, PreviewedEdit
from quire.services.live.sharing import DocumentSharing
from quire.services.live.text_changes import TextChange, changed_text, replacement_changes
from quire.services.live.writer import JournalWriter
from quire.services.replicas.fanout import Fanout
from quire.services.users.access import current_access
from quire.vault.watch import FileChange, FolderWatcher

logger = logging.getLogger(__name__)

Keep = Literal["mine", "disk"]

_RELOAD_ATTEMPTS = 3


class LiveDocuments:
    """The open documents of one server.

    Use as ``async with LiveDocuments(db, bus, folders=..., clock=...) as documents`` so files
    changed on disk (and, with replicas, documents other replicas changed) are noticed;
    without entering it, everything but that works. Files are read and written only beneath
    ``folders``. With a ``fanout`` to other replicas, each open document follows the edits
    they store (``quire.services.live.sharing``).
    """

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        *,
        folders: AllowedFolders,
        clock: Callable[[], int],
        users: Callable[[], Iterable[str]] | None = None,
        fanout: Fanout | None = None,
    ) -> None:
        self._db = db
        self._sharing = DocumentSharing(db, fanout)
        self.writer = JournalWriter(db, shared=self._sharing.shared, stored=self._sharing.announce)
        """The one writer of every open document's journal (a group commit)."""
        self._folders = folders
        self._bus = bus
        self._clock = clock
        self._users = users
        self._documents: dict[str, LiveDocument] = {}
        self._open_lock = anyio.Lock()
        self._memory = AgentMemory(db, shared=self._sharing.shared, clock=clock)
        """The live texts given out to agents, by version (the ``base`` of a rewrite), and
        the previews they may apply."""
        self._watcher: FolderWatcher | None = None
        self._exit_stack: AsyncExitStack | None = None
        self._on_saved: list[Callable[[Path], Awaitable[None]]] = []
        self._on_written: list[Callable[[Path, str, str], None]] = []
        self._moved_ids: dict[str, str] = {}
        """The id a renamed document keeps, by the id its new path would have."""
        self._cursors: RemoteCursors | None = None
        """The editors' cursors shared with other replicas (once entered, with replicas)."""

    async def __aenter__(self) -> Self:
        async with AsyncExitStack() as stack:
            if self._sharing.shared:
                catch_ups = self._sharing.listen(self._catch_up, lambda: list(self._documents))
                self._cursors = self._sharing.share_cursors(self._awareness_of)
                group = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(group.cancel_scope.cancel)
                group.start_soon(catch_ups.run)
                group.start_soon(self._cursors.run)
                for live in self._documents.values():
                    self._send_cursors(live)
            self._watcher = await stack.enter_async_context(FolderWatcher(self._on_file_changes))
            for live in list(self._documents.values()):
                await self._watcher.watch(live.path.parent)
            self._exit_stack = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Write every pending update and stop watching (call it from the task that entered);
        open documents stay usable."""
        try:
            for live in list(self._documents.values()):
                try:
                    await live.journal.flush()
                except Exception:
                    logger.exception("Storing the unsaved edits of '%s' failed.", live.path)
        finally:
            stack, self._exit_stack, self._watcher = self._exit_stack, None, None
            if stack is not None:
                await stack.aclose()

    # Opening and reading

    @property
    def folders(self) -> AllowedFolders:
        """The folders whose files may be opened, read and saved."""
        return self._folders

    def on_saved(self, listener: Callable[[Path], Awaitable[None]]) -> None:
        """Await ``listener`` with a document's path after each save of it (the search index
        takes the new text at once). A listener must not raise."""
        self._on_saved.append(listener)

    def on_written(self, listener: Callable[[Path, str, str], None]) -> None:
        """Call ``listener`` with a document's path, the save's author and the text written,
        after each save (history records it). It must return at once and must not raise."""
        self._on_written.append(listener)

    async def open(self, path: Path) -> LiveDocument:
        """The live document of ``path`` (absolute, resolved, checked), loading it if needed.

        A buffer with unsaved edits comes back with them when the file is as it was; when the
        file changed meanwhile, the edits are kept and a ``conflict`` event carries both texts.
        A document whose folder was swapped since it was loaded (another folder has its name
        now) moves to the folder the path leads to now (inside the allowed folders), and the
        file there is taken as a change on disk: unsaved edits conflict with it.
        Raises what ``quire.fs.documents.read_document`` raises for an unreadable file.
        """
        doc_id = await self._id_of(path)
        async with self._open_lock:
            live = self._documents.get(doc_id)
            if live is not None:
                await self._follow_folder(live)
                return live
            live = await load_document(
                self._db,
                self.writer,
                doc_id,
                path,
                self._folders,
                clock=self._clock,
                sharing=self._sharing,
            )
            self._documents[doc_id] = live
            self._send_cursors(live)
        if self._watcher is not None:
            await self._watcher.watch(path.parent)
        if live.conflict is not None:
            self._publish(conflict_event(live, live.conflict))
        return live

    def open_documents(self) -> list[LiveDocument]:
        """The documents open now."""
        return list(self._documents.values())

    def get(self, doc_id: str) -> LiveDocument | None:
        """The open document ``doc_id``, or None."""
        return self._documents.get(doc_id)

    async def restore(self, doc_id: str) -> LiveDocument | None:
        """The open document ``doc_id``, reopening the file of its stored buffer if needed (an
        editor reconnecting after a restart); None when there is no such buffer or file, or
        when the request may not read it (as if there were none)."""
        live = await self._reopened(doc_id)
        if live is not None and self._sharing.shared:
            await live.catch_up()  # what is read holds every edit stored so far
        return live

    async def _reopened(self, doc_id: str) -> LiveDocument | None:
        """``restore`` without catching up."""
        live = self._documents.get(doc_id)
        if live is not None:
            return live if readable(live.path) else None
        async with self._db.session() as session:
            stored = await buffers.buffer_path(session, doc_id)
        if stored is None or not readable(Path(stored)):
            return None
        if await self._id_of(Path(stored)) != doc_id:
            return None
        try:
            return await self.open(Path(stored))
        except QuireError as exc:
            logger.info("The buffer %s could not be reopened: %s", doc_id, exc)
            return None

    @asynccontextmanager
    async def editing(self, doc_id: str) -> AsyncIterator[LiveDocument | None]:
        """``async with documents.editing(doc_id) as live``: the document (as ``restore``
        finds it, None when there is none) with one more editor connected for the block. With
        replicas it is caught up once the editor counts, so no edit stored meanwhile by
        another replica misses the editor: it is either read here or pushed on."""
        live = await self._reopened(doc_id)
        if live is None:
            yield None
            return
        live.connections += 1
        try:
            if self._sharing.shared:
                await live.catch_up()
            yield live
        finally:
            live.connections -= 1

    async def text(self, doc_id: str) -> str:
        """The live text of ``doc_id``, unsaved edits included."""
        return (await self._current(doc_id)).text()

    def is_dirty(self, doc_id: str) -> bool:
        """Whether ``doc_id`` holds edits not yet saved to its file."""
        return self._require(doc_id).is_dirty

    def conflict(self, doc_id: str) -> str | None:
        """The file's text on disk while it conflicts with unsaved edits of ``doc_id``."""
        return self._require(doc_id).conflict

    async def flush(self, doc_id: str) -> None:
        """Make every update of ``doc_id`` so far durable (editors' keystrokes included)."""
        await self._require(doc_id).journal.flush()

    # Agents' edits

    async def replace_unique(
        self,
        doc_id: str,
        find: str,
        replace: str,
        *,
        author: str,
        save: bool = False,
        read: str | None = None,
    ) -> EditOutcome:
        """Replace the one occurrence of ``find`` (see ``quire.markdown.edits.replace_unique``),
        after any edit of this document already under way. FileTooLarge when ``find`` and
        ``replace`` together are more than a request may carry. ``read``: the version the
        agent last read, which only decides the answer's version (see ``_agent_view``)."""
        edits.check_request_size(find, replace)
        live = await self._current(doc_id, write=True)
        async with live.lock:
            current = live.text()
            result = edits.replace_unique(current, find, replace)
            await self._apply_replacement(live, current, result, author=author)
            view = await self._agent_view(live.doc_id, read, current, result.text, find, replace, 0)
            return await self._after_edit(live, result, 0, view, author=author, save=save)

    async def replace_occurrence(
        self,
        doc_id: str,
        find: str,
        replace: str,
        match_index: int,
        *,
        author: str,
        save: bool = False,
    ) -> EditOutcome:
        """Replace occurrence ``match_index`` of ``find`` (see ``edits.replace_occurrence``)."""
        return await self.apply_preview(
            doc_id, None, find, replace, match_index, author=author, save=save
        )

    async def preview(
        self, doc_id: str, find: str, replace: str, preview_lines: int = 5
    ) -> PreviewedEdit:
        """Preview a find/replace (see ``edits.preview_edit``) and remember it for an apply,
        with the version of the text previewed (given out: the base an apply checks)."""
        edits.check_request_size(find, replace)
        live = await self._current(doc_id)
        version = live.version
        text = live.text()
        result = edits.preview_edit(
            text, find, replace, preview_lines=preview_lines, label=live.path.name
        )
        base = await self._memory.give(doc_id, text)
        edit_id = await self._memory.remember(
            doc_id=doc_id,
            path=live.path,
            find=find,
            replace=replace,
            version=version,
            match_count=result.matchCount,
            base=base,
        )
        return PreviewedEdit(edit_id=edit_id, preview=result, version=base)

    async def apply_preview(
        self,
        doc_id: str,
        edit_id: str | None,
        find: str,
        replace: str,
        match_index: int = 0,
        *,
        author: str,
        save: bool = False,
        base: str | None = None,
        read: str | None = None,
    ) -> EditOutcome:
        """Apply occurrence ``match_index`` of a previewed find/replace (``read`` as for
        ``replace_unique``).

        With an ``edit_id`` the preview must exist, be of this document with the same find and
        replace, not be applied yet, and have been made from ``base`` when one is given; each
        refusal says to preview again. ``base`` (a version this server gave out; default: the
        preview's) names the text ``match_index`` counts occurrences in: the replacement is
        made there and merged onto the live text, so the person's edits since are kept and
        the occurrence meant is the one replaced even when the person added or removed one
        before it. When the person changed the lines of that occurrence since, nothing changes
        (EditRefused naming them). Without an edit_id or a base, the live text's occurrence is
        replaced, as it is when the preview's text is no longer remembered (then the preview
        is refused if ``find`` no longer occurs as often as it showed).
        """
        edits.check_request_size(find, replace)
        live = await self._current(doc_id, write=True)
        base_text = None if base is None else await self._memory.text(doc_id, base)
        async with live.lock:
            remembered = None
            if edit_id is not None:
                remembered = await self._memory.check(
                    edit_id, doc_id=doc_id, path=live.path, find=find, replace=replace
                )
                if base is not None:
                    self._memory.previews.check_base(remembered, base)
                else:
                    base_text = await self._memory.known(doc_id, remembered.base)
            current = live.text()
            outcome = None
            if base_text is not None and base_text != current:
                outcome = await self._apply_merged(
                    live, base_text, current, find, replace, match_index, author, read=read
                )
            if outcome is not None:
                if edit_id is not None:
                    await self._memory.mark_applied(edit_id)
                if save:
                    await self._save_after_edit(live, "The edit was applied", author)
                return dataclasses.replace(outcome, saved=save)
            if remembered is not None and live.version != remembered.version:
                count = len(edits.find_spans(current, find))
                if count:
                    self._memory.previews.check_current(
                        remembered, version=live.version, match_count=count
                    )
            result = edits.replace_occurrence(current, find, replace, match_index)
            await self._apply_replacement(live, current, result, author=author)
            if edit_id is not None:
                await self._memory.mark_applied(edit_id)
            view = await self._agent_view(
                live.doc_id, read, current, result.text, find, replace, match_index
            )
            return await self._after_edit(live, result, match_index, view, author=author, save=save)

    async def _agent_view(
        self,
        doc_id: str,
        read_version: str | None,
        before: str,
        after: str,
        find: str,
        replace: str,
        match_index: int,
    ) -> str:
        """The version an agent's next rewrite is merged from once its edit is applied.

        When the agent had read the very text it edited (or names no read), that is the text
        after the edit. When the person typed since the agent's read, it is the read with the
        agent's edit applied to it (or the read itself where the edit does not apply there):
        the text after the edit holds typing the agent never saw, and a rewrite merged from it
        would delete that typing as if the agent had. The occurrence edited is taken to be the
        same one of the read when both count the same occurrences of ``find``.
        """
        read = None if read_version is None else await self._memory.known(doc_id, read_version)
        if read is None or read == before:
            return await self._memory.give(doc_id, after)
        assert read_version is not None
        if len(edits.find_spans(read, find)) != len(edits.find_spans(before, find)):
            return read_version  # which occurrence the agent meant in its read cannot be told
        viewed = edits.replace_occurrence(read, find, replace, match_index)
        return await self._memory.give(doc_id, viewed.text)

    async def _apply_merged(
        self,
        live: LiveDocument,
        base_text: str,
        current: str,
        find: str,
        replace: str,
        match_index: int,
        author: str,
        *,
        read: str | None,
    ) -> EditOutcome | None:
        """Replace occurrence ``match_index`` of ``find`` in ``base_text`` and merge that change
        onto ``current`` (the live text, changed since). When the person changed the same lines
        since, None if ``find`` occurs in the live text as often as in ``base_text`` (the
        live occurrence of that index is replaced: the person's characters beside it stay),
        else refused. The answer's version is the agent's view (``_agent_view`` of ``read``)."""
        wanted = edits.replace_occurrence(base_text, find, replace, match_index)
        merged = merge3(base_text, current, wanted.text)
        if merged.conflicts:
            count, was = (
                len(edits.find_spans(current, find)),
                len(edits.find_spans(base_text, find)),
            )
            if count == was:
                return None
            first, last = merged.conflicts[0], merged.conflicts[-1]
            raise EditRefused(
                f"Not applied: since the text this edit was made from, the person changed "
                f"lines {first.start_line}-{last.end_line} (where occurrence {match_index} of "
                f"find lies), and `find` now occurs {count} time(s) instead of {was}; nothing "
                "was changed. Preview the edit again (stream_edit) and apply that preview.",
                match_count=count,
            )
        now, changes = await changes_to(live, merged.text)
        await self._apply_text(live, now, merged.text, changes, Origin("agent", author))
        start = changes[0].start if changes else 0
        end = changes[-1].end + len(merged.text) - len(now) if changes else 0
        return EditOutcome(
            doc_id=live.doc_id,
            path=live.path,
            match_index=match_index,
            line=merged.text.count("\n", 0, start) + 1,
            start=start,
            end=end,
            saved=False,
            version=(
                await self._memory.give(live.doc_id, merged.text)
                if read is None
                else await self._agent_view(
                    live.doc_id, read, base_text, wanted.text, find, replace, match_index
                )
            ),
        )

    async def set_content(
        self,
        doc_id: str,
        content: str,
        *,
        author: str,
        save: bool = False,
        base: str | None = None,
    ) -> ContentSet:
        """Replace the whole text (CRLF and BOM kept as ``edits.apply_content`` says), applied
        as the smallest change so an editor's cursor survives where the text did not change.

        With ``base`` (a version this server gave out, see ``versions``) the rewrite is merged:
        the changes from that text to ``content`` land on the live text, and where the person
        changed the same lines since, their text stays and a conflict says what the agent
        wanted (``quire.markdown.merge``). Without one the live text becomes ``content``.
        """
        edits.check_request_size(content)
        live = await self._current(doc_id, write=True)
        base_text = None if base is None else await self._memory.text(doc_id, base)
        async with live.lock:
            current_text = live.text()
            wanted = edits.apply_content(current_text, content)
            conflicts: tuple[Conflict, ...] = ()
            new = wanted
            if base_text is not None:
                merged = merge3(base_text, current_text, wanted)
                new, conflicts = merged.text, merged.conflicts
            current, changes = await changes_to(live, new)
            await self._apply_text(live, current, new, changes, Origin("agent", author))
            if save:
                await self._save_after_edit(live, "The content was replaced", author)
        return ContentSet(await self._memory.give(doc_id, wanted), conflicts)

    async def read(self, doc_id: str) -> tuple[str, str]:
        """The live text of ``doc_id`` and its version, recorded as given out (a later rewrite
        may name it as its ``base``)."""
        text = (await self._current(doc_id)).text()
        return text, await self._memory.give(doc_id, text)

    # A person's clicks

    async def toggle_task(self, doc_id: str, line: int, checked: bool, *, author: str) -> bool:
        """Set the task checkbox on ``line`` (1-based) to ``checked`` in the live text (unsaved,
        like any edit; see ``quire.markdown.tasks.toggle_task``), after any edit already under
        way, as one change of that one character. Returns whether the text changed (false for
        a box already in that state); InvalidArgument when ``line`` holds no task."""
        live = await self._current(doc_id, write=True)
        async with live.lock:
            current = live.text()
            new = tasks.toggle_task(current, line, checked)
            if new == current:
                return False
            # Nothing awaits between reading and applying, so an editor's typing is kept.
            changes = replacement_changes(current, 0, len(current), new)
            await self._apply_text(live, current, new, changes, Origin("person", author))
        return True

    # Saving, reloading and conflicts

    async def save(self, doc_id: str, *, author: str = OWNER) -> None:
        """Write the live text to the file (atomically) and mark the buffer clean.

        Refused (EditRefused) while the file conflicts with unsaved edits: resolve it first.
        """
        live = self._require(doc_id, write=True)  # the save's turn catches it up
        async with live.lock:
            text = await self._save_checked(live)
        await self._saved(live.path, author, text)

    async def resolve_conflict(self, doc_id: str, keep: Keep) -> None:
        """End a conflict: keep the person's text (``mine``; it stays unsaved, now based on the
        file as it is) or the file's (``disk``; the live text becomes it). Either is allowed
        without a conflict: ``disk`` then reloads the file. Every window is told the conflict
        ended."""
        live = self._require(doc_id, write=True)  # the turn catches it up
        async with live.lock, live.turn():
            _, disk = await read_file(self._folders, live.path)
            if keep == "disk":
                await adopt_file_text(live, disk)
            else:
                await live.journal.rebase_locked(disk)
            live.conflict = None
        self._publish(conflict_resolved_event(live))

    async def unload(self, doc_id: str) -> bool:
        """Close ``doc_id`` when no editor is connected to it; its buffer stays stored.
        Returns whether it was closed."""
        live = self._documents.get(doc_id)
        if live is None or live.connections:
            return False
        async with live.lock:
            await live.journal.flush()
            live.detach()
            del self._documents[doc_id]
        if self._watcher is not None:
            await self._watcher.unwatch(live.path.parent)
        return True

    async def moved(self, source: Path, target: Path) -> list[LiveDocument]:
        """Follow a rename or move of ``source`` (a file, or a folder and what is inside) to
        ``target``: each open document there keeps its id, its Yjs document, its editors and
        its unsaved edits, and is now the file at the new path. Returns those documents."""
        followed: list[LiveDocument] = []
        for live in list(self._documents.values()):
            if not live.path.is_relative_to(source):
                continue
            new = target / live.path.relative_to(source)
            old_folder = live.path.parent
            async with live.lock:
                try:
                    found = await anyio.to_thread.run_sync(find_file, self._folders, new)
                except QuireError as exc:
                    logger.info("The moved document '%s' cannot be followed: %s", new, exc)
                    continue
                live.path, live.folder = new, found.folder
                live.journal.move_to(str(new))
                self._moved_ids[document_id(new)] = live.doc_id
                async with self._db.session() as session, session.begin():
                    await buffers.move_buffer(session, live.doc_id, str(new))
            if self._watcher is not None:
                await self._watcher.watch(new.parent)
                await self._watcher.unwatch(old_folder)
            followed.append(live)
        return followed

    async def forget(self, path: Path) -> list[str]:
        """Close every open document at ``path`` or below it (deleted), editors or not; their
        stored buffers go too. Returns their ids."""
        gone: list[str] = []
        for live in list(self._documents.values()):
            if not live.path.is_relative_to(path):
                continue
            async with live.lock:
                await live.journal.flush()
                live.detach()
                self._documents.pop(live.doc_id, None)
                async with self._db.session() as session, session.begin():
                    await buffers.delete_buffer(session, live.doc_id)
            if self._watcher is not None:
                await self._watcher.unwatch(live.path.parent)
            gone.append(live.doc_id)
        return gone

    # Internals

    async def _id_of(self, path: Path) -> str:
        """The id of ``path``'s live document: the id it kept through a rename, if it was
        renamed (remembered here, or by its stored buffer after a restart), else its own."""
        own = document_id(path)
        if own in self._moved_ids:
            return self._moved_ids[own]
        if own in self._documents:
            return own
        async with self._db.session() as session:
            stored = await buffers.buffer_id_of(session, str(path))
        return stored if stored is not None else own

    async def _follow_folder(self, live: LiveDocument) -> None:
        """Point ``live`` at the folder its path leads to now, if that is another one."""
        try:
            found = await anyio.to_thread.run_sync(find_file, self._folders, live.path)
        except QuireError:
            return  # gone or refused now: its next read or save says why
        if found.folder != live.folder:
            live.folder = found.folder
            await self._reload(live)

    async def _current(self, doc_id: str, *, write: bool = False) -> LiveDocument:
        """``_require``, caught up with every edit other replicas stored so far: what a request
        reads or changes holds every write acknowledged before it, through any replica (the
        announcement alone may come later, or not at all while Redis is away)."""
        live = self._require(doc_id, write=write)
        if self._sharing.shared:
            await live.catch_up()
        return live

    def _require(self, doc_id: str, *, write: bool = False) -> LiveDocument:
        """The open document ``doc_id`` for the request: NotOpen as for an unknown id when it
        may not read it, AccessDenied for a change (``write``) with read access only."""
        live = self._documents.get(doc_id)
        if live is None or not readable(live.path):
            raise NotOpen(
                f"No open document has the id '{doc_id}'. Open the document first (open_file), "
                "then use the id it returns."
            )
        if write:
            require_writable(live.path, "change")
        return live

    async def _apply_text(
        self, live: LiveDocument, current: str, new: str, changes: list[TextChange], origin: Origin
    ) -> None:
        """Apply ``changes`` (from ``current``, the live text now, to ``new``) as one
        transaction of ``origin``, store it and announce it as ``origin.name``'s edit."""
        await self._store_and_apply(live, current, changes, origin)
        if changes:
            start = changes[0].start
            end = changes[-1].end + len(new) - len(current)
            self._publish(*edit_events(live, new, start, end, author=origin.name))

    async def _apply_replacement(
        self, live: LiveDocument, current: str, result: Replacement, *, author: str
    ) -> None:
        """Apply ``result`` (computed from ``current``, the live text now) as its smallest
        change, once it is stored."""
        old_end = result.start + len(current) + (result.end - result.start) - len(result.text)
        changes = replacement_changes(
            current, result.start, old_end, result.text[result.start : result.end]
        )
        await self._store_and_apply(live, current, changes, Origin("agent", author))

    async def _store_and_apply(
        self, live: LiveDocument, current: str, changes: list[TextChange], origin: Origin
    ) -> None:
        """Store the update of ``changes`` in the journal, then apply it (and so send it to
        every editor). When it cannot be stored nothing is applied or sent, and the error says
        so: a retry cannot apply the edit twice."""
        if current_access().identity is not None:  # multi mode: a chat's owner rules
            check_chat_edit(current_access(), live.path, current, changed_text(current, changes))
        try:
            await live.store_and_apply(current, changes, origin)
        except QuireError as exc:
            message = (
                f"The edit was not applied to '{live.path}' (no window was sent it and the "
                f"text is as it was): {exc}"
            )
            raise exc.with_message(message) from exc

    async def _after_edit(
        self,
        live: LiveDocument,
        result: Replacement,
        match_index: int,
        version: str,
        *,
        author: str,
        save: bool,
    ) -> EditOutcome:
        """Announce and (on request) save an applied (so stored) replacement."""
        self._publish(*edit_events(live, result.text, result.start, result.end, author=author))
        if save:
            await self._save_after_edit(live, "The edit was applied", author)
        return EditOutcome(
            doc_id=live.doc_id,
            path=live.path,
            match_index=match_index,
            line=result.line,
            start=result.start,
            end=result.end,
            saved=save,
            version=version,
        )

    async def _save_after_edit(self, live: LiveDocument, what: str, author: str) -> None:
        text = await self._save_checked(live, what)
        await self._saved(live.path, author, text)

    async def _save_checked(self, live: LiveDocument, what: str = "") -> str:
        """``save_to_file``, failing with an error that says what was applied (``what``: the
        edit made before the save, if any) and whether the file took the text: the file is
        written before the buffer is marked clean, so a full database can fail a save whose
        file write succeeded."""
        text = live.text()
        try:
            return await save_to_file(live, self._folders)
        except QuireError as exc:
            saved = False
            if isinstance(exc, StorageFailed):
                try:
                    _found, disk = await read_file(self._folders, live.path)
                    saved = disk == text
                except QuireError:
                    saved = False
            edit = f"{what} to the live document and stored. " if what else ""
            if saved:
                message = (
                    f"{edit}'{live.path}' was saved (the file holds the live text), but "
                    f"marking the document saved failed: {exc} The document may still show "
                    "unsaved changes; save again once there is space."
                )
            else:
                message = (
                    f"{edit}'{live.path}' was not saved: {exc} The document keeps its "
                    "unsaved text; save again once the cause is fixed."
                )
            raise exc.with_message(message) from exc

    async def _saved(self, path: Path, author: str, text: str) -> None:
        for written in self._on_written:
            written(path, author, text)
        for listener in self._on_saved:
            await listener(path)

    async def _on_file_changes(self, changes: list[FileChange]) -> None:
        by_path = {live.path: live for live in self._documents.values()}
        for change in changes:
            live = by_path.get(change.path)
            if live is not None and change.kind == "changed":
                await self._reload(live)

    def _awareness_of(self, doc_id: str) -> Awareness | None:
        live = self._documents.get(doc_id)
        return None if live is None else live.awareness

    def _send_cursors(self, live: LiveDocument) -> None:
        if self._cursors is not None:
            live.awareness.observe(self._cursors.send_changes(live.doc_id, live.awareness))

    async def _catch_up(self, doc_id: str) -> None:
        # Only editors need another replica's edits pushed: every request catches up itself
        # (``_current``), so a document no one edits here costs nothing per remote edit.
        live = self._documents.get(doc_id)
        if live is not None and live.connections:
            await live.catch_up()

    async def _reload(self, live: LiveDocument) -> None:
        had_conflict = live.conflict is not None
        # The file is read in the turn: a save by another replica just before cannot be taken
        # for a change on disk, and only one replica adopts a change on disk.
        async with live.lock, live.turn():
            try:
                _, disk = await read_file(self._folders, live.path)
            except QuireError as exc:
                logger.warning("Cannot reload '%s' after it changed on disk: %s", live.path, exc)
                return
            if text_hash(disk) == live.journal.base_hash:
                # A save (by this replica or another), or a write of the same text.
                self._end_conflict(live, had_conflict)
                return
            # An editor typing during a long diff makes the buffer dirty: decide again.
            for _attempt in range(_RELOAD_ATTEMPTS):
                if live.is_dirty and live.text() != disk:
                    break
                if await adopt_file_text(live, disk, unless_typed=True):
                    self._end_conflict(live, had_conflict)
                    return
            if live.conflict == disk:
                return  # the same change reported again: the window already has it
            live.conflict = disk
        self._publish(conflict_event(live, disk))

    def _end_conflict(self, live: LiveDocument, had_conflict: bool) -> None:
        live.conflict = None
        if had_conflict:
            self._publish(conflict_resolved_event(live))

    def _publish(self, *events: Event) -> None:
        # Without a list of users every window hears of it; in multi mode each account's
        # subscription keeps only the events about documents it may read.
        if self._users is None:
            for event in events:
                self._bus.publish_all(event)
            return
        for user in self._users():
            for event in events:
                self._bus.publish(user, event)
