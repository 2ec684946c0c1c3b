"""File operations in the workspaces: create a note or a folder, rename, move, copy, upload.

Each operation walks to both ends from the allowed folders' descriptors
(``AllowedFolders.reach``, final names never followed), judges the new name
(``quire.fs.names``) and then works relative to the two folders' descriptors
(``quire.fs.moves``), so nothing is reached by a path string and nothing is overwritten.
Blocking: call from a worker thread. It knows nothing of open documents (services do).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import FileMissing, FileTooLarge, InvalidArgument, PathRefused
from quire.fs.anchored import Spot
from quire.fs.documents import ANY_FILE, write_file
from quire.fs.folders import AllowedFolders
from quire.fs.moves import CopyCount, copy_at, name_taken, remove_at, rename_noreplace
from quire.fs.names import check_name
from quire.fs.oserror import storage_failed
from quire.fs.temp_names import temp_name

__all__ = [
    "Moved",
    "copy_entry",
    "create_folder",
    "create_note",
    "move_entry",
    "reach_entry",
    "reach_new",
    "upload_file",
]

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Moved:
    """A rename or move done: the real paths before and after, and whether it was a folder."""

    source: Path
    target: Path
    is_folder: bool


def reach_entry(folders: AllowedFolders, path: Path, *, verb: str) -> tuple[Spot, os.stat_result]:
    """The existing file or folder ``path`` names (the final name not followed: a link is the
    link itself), with its status. Refuses a dotfile, an allowed folder itself, nothing there."""
    if path.name.startswith("."):
        raise PathRefused(f"Refusing to {verb} '{path}': dotfiles are hidden and never served.")
    if path.is_absolute() and Path(os.path.normpath(path)) in folders.folders:
        raise PathRefused(
            f"Refusing to {verb} '{path}': it is a served or allowed folder itself. Pick a file "
            "or folder inside it."
        )
    spot = folders.reach(path, verb=verb, follow_final=False)
    info = spot.lstat()
    if info is None:
        spot.close()
        raise FileMissing(f"Cannot {verb} '{path}': nothing is there. Check the path.")
    if spot.name.startswith("."):
        spot.close()
        raise PathRefused(f"Refusing to {verb} '{path}': dotfiles are hidden and never served.")
    return spot, info


def reach_new(folders: AllowedFolders, path: Path, *, verb: str, make: bool = False) -> Spot:
    """The spot of a new name ``path`` (its folder must exist unless ``make``); the name is
    judged by ``quire.fs.names``. The caller closes the spot."""
    check_name(path.name, argument="to", verb=verb)
    hidden = next(
        (part for part in path.parts[1:-1] if part.startswith(".") and part not in (".", "..")),
        None,
    )
    if hidden is not None:
        raise PathRefused(
            f"Refusing to {verb} '{path}': it is inside the hidden folder '{hidden}', which "
            "Quire never writes into. Pick a folder that is not hidden."
        )
    spot = folders.reach(path, verb=verb, follow_final=False, make_folders=make)
    check_name(spot.name, argument="to", verb=verb)
    return spot


def move_entry(folders: AllowedFolders, source: Path, target: Path) -> Moved:
    """Rename or move the file or folder ``source`` to the new path ``target``, never
    replacing anything (NameTaken), a folder never into itself (PathRefused)."""
    src, info = reach_entry(folders, source, verb="move")
    with src:
        is_folder = stat.S_ISDIR(info.st_mode)
        with reach_new(folders, target, verb="move") as dst:
            if is_folder and dst.path.is_relative_to(src.path):
                raise PathRefused(
                    f"Refusing to move '{source}' to '{target}': a folder cannot go inside "
                    "itself. Pick a destination outside it."
                )
            if src.path == dst.path:
                raise InvalidArgument(
                    f"'{source}' is already at '{target}'; nothing to move.", argument="to"
                )
            rename_noreplace(
                (src.folder, src.name), (dst.folder, dst.name), shown=source, to=target
            )
            _sync(src.folder, dst.folder)
            return Moved(src.path, dst.path, is_folder)


def copy_entry(folders: AllowedFolders, source: Path, target: Path) -> tuple[Path, CopyCount]:
    """Copy the file or folder ``source`` to the new path ``target`` (see ``copy_at``)."""
    src, info = reach_entry(folders, source, verb="copy")
    with src, reach_new(folders, target, verb="copy") as dst:
        if stat.S_ISDIR(info.st_mode) and dst.path.is_relative_to(src.path):
            raise PathRefused(
                f"Refusing to copy '{source}' into itself ('{target}'). Pick a destination "
                "outside it."
            )
        count = copy_at((src.folder, src.name), (dst.folder, dst.name), shown=source, to=target)
        _sync(dst.folder, dst.folder)
        return dst.path, count


def create_note(folders: AllowedFolders, path: Path, text: str) -> Path:
    """Create the Markdown note ``path`` holding ``text``; never replaces one (NameTaken).
    Missing folders on the way are created."""
    check_name(path.name, argument="path", verb="create")
    found = write_file(folders, path, text, overwrite=False, make_folders=True, verb="create")
    return found.path


def create_folder(folders: AllowedFolders, path: Path) -> Path:
    """Create the folder ``path`` (its parents too); NameTaken when the name is taken."""
    with reach_new(folders, path, verb="create", make=True) as spot:
        try:
            os.mkdir(spot.name, 0o755, dir_fd=spot.folder)
        except FileExistsError:
            raise name_taken(path) from None
        except OSError as exc:
            raise storage_failed(exc, doing="create the folder", path=path) from None
        return spot.path


def upload_file(
    folders: AllowedFolders, path: Path, chunks: Iterable[bytes], *, limit: int
) -> tuple[Path, int]:
    """Write the uploaded bytes ``chunks`` as the new file ``path`` (not a dotfile), streamed
    through a temp file published without replacing anything; at most ``limit`` bytes."""
    check_name(path.name, argument="path", verb="upload")
    if not ANY_FILE.accepts(path.name):
        raise PathRefused(f"Refusing to upload '{path}': dotfiles are never served.")
    with reach_new(folders, path, verb="upload", make=True) as spot:
        temp = temp_name(spot.name)
        try:
            fd = os.open(temp, _TEMP_FLAGS, 0o644, dir_fd=spot.folder)
        except OSError as exc:
            raise storage_failed(exc, doing="upload", path=path) from None
        size = 0
        try:
            try:
                for chunk in chunks:
                    size += len(chunk)
                    if size > limit:
                        raise FileTooLarge(
                            f"Refusing to upload '{path}': it is more than the {limit:,} bytes "
                            "an upload may hold. Upload a smaller file."
                        )
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(fd, view) :]
                os.fchmod(fd, 0o644)
                os.fsync(fd)
            finally:
                os.close(fd)
            rename_noreplace((spot.folder, temp), (spot.folder, spot.name), shown=path, to=path)
        except BaseException:
            remove_at(spot.folder, temp, shown=path, missing_ok=True)
            raise
        _sync(spot.folder, spot.folder)
        return spot.path, size


def _sync(*folders: int) -> None:
    for folder in dict.fromkeys(folders):
        try:
            os.fsync(folder)
        except OSError:
            continue
