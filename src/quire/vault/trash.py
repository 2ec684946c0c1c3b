"""The trash of a workspace: deleted files and folders, restorable for 30 days.

The trash is the hidden folder ``.quire/trash`` inside the workspace (so a delete is one rename
on the same disk, never a copy, and hidden folders are never listed, searched or served). Each
entry is a folder ``<ms>-<hex>`` holding ``entry.json`` (where it came from, when) and the
deleted item under its own name. Reached through the same descriptor walk as every file.
Blocking: call from a worker thread.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from quire.core.errors import FileMissing, InvalidArgument, PathRefused, QuireError
from quire.fs.atomic import write_at
from quire.fs.folders import AllowedFolders
from quire.fs.moves import remove_at, rename_noreplace
from quire.fs.safeio import read_at
from quire.vault.files import reach_entry, reach_new

__all__ = [
    "KEEP_MS",
    "TRASH_PARTS",
    "TrashEntry",
    "check_entry_id",
    "empty_trash",
    "held_path",
    "list_trash",
    "restore_entry",
    "trash_entry",
]

TRASH_PARTS: Final = (".quire", "trash")
"""Where a workspace's trash lives, below the workspace."""
KEEP_MS: Final = 30 * 24 * 3600 * 1000
"""How long a deleted item stays restorable: 30 days."""
_ENTRY_FILE: Final = "entry.json"
_ID = re.compile(r"[0-9]{1,16}-[0-9a-f]{8}")


@dataclass(frozen=True)
class TrashEntry:
    """A deleted item: its id, workspace, original path, name, whether a folder, and when."""

    entry_id: str
    workspace: Path
    original: Path
    is_folder: bool
    deleted_at_ms: int


def trash_entry(folders: AllowedFolders, workspace: Path, path: Path, *, now_ms: int) -> TrashEntry:
    """Move the file or folder ``path`` (inside ``workspace``) to the workspace's trash."""
    src, info = reach_entry(folders, path, verb="delete")
    with src:
        if not src.path.is_relative_to(workspace):
            raise PathRefused(
                f"Refusing to delete '{path}': it is not inside the workspace '{workspace}'."
            )
        entry_id = f"{now_ms}-{secrets.token_hex(4)}"
        entry = TrashEntry(entry_id, workspace, src.path, stat.S_ISDIR(info.st_mode), now_ms)
        record = {
            "path": str(src.path.relative_to(workspace)),
            "isFolder": entry.is_folder,
            "deletedAtMs": now_ms,
        }
        with _trash(workspace).reach(
            _entry_folder(workspace, entry_id) / src.name,
            verb="delete",
            follow_final=False,
            make_folders=True,
        ) as dst:
            payload = json.dumps(record, ensure_ascii=False).encode("utf-8")
            write_at(dst.folder, _ENTRY_FILE, payload, overwrite=False, shown=path)
            rename_noreplace((src.folder, src.name), (dst.folder, dst.name), shown=path, to=path)
        return entry


def list_trash(workspace: Path) -> list[TrashEntry]:
    """The workspace's trash entries, newest first (entries that cannot be read are skipped)."""
    base = workspace.joinpath(*TRASH_PARTS)
    allowed = _trash(workspace)
    try:
        spot = allowed.reach(base / "x", verb="list the trash of")
    except (FileMissing, PathRefused):
        return []
    entries: list[TrashEntry] = []
    with spot:
        try:
            names = os.listdir(spot.folder)  # noqa: PTH208 (a descriptor, not a path)
        except OSError:
            return []
        for name in names:
            entry = _read_entry(allowed, workspace, name)
            if entry is not None:
                entries.append(entry)
    return sorted(entries, key=lambda item: (-item.deleted_at_ms, item.entry_id))


def restore_entry(folders: AllowedFolders, entry: TrashEntry, *, to: Path | None = None) -> Path:
    """Put the trashed item back where it was (or at ``to``, a new name judged as a move's
    is), never replacing anything; the folders on the way are made again when missing.
    Returns where it is now."""
    target = to or entry.original
    held = held_path(entry)
    with _trash(entry.workspace).reach(held, verb="restore", follow_final=False) as src:
        if src.lstat() is None:
            raise FileMissing(f"Cannot restore '{entry.original}': its trash entry is empty.")
        if to is None:
            # Where it was: its name passed the rules when it was made (or is the person's own).
            spot = folders.reach(target, verb="restore", follow_final=False, make_folders=True)
        else:
            spot = reach_new(folders, target, verb="restore", make=True)
        with spot as dst:
            rename_noreplace(
                (src.folder, src.name), (dst.folder, dst.name), shown=entry.original, to=target
            )
            restored = dst.path
        remove_at(src.folder, _ENTRY_FILE, shown=entry.original, missing_ok=True)
    _remove_entry(entry.workspace, entry.entry_id)
    return restored


def empty_trash(
    workspace: Path,
    *,
    older_than_ms: int | None = None,
    keep: Callable[[TrashEntry], bool] | None = None,
) -> int:
    """Remove trash entries for good: all, or those deleted before ``older_than_ms``; with
    ``keep``, only the entries it accepts (the others stay)."""
    removed = 0
    for entry in list_trash(workspace):
        if keep is not None and not keep(entry):
            continue
        if older_than_ms is None or entry.deleted_at_ms < older_than_ms:
            _remove_entry(workspace, entry.entry_id)
            removed += 1
    return removed


def held_path(entry: TrashEntry) -> Path:
    """Where the trashed item of ``entry`` is kept now (inside the trash)."""
    return _entry_folder(entry.workspace, entry.entry_id) / entry.original.name


def check_entry_id(entry_id: str) -> str:
    """``entry_id`` when it has the shape of a trash id, else InvalidArgument."""
    if not isinstance(entry_id, str) or _ID.fullmatch(entry_id) is None:
        raise InvalidArgument(
            f"{entry_id!r} is not a trash id. Run `quire trash list` for the ids.",
            argument="id",
        )
    return entry_id


def _remove_entry(workspace: Path, entry_id: str) -> None:
    base = workspace.joinpath(*TRASH_PARTS) / entry_id
    with _trash(workspace).reach(base, verb="empty the trash of", follow_final=False) as spot:
        remove_at(spot.folder, spot.name, shown=base, missing_ok=True)


def _read_entry(allowed: AllowedFolders, workspace: Path, name: str) -> TrashEntry | None:
    if _ID.fullmatch(name) is None:
        return None
    where = _entry_folder(workspace, name) / _ENTRY_FILE
    try:
        with allowed.reach(where, verb="read the trash of") as spot:
            raw = read_at(spot.folder, spot.name, limit=65_536, what="file", shown=where)
            record = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, QuireError):
        return None  # a broken or unreadable record: the entry is skipped
    rel = record.get("path") if isinstance(record, dict) else None
    at = record.get("deletedAtMs") if isinstance(record, dict) else None
    if not isinstance(rel, str) or not isinstance(at, int) or rel.startswith(("/", "..")):
        return None
    return TrashEntry(name, workspace, workspace / rel, bool(record.get("isFolder")), at)


def _entry_folder(workspace: Path, entry_id: str) -> Path:
    return workspace.joinpath(*TRASH_PARTS, entry_id)


def _trash(workspace: Path) -> AllowedFolders:
    """The workspace as the one allowed folder, hidden folders reachable (the trash is one)."""
    return AllowedFolders((workspace,), hidden_folders=True)
