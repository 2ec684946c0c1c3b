"""The workspaces' file operations as use cases: what happens around each disk operation.

Runs the operation of ``quire.vault.files`` / ``quire.vault.trash`` off the event loop (the
rules are theirs), then keeps the open documents right: a renamed or moved document keeps its
live buffer, editors and unsaved edits, every window's tab shows its new path, and its chat
state (waits, read positions, pins, sessions) and reviews follow it; a deleted one closes its
tabs everywhere (each window is told why) and a deleted chat ends its waits as chat deletion
does. Publishes a ``tree`` event for each change it makes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path

import anyio

from quire.api.events import DeletedData, DeletedEvent, TreeEvent
from quire.api.files import (
    Appended,
    Copied,
    Deleted,
    LinkUpdates,
    Moved,
    NoteCreated,
    TrashEmptied,
    TrashItem,
    TrashList,
    TrashRestored,
    TreeChange,
    TreeData,
    Uploaded,
)
from quire.core.errors import AccessDenied, EditRefused, FileMissing, InvalidArgument, PathRefused
from quire.core.views import document_id
from quire.fs.documents import read_document, write_document
from quire.fs.names import note_file_name
from quire.fs.resolve import resolve_leniently
from quire.services.chat.chats import ChatService
from quire.services.events import EventBus
from quire.services.files import checks
from quire.services.files.links import LinkUpdater
from quire.services.files.tree import RecentPaths
from quire.services.history.recorder import HistoryRecorder
from quire.services.live.documents import LiveDocuments
from quire.services.reviews.loop import Reviews
from quire.services.search import SearchService
from quire.services.users.access import current_access
from quire.services.windows import Windows
from quire.vault import archive, trash
from quire.vault import files as ops
from quire.vault.archive import Download
from quire.vault.workspaces import Workspaces

_APPEND_TRIES = 3
"""How often an append reads a note again that another program changed meanwhile."""

MAX_UPLOAD_BYTES = 16 * 1024 * 1024
"""The most one upload may hold (the request body limit)."""

ASSETS = "assets"
"""The folder beside a note where its pictures land."""


class FileService:
    """Create, rename, move, copy, delete (to the trash), restore, append and upload."""

    def __init__(
        self,
        workspaces: Workspaces,
        documents: LiveDocuments,
        windows: Windows,
        bus: EventBus,
        *,
        clock: Callable[[], int],
        search: SearchService | None = None,
        history: HistoryRecorder | None = None,
        chats: ChatService | None = None,
        reviews: Reviews | None = None,
    ) -> None:
        self._workspaces = workspaces
        self._chats = chats
        self._reviews = reviews
        self._history = history
        self._folders = workspaces.inside
        self._documents = documents
        self._windows = windows
        self._bus = bus
        self._clock = clock
        self.recent = RecentPaths()
        """The paths this service changed lately: the tree feed leaves the watcher's reports
        of them out (their events went out already)."""
        self._links = LinkUpdater(workspaces, documents, search, on_written=self._link_written)

    def _link_written(self, path: Path) -> None:
        self.recent.note_saved(path)
        if self._history is not None:
            self._history.saved(path, "owner", None, "Update links")

    async def saved(self, path: Path) -> None:
        """A document was saved (by rename, which the watcher reports as a new name): not a
        change of the tree (the live documents' save listener)."""
        self.recent.note_saved(path)

    async def create_note(
        self, user: str, path: Path, *, content: str | None = None, template: Path | None = None
    ) -> NoteCreated:
        """Create the note ``path``: its name made a safe file name (``.md`` added), holding
        ``content``, or a copy of the note ``template``'s text, or nothing."""
        if content is not None and template is not None:
            raise InvalidArgument("Pass `content` or `template`, not both.", argument="template")
        target = path.parent / note_file_name(path.name)
        access = current_access()
        if access.restricted:
            checks.require_new(access, target, "create")
            if template is not None:
                access.require_read(template, missing=checks.missing_file(template, "read"))
        text = content or ""
        if template is not None:
            _, text = await anyio.to_thread.run_sync(read_document, self._folders, template)
        made = await anyio.to_thread.run_sync(ops.create_note, self._folders, target, text)
        self._tree(user, made, "created", is_folder=False)
        if self._history is not None:
            self._history.created(made, user)
        return NoteCreated(path=str(made), kind="note")

    async def create_folder(self, user: str, path: Path) -> NoteCreated:
        """Create the folder ``path`` (and its parents)."""
        access = current_access()
        if access.restricted:
            checks.require_new(access, path, "create")
        made = await anyio.to_thread.run_sync(ops.create_folder, self._folders, path)
        self._tree(user, made, "created", is_folder=True)
        return NoteCreated(path=str(made), kind="folder")

    async def link_updates(self, path: Path, to: Path) -> LinkUpdates:
        """The notes moving ``path`` to ``to`` would rewrite (see ``LinkUpdater``); writes
        nothing. An account is told only of the notes it may change (see ``LinkUpdater``)."""
        access = current_access()
        if access.restricted:
            checks.require_entry(access, path, "move", write=False)
        return (await self._links.plan(path, to)).answer()

    async def move(self, user: str, path: Path, to: Path, *, update_links: bool = False) -> Moved:
        """Rename or move ``path`` to ``to``; open documents follow (see the module). With
        ``update_links``, the notes ``link_updates`` lists are rewritten after the move.
        An account needs write access to ``path`` (to all of a folder) and at ``to``."""
        access = current_access()
        if access.restricted:
            checks.require_entry(access, path, "move", write=True)
            checks.require_new(access, to, "move")
            await anyio.to_thread.run_sync(
                lambda: checks.require_whole(access, path, "move", write=True)
            )
        plan = await self._links.plan(path, to) if update_links else None
        with nullcontext() if self._chats is None else self._chats.moving():
            moved = await anyio.to_thread.run_sync(ops.move_entry, self._folders, path, to)
            # At once: the watcher reports the new name a quiet step after the rename, maybe
            # before the documents, chats and windows below have followed it.
            self.recent.note(moved.source, moved.target)
            if self._chats is not None:
                await self._chats.moved(user, moved.source, moved.target)
        if self._reviews is not None:
            await self._reviews.moved(moved.source, moved.target)
        followed = await self._documents.moved(moved.source, moved.target)
        await self._windows.follow_move(moved.source, moved.target)
        self._tree(user, moved.source, "moved", is_folder=moved.is_folder, to=moved.target)
        if self._history is not None:
            self._history.moved(moved.source, moved.target, user, is_folder=moved.is_folder)
        updated: tuple[str, ...] = ()
        if plan is not None:
            updated = await self._links.apply(plan.moved_to(moved.source, moved.target), user)
        return Moved(
            path=str(moved.source),
            to=str(moved.target),
            is_folder=moved.is_folder,
            documents_followed=len(followed),
            links_updated=updated,
        )

    async def copy(self, user: str, path: Path, to: Path) -> Copied:
        """Copy the file or folder ``path`` to the new path ``to``. An account needs read
        access to ``path`` (to all of a folder) and write access at ``to``."""
        access = current_access()
        if access.restricted:
            checks.require_entry(access, path, "copy", write=False)
            checks.require_new(access, to, "copy")
            await anyio.to_thread.run_sync(
                lambda: checks.require_whole(access, path, "copy", write=False)
            )
        made, count = await anyio.to_thread.run_sync(ops.copy_entry, self._folders, path, to)
        if self._chats is not None:  # a private chat's copy keeps its members
            await self._chats.copied(resolve_leniently(path), resolve_leniently(made))
        self._tree(user, made, "created", is_folder=count.folders > 0)
        if self._history is not None:
            self._history.created(made, user, is_folder=count.folders > 0)
        return Copied(
            path=str(path),
            to=str(made),
            files=count.files,
            folders=count.folders,
            size=count.size,
            skipped=count.skipped,
        )

    async def delete(self, user: str, path: Path) -> Deleted:
        """Move ``path`` to its workspace's trash; its open documents close, their tabs too.
        An account needs write access to ``path``, and to everything in a folder (else
        nothing is deleted)."""
        access = current_access()
        if access.restricted:
            checks.require_entry(access, path, "delete", write=True)
            await anyio.to_thread.run_sync(
                lambda: checks.require_whole(access, path, "delete", write=True)
            )
        # The workspace holding the name itself: a symlink is trashed as the link, wherever
        # it points (in another workspace, or outside every one).
        holder = path if path in self._workspaces.folders else path.parent
        workspace = self._workspace(holder, "delete", shown=path)
        if self._chats is not None:  # a chat only its owner (or an admin) may delete
            await self._chats.check_delete(path)
        entry = await anyio.to_thread.run_sync(
            lambda: trash.trash_entry(self._folders, workspace, path, now_ms=self._clock())
        )
        self.recent.note(entry.original)  # before the awaits below (see ``move``)
        await self._documents.forget(entry.original)
        if self._chats is not None:
            await self._chats.deleted(user, entry.original)
        closed = await self._windows.close_deleted(entry.original)
        for owner, paths in closed.items():
            data = DeletedData(
                path=str(entry.original), trash_id=entry.entry_id, paths=tuple(sorted(paths))
            )
            self._bus.publish(owner, DeletedEvent(data=data))
        self._tree(user, entry.original, "deleted", is_folder=entry.is_folder)
        if self._history is not None:
            self._history.deleted(entry.original, user, is_folder=entry.is_folder)
        return Deleted(
            path=str(entry.original),
            trash_id=entry.entry_id,
            tabs_closed=sum(len(paths) for paths in closed.values()),
        )

    async def trash_list(self) -> TrashList:
        """Every workspace's trash, newest first (entries past 30 days are removed first);
        for an account, only the items whose original path it may read."""
        now = self._clock()
        access = current_access()

        def run() -> list[trash.TrashEntry]:
            found: list[trash.TrashEntry] = []
            for workspace in self._workspaces.folders:
                trash.empty_trash(workspace, older_than_ms=now - trash.KEEP_MS)
                found.extend(trash.list_trash(workspace))
            if access.restricted:
                found = [item for item in found if access.may_read(item.original)]
            return sorted(found, key=lambda item: -item.deleted_at_ms)

        entries = await anyio.to_thread.run_sync(run)
        return TrashList(items=tuple(_item(entry) for entry in entries))

    async def restore(self, user: str, entry_id: str, to: Path | None = None) -> TrashRestored:
        """Put the trash entry ``entry_id`` back where it was (or at ``to``). An account sees
        only the entries it may read (``trash_list``) and needs write access where it lands."""
        trash.check_entry_id(entry_id)
        entry = await self._entry(entry_id)
        access = current_access()
        if access.restricted:
            checks.require_new(access, to or entry.original, "restore")
            held = trash.held_path(entry)
            whole = await anyio.to_thread.run_sync(
                lambda: checks.trashed_writable(access, held, entry.original)
            )
            if not whole:
                raise AccessDenied(
                    f"Access denied: the trash entry '{entry_id}' holds files or folders your "
                    "account cannot change where they came from, so nothing was restored. "
                    "Ask a workspace admin for write access to all of it."
                )
        restored = await anyio.to_thread.run_sync(
            lambda: trash.restore_entry(self._folders, entry, to=to)
        )
        self._tree(user, restored, "created", is_folder=entry.is_folder)
        if self._history is not None:
            self._history.created(restored, user, is_folder=entry.is_folder)
        return TrashRestored(id=entry_id, path=str(restored))

    async def empty_trash(self, *, expired_only: bool = False) -> TrashEmptied:
        """Remove the trash for good: all of it, or only what is past its 30 days. An account
        removes only the items it may change where they came from (all of a folder's), and
        leaves everyone else's."""
        older = self._clock() - trash.KEEP_MS if expired_only else None
        access = current_access()

        def writable(entry: trash.TrashEntry) -> bool:
            held = trash.held_path(entry)
            return checks.trashed_writable(access, held, entry.original)

        keep = writable if access.restricted else None

        def run() -> int:
            return sum(
                trash.empty_trash(workspace, older_than_ms=older, keep=keep)
                for workspace in self._workspaces.folders
            )

        return TrashEmptied(removed=await anyio.to_thread.run_sync(run))

    async def append(self, user: str, path: Path, content: str, *, save: bool = True) -> Appended:
        """Append ``content`` to the note ``path``: through its live document when it is open
        (editors see it at once, like a chat post), else to the file (atomically)."""
        access = current_access()
        if access.restricted:
            access.require_write(path, missing=checks.missing_file(path, "read"))
        real = await anyio.to_thread.run_sync(self._folders.check, path)
        live = self._documents.get(await _live_id(self._documents, real))
        if live is not None:
            text = live.text()
            await self._documents.set_content(
                live.doc_id, _joined(text, content), author=user, save=save
            )
            return Appended(path=str(live.path), live=True)

        def run() -> Path:
            # Another program may save the note between the read and the write: its text is
            # read again rather than written over (the window left is the write's own rename).
            for _attempt in range(_APPEND_TRIES):
                seen = _stamp(real)
                found, text = read_document(self._folders, real)
                if _stamp(found.path) != seen:
                    continue
                written = write_document(
                    self._folders, found.path, _joined(text, content), folder=found.folder
                )
                return written.path
            raise EditRefused(
                f"Could not append to '{path}': another program kept changing it. Try again "
                "once it has stopped writing."
            )

        written = await anyio.to_thread.run_sync(run)
        self.recent.note_saved(written)
        if self._history is not None:
            self._history.saved(written, user, None)
        return Appended(path=str(written), live=False)

    async def upload(
        self, user: str, path: Path, chunks: Iterable[bytes], *, note: Path | None = None
    ) -> Uploaded:
        """Write the uploaded bytes as the new file ``path``; with ``note``, also the Markdown
        link to it relative to the note's folder. ``chunks`` is read in a worker thread."""
        access = current_access()
        if access.restricted:
            checks.require_new(access, path, "upload")
        made, size = await anyio.to_thread.run_sync(
            lambda: ops.upload_file(self._folders, path, chunks, limit=MAX_UPLOAD_BYTES)
        )
        self._tree(user, made, "created", is_folder=False)
        if self._history is not None:
            self._history.created(made, user)
        link = None if note is None else picture_link(made, note)
        return Uploaded(path=str(made), size=size, link=link)

    async def download(self, path: Path) -> Download:
        """A file's bytes, or a folder as a zip, checked now and streamed as it is iterated
        (iterate it in a worker thread). An account gets only what it may read: a folder's
        zip leaves out the rest without a word."""
        access = current_access()
        if not access.restricted:
            return await anyio.to_thread.run_sync(archive.download, self._folders, path)
        checks.require_entry(access, path, "download", write=False)

        def keep(real: Path, is_folder: bool) -> bool:
            return access.sees_folder(real) if is_folder else access.may_read(real)

        return await anyio.to_thread.run_sync(
            lambda: archive.download(self._folders, path, keep=keep)
        )

    def assets_path(self, note: Path, name: str) -> Path:
        """Where a picture uploaded for ``note`` goes: ``assets/NAME`` beside it."""
        return note.parent / ASSETS / name

    async def _entry(self, entry_id: str) -> trash.TrashEntry:
        listed = await self.trash_list()
        for item in listed.items:
            if item.id == entry_id:
                return trash.TrashEntry(
                    item.id, Path(item.workspace), Path(item.path), item.is_folder,
                    item.deleted_at_ms,
                )  # fmt: skip
        raise FileMissing(
            f"No trash entry has the id '{entry_id}'. Run `quire trash list` for the ids."
        )

    def _workspace(self, path: Path, verb: str, *, shown: Path | None = None) -> Path:
        workspace = self._workspaces.workspace_of(path)
        if workspace is None:
            raise PathRefused(
                f"Refusing to {verb} '{shown or path}': it is not inside a workspace this "
                "server serves."
            )
        return workspace

    def _tree(
        self, user: str, path: Path, action: str, *, is_folder: bool, to: Path | None = None
    ) -> None:
        self.recent.note(path, *(() if to is None else (to,)))
        workspace = self._workspaces.workspace_of(path)
        if workspace is None:
            return
        change = TreeChange.model_validate(
            {
                "action": action,
                "path": str(path),
                "to": None if to is None else str(to),
                "is_folder": is_folder,
            }
        )
        data = TreeData(workspace=str(workspace), changes=(change,), rescan=False)
        # The tree is everyone's: every user's windows show the change.
        self._bus.publish_all(TreeEvent(data=data))


async def _live_id(documents: LiveDocuments, path: Path) -> str:
    found = [live.doc_id for live in documents.open_documents() if live.path == path]
    return found[0] if found else document_id(path)


def picture_link(picture: Path, note: Path) -> str:
    """The Markdown image link to ``picture`` from ``note`` (both absolute), relative to the
    note's folder (in angle brackets when it holds a space)."""
    relative = os.path.relpath(picture, note.parent).replace(os.sep, "/")
    target = f"<{relative}>" if " " in relative else relative
    return f"![{picture.stem}]({target})"


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a changed file: its inode, size and modification time (None: unreadable)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _joined(text: str, addition: str) -> str:
    """``addition`` after ``text``, on a line of its own."""
    if not text or text.endswith("\n"):
        return text + addition
    return text + "\n" + addition


def _item(entry: trash.TrashEntry) -> TrashItem:
    return TrashItem(
        id=entry.entry_id,
        workspace=str(entry.workspace),
        path=str(entry.original),
        is_folder=entry.is_folder,
        deleted_at_ms=entry.deleted_at_ms,
        expires_at_ms=entry.deleted_at_ms + trash.KEEP_MS,
    )
