"""The served folders: which workspace holds a path, and a paginated listing of their documents.

Walks folders through ``quire.fs.walk`` (the one walker and its limits); it never reads a
document's content and never decides which folders are served (the caller passes them in).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from quire.core.errors import InvalidArgument
from quire.fs.folders import AllowedFolders
from quire.fs.resolve import resolve_leniently
from quire.fs.sandbox import is_document_name, resolve_folder
from quire.fs.walk import Unreadable, walk_tree

PAGE_LIMIT = (1, 1000, 100)
"""How many files one page may hold: least, most and default."""

SETTLED_NS = 100_000_000
"""How long before a walk a folder must have last changed for the walk to be reused (ns): a
file system stamps times from a coarse clock, so a file added in the same tick as the walk
could leave its folder's time as the walk saw it."""

CONTINUE_S = 5.0
"""How long the walk behind a first page answers the pages that follow it (seconds): a client
reading every page of a large workspace walks it once, not once per page."""


@dataclass(frozen=True)
class WorkspaceFile:
    """A Markdown document in a workspace: its path (as listed, links not resolved), the
    workspace holding it, its path relative to that workspace, and its size and mtime."""

    path: Path
    workspace: Path
    rel_path: str
    mtime_ms: int
    size: int


@dataclass(frozen=True)
class FilePage:
    """One page of the listing: ``files`` in order, the cursor of the next page (None on the
    last), ``total`` files found, whether the walk stopped early, and a ``note`` saying what
    is missing from the listing and why (None when nothing is)."""

    files: list[WorkspaceFile]
    next_cursor: str | None
    total: int
    truncated: bool = False
    note: str | None = None


@dataclass
class _Snapshot:
    """The ordered files of one walk, when it was taken, the cursors it gave out, and whether
    a file in it changed since (``stale``: its sizes and times may be old)."""

    ordered: list[WorkspaceFile]
    walk: _Walk
    taken_at: float
    cursors: set[str]
    stale: bool = False
    started_ns: int = 0
    """The wall-clock time the walk started at."""

    def holds_every_file(self) -> bool:
        """Whether every folder the walk listed still has the modification time it had, and
        had it well before the walk (SETTLED_NS), so no file was added, removed or renamed in
        any of them (one stat per folder)."""
        settled = self.started_ns - SETTLED_NS
        for folder, mtime_ns in self.walk.folders:
            if mtime_ns >= settled:
                return False
            try:
                if os.lstat(folder).st_mtime_ns != mtime_ns:
                    return False
            except OSError:
                return False
        return True


@dataclass
class _Walk:
    """What the walks of every workspace found, and what they could not list."""

    files: list[WorkspaceFile] = field(default_factory=list)
    entries: int = 0
    max_entries: int = 0
    max_depth: int = 0
    depth_cut: bool = False
    budget_cut: bool = False
    undecodable: int = 0
    unreadable: list[Unreadable] = field(default_factory=list)
    folders: list[tuple[Path, int]] = field(default_factory=list)


HOW_TO_SERVE = (
    "To work on it, serve its folder (`quire serve DIR…`, or `workspaces` in quire.toml), or "
    "allow it (`quire serve --allow DIR`, or `server.allow` in quire.toml), then restart the "
    "server."
)


