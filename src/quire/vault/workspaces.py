"""The served folders: which workspace holds a path, and a paginated listing of their documents.

Walks folders with scandir and stat only; it never reads a document's content (``quire.fs``
does) and never decides which folders are served (the caller passes them in).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from quire.core.errors import InvalidArgument
from quire.fs.sandbox import is_document_name, resolve_folder

MAX_DEPTH = 32
"""Folders deeper than this many levels below a workspace are not entered."""

MAX_ENTRIES = 200_000
"""The most folder entries one listing reads, across every workspace."""

PAGE_LIMIT = (1, 1000, 100)
"""How many files one page may hold: least, most and default."""

SKIPPED_FOLDERS = frozenset({"node_modules"})


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
class _Walk:
    """What one walk found, and what it could not list."""

    files: list[WorkspaceFile] = field(default_factory=list)
    entries: int = 0
    depth_cut: bool = False
    budget_cut: bool = False
    undecodable: int = 0


class Workspaces:
    """The folders the server serves, resolved through symlinks, in the order given."""

    def __init__(self, folders: Iterable[Path]) -> None:
        resolved: list[Path] = []
        for folder in folders:
            checked = resolve_folder(folder)
            if checked not in resolved:
                resolved.append(checked)
        self._folders = tuple(resolved)

    @property
    def folders(self) -> tuple[Path, ...]:
        """The served folders, resolved, without duplicates."""
        return self._folders

    def workspace_of(self, path: Path) -> Path | None:
        """The innermost served folder holding ``path`` (resolved through symlinks), or None."""
        resolved = Path(os.path.realpath(path))
        holding = [folder for folder in self._folders if resolved.is_relative_to(folder)]
        return max(holding, key=lambda folder: len(folder.parts), default=None)

    def list_files(self, cursor: str | None = None, limit: int = PAGE_LIMIT[2]) -> FilePage:
        """One page of every Markdown document (not a dotfile) in the served folders.

        Hidden folders, ``node_modules`` and symlinked folders are not entered; a file symlink
        is listed when the file it resolves to is a Markdown document. Files are ordered by
        workspace, then by relative path, so a cursor (from ``next_cursor``) picks up after the
        last file of its page even when files were added or removed meanwhile. A walk that has
        to stop (past ``MAX_ENTRIES`` entries, or folders deeper than ``MAX_DEPTH``) says so
        with ``truncated`` and a ``note``; file names that are not UTF-8 are counted there too.
        Blocking: call it from a worker thread. Raises InvalidArgument for a bad cursor or limit.
        """
        low, high, _ = PAGE_LIMIT
        if isinstance(limit, bool) or not isinstance(limit, int) or not low <= limit <= high:
            raise InvalidArgument(
                f"`limit` must be a whole number from {low} to {high:,}, got {limit!r}.",
                argument="limit",
            )
        after = None if cursor is None else self._decode_cursor(cursor)
        ordered, walk = self._walk()
        order = {folder: index for index, folder in enumerate(self._folders)}
        start = 0
        if after is not None:
            start = next(
                (
                    index
                    for index, item in enumerate(ordered)
                    if (order[item.workspace], item.rel_path) > after
                ),
                len(ordered),
            )
        page = ordered[start : start + limit]
        more = start + limit < len(ordered)
        next_cursor = _encode_cursor(page[-1]) if more and page else None
        truncated = walk.budget_cut or walk.depth_cut
        return FilePage(page, next_cursor, len(ordered), truncated=truncated, note=_note(walk))

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
            _walk_folder(folder, folder, 0, nested, walk)
        order = {folder: index for index, folder in enumerate(self._folders)}
        return sorted(walk.files, key=lambda item: (order[item.workspace], item.rel_path)), walk

    def _decode_cursor(self, cursor: str) -> tuple[int, str]:
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
            position = self._folders.index(Path(workspace))
        except ValueError:
            raise InvalidArgument(
                f"`cursor` points into the folder '{workspace}', which is no longer served. "
                "Leave cursor out to list the files from the first page.",
                argument="cursor",
            ) from None
        return position, rel_path


def _walk_folder(
    workspace: Path, folder: Path, depth: int, nested: tuple[Path, ...], walk: _Walk
) -> None:
    for entry in _entries(folder, walk):
        name = entry.name
        if name.startswith("."):
            continue
        if not _is_utf8(name):
            walk.undecodable += 1
            continue
        path = Path(entry.path)
        if _is_real_folder(entry):
            if name in SKIPPED_FOLDERS or path in nested:
                continue
            if depth >= MAX_DEPTH:
                walk.depth_cut = True
                continue
            _walk_folder(workspace, path, depth + 1, nested, walk)
        elif is_document_name(name):
            listed = _document(workspace, path)
            if listed is not None:
                walk.files.append(listed)


def _entries(folder: Path, walk: _Walk) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                if walk.entries >= MAX_ENTRIES:
                    walk.budget_cut = True
                    return
                walk.entries += 1
                yield entry
    except OSError:
        # A folder that vanished or cannot be read has no documents to list.
        return


def _is_real_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _document(workspace: Path, path: Path) -> WorkspaceFile | None:
    try:
        target = Path(os.path.realpath(path, strict=True))
        info = target.stat()
    except (OSError, RuntimeError):
        return None
    if not stat.S_ISREG(info.st_mode) or not is_document_name(target.name):
        return None
    return WorkspaceFile(
        path=path,
        workspace=workspace,
        rel_path=path.relative_to(workspace).as_posix(),
        mtime_ms=info.st_mtime_ns // 1_000_000,
        size=info.st_size,
    )


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _encode_cursor(last: WorkspaceFile) -> str:
    raw = json.dumps([str(last.workspace), last.rel_path], ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def _note(walk: _Walk) -> str | None:
    parts: list[str] = []
    if walk.budget_cut:
        parts.append(
            f"The listing stopped after reading {MAX_ENTRIES:,} folder entries, so files in "
            "folders it had not reached yet are missing; serve a smaller folder to list them all."
        )
    if walk.depth_cut:
        parts.append(
            f"Folders nested more than {MAX_DEPTH} levels below a workspace were not entered, "
            "so the files in them are missing."
        )
    if walk.undecodable:
        parts.append(
            f"{walk.undecodable:,} name(s) are not UTF-8 text and were left out; rename them "
            "to list them."
        )
    return " ".join(parts) if parts else None