class Workspaces:
    """The folders the server serves, resolved through symlinks, in the order given.

    ``inside`` confines a path to the workspaces (chats, listings, search); ``openable`` to
    the workspaces and the ``allowed`` folders besides (opening, presenting, reviewing,
    saving a document).
    """

    def __init__(
        self,
        folders: Iterable[Path],
        *,
        allowed: Iterable[Path] = (),
        clock: Callable[[], float] = time.monotonic,
        wall_clock_ns: Callable[[], int] = time.time_ns,
    ) -> None:
        self._clock = clock
        self._wall_clock_ns = wall_clock_ns
        self._snapshot: _Snapshot | None = None
        self._snapshot_lock = threading.Lock()
        resolved: list[Path] = []
        for folder in folders:
            checked = resolve_folder(folder)
            if checked not in resolved:
                resolved.append(checked)
        self._folders = tuple(resolved)
        self.inside = AllowedFolders(self._folders, outside_hint=HOW_TO_SERVE)
        self.openable = AllowedFolders((*self._folders, *allowed), outside_hint=HOW_TO_SERVE)

    @property
    def folders(self) -> tuple[Path, ...]:
        """The served folders, resolved, without duplicates."""
        return self._folders

    def workspace_of(self, path: Path) -> Path | None:
        """The innermost served folder holding ``path`` (resolved through symlinks), or None."""
        resolved = resolve_leniently(path)
        holding = [folder for folder in self._folders if resolved.is_relative_to(folder)]
        return max(holding, key=lambda folder: len(folder.parts), default=None)

    def list_files(self, cursor: str | None = None, limit: int = PAGE_LIMIT[2]) -> FilePage:
        """One page of every Markdown document (not a dotfile) in the served folders.

        The folders are walked by ``quire.fs.walk.walk_tree`` (hidden, skipped and symlinked
        folders are not entered; a file symlink is listed when it resolves to a Markdown
        document inside its workspace). Files are ordered by
        workspace, then by relative path, so a cursor (from ``next_cursor``) picks up after the
        last file of its page even when files were added or removed meanwhile. A first page
        walks the folders, unless the last walk still holds: no folder it listed has a new
        modification time (so no file came, went or was renamed) and ``changed`` was not
        called since (so no size or time is old). A page asked for with a cursor a walk gave
        out, within ``CONTINUE_S``, is read from that walk (so ``total`` agrees across the
        pages of one reading, and a reading of N pages walks once). A walk that has
        to stop (past ``MAX_ENTRIES`` entries, or folders deeper than ``MAX_DEPTH``) says so
        with ``truncated`` and a ``note``; names that are not UTF-8 and folders that cannot be
        read are counted there too.
        Blocking: call it from a worker thread. Raises InvalidArgument for a bad cursor or limit.
        """
        low, high, _ = PAGE_LIMIT
        if isinstance(limit, bool) or not isinstance(limit, int) or not low <= limit <= high:
            raise InvalidArgument(
                f"`limit` must be a whole number from {low} to {high:,}, got {limit!r}.",
                argument="limit",
            )
        after = None if cursor is None else self._decode_cursor(cursor)
        snapshot = self._reusable() if cursor is None else self._continued(cursor)
        if snapshot is None:
            started_ns = self._wall_clock_ns()
            ordered, walk = self._walk()
            snapshot = _Snapshot(ordered, walk, self._clock(), set(), started_ns=started_ns)
            with self._snapshot_lock:
                self._snapshot = snapshot
        ordered, walk = snapshot.ordered, snapshot.walk
        order = {folder: index for index, folder in enumerate(self._folders)}
        start = 0
        if after is not None:
            # The listing is sorted by this same key, so the page starts where it would go.
            start = bisect.bisect_right(
                ordered, after, key=lambda item: (order[item.workspace], item.rel_path)
            )
        page = ordered[start : start + limit]
        more = start + limit < len(ordered)
        next_cursor = encode_cursor(page[-1]) if more and page else None
        if next_cursor is not None:
            with self._snapshot_lock:
                snapshot.cursors.add(next_cursor)
        truncated = walk.budget_cut or walk.depth_cut
        return FilePage(page, next_cursor, len(ordered), truncated=truncated, note=_note(walk))

    def changed(self) -> None:
        """A file in the workspaces changed (the watcher said so): the next first page walks
        again, so sizes and times are read anew (added and removed files show at once
        anyway, by their folders' times)."""
        with self._snapshot_lock:
            if self._snapshot is not None:
                self._snapshot.stale = True

    def _reusable(self) -> _Snapshot | None:
        """The last walk, for a first page, when nothing in it changed since."""
        with self._snapshot_lock:
            snapshot = self._snapshot
        if snapshot is None or snapshot.stale or snapshot.walk.unreadable:
            return None
        return snapshot if snapshot.holds_every_file() else None

    def _continued(self, cursor: str) -> _Snapshot | None:
        """The last walk, when it gave out ``cursor`` less than CONTINUE_S ago."""
        with self._snapshot_lock:
            snapshot = self._snapshot
            if snapshot is None or cursor not in snapshot.cursors:
                return None
        return snapshot if self._clock() - snapshot.taken_at < CONTINUE_S else None

    def all_files(self) -> FilePage:
        """Every document ``list_files`` would list, in the same order, from one walk.

        For callers in this process that want the whole listing (search): paging through
        ``list_files`` would walk the folders once per page. Blocking: call it from a thread.
        """
        ordered, walk = self._walk()
        truncated = walk.budget_cut or walk.depth_cut
        return FilePage(ordered, None, len(ordered), truncated=truncated, note=_note(walk))

    def _walk(self) -> tuple[list[WorkspaceFile], _Walk]:
        walk = _Walk()
        for folder in self._folders:
            if walk.budget_cut:
                break
            nested = tuple(other for other in self._folders if other != folder)
            found = walk_tree(folder, keep=is_document_name, exclude=nested, spent=walk.entries)
            walk.files.extend(
                WorkspaceFile(
                    path=item.path,
                    workspace=folder,
                    rel_path=item.rel_path,
                    mtime_ms=item.info.st_mtime_ns // 1_000_000,
                    size=item.info.st_size,
                )
                for item in found.files
            )
            walk.entries = found.entries
            walk.max_entries, walk.max_depth = found.max_entries, found.max_depth
            walk.budget_cut = found.budget_cut
            walk.depth_cut = walk.depth_cut or found.depth_cut
            walk.undecodable += len(found.undecodable)
            walk.unreadable.extend(found.unreadable)
            walk.folders.extend(found.folders)
        order = {folder: index for index, folder in enumerate(self._folders)}
        return sorted(walk.files, key=lambda item: (order[item.workspace], item.rel_path)), walk

    def _decode_cursor(self, cursor: str) -> tuple[int, str]:
        return decode_cursor(cursor, self._folders)


def encode_cursor(last: WorkspaceFile) -> str:
    """The cursor of the page that follows ``last``: its workspace and relative path."""
    raw = json.dumps([str(last.workspace), last.rel_path], ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, folders: tuple[Path, ...]) -> tuple[int, str]:
    """A cursor's place: the index of its workspace in ``folders`` and the relative path of
    the last file before it. InvalidArgument for a cursor this server did not give out, or
    one in a folder no longer served."""
    refused = InvalidArgument(
        f"`cursor` {cursor!r} is not a cursor this server gave out. Pass the nextCursor of "
        "the previous page exactly, or leave cursor out to start from the first page.",
        argument="cursor",
    )
    if not isinstance(cursor, str) or not cursor or len(cursor) > 16_384:
        raise refused
    try:
        raw = base64.urlsafe_b64decode(cursor.encode("ascii") + b"=" * (-len(cursor) % 4))
        workspace, rel_path = json.loads(raw.decode("utf-8"))
    except (UnicodeError, ValueError, binascii.Error, TypeError):
        raise refused from None
    if not isinstance(workspace, str) or not isinstance(rel_path, str):
        raise refused
    try:
        return folders.index(Path(workspace)), rel_path
    except ValueError:
        raise InvalidArgument(
            f"`cursor` points into the folder '{workspace}', which is no longer served. "
            "Leave cursor out to list the files from the first page.",
            argument="cursor",
        ) from None


def _note(walk: _Walk) -> str | None:
    parts: list[str] = []
    if walk.budget_cut:
        parts.append(
            f"The listing stopped after reading {walk.max_entries:,} folder entries, so files in "
            "folders it had not reached yet are missing; serve a smaller folder to list them all."
        )
    if walk.depth_cut:
        parts.append(
            f"Folders nested more than {walk.max_depth} levels below a workspace were not "
            "entered, so the files in them are missing."
        )
    if walk.unreadable:
        first = walk.unreadable[0]
        more = len(walk.unreadable) - 1
        others = f" and {more:,} more" if more else ""
        parts.append(
            f"The folder {first.path} ({first.reason}){others} could not be read, so the files "
            "in them are missing; fix their permissions to list them."
        )
    if walk.undecodable:
        parts.append(
            f"{walk.undecodable:,} name(s) are not UTF-8 text and were left out; rename them "
            "to list them."
        )
    return " ".join(parts) if parts else None
