"""A user's files beneath the allowed folders: find, read, write, create and delete them.

The only way Quire touches a user's file. Each operation walks from the allowed folder's
descriptor to the file's folder (``AllowedFolders.reach``), judges the names it reached (the
name given and the real one, by a :class:`FileKind`'s rule), and then reads, writes or deletes
relative to that folder's descriptor, so nothing swapped in after the walk is followed. A file
remembers the identity of its folder (:class:`FoundFile`), so a later write can refuse a folder
that was replaced meanwhile instead of writing into whatever now has its name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import FileMissing, PathRefused
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs.anchored import Spot
from quire.fs.atomic import check_document_text, encode_text, write_at
from quire.fs.encoding import decode_utf8
from quire.fs.folders import AllowedFolders
from quire.fs.oserror import storage_failed
from quire.fs.safeio import read_at
from quire.fs.sandbox import (
    document_rule,
    file_kind,
    is_document_name,
    is_dotfile_name,
    participle,
)

__all__ = [
    "ANY_FILE",
    "DOCUMENT",
    "FileKind",
    "FoundFile",
    "delete_file",
    "find_file",
    "read_document",
    "read_file",
    "write_document",
    "write_file",
]


@dataclass(frozen=True)
class FileKind:
    """Which names an operation takes: ``accepts`` judges a name, ``rule`` says the rule."""

    what: str
    accepts: Callable[[str], bool]
    rule: Callable[[str], str]


DOCUMENT = FileKind("file", is_document_name, document_rule)
"""Markdown documents that are not dotfiles."""

ANY_FILE = FileKind(
    "file",
    lambda name: not is_dotfile_name(name),
    lambda verb: f"dotfiles cannot be {participle(verb)}",
)
"""Any file that is not a dotfile (pictures, exports): the caller judges its type."""


@dataclass(frozen=True)
class FoundFile:
    """A user's file as a walk found it: its path (links resolved) and its folder's identity."""

    path: Path
    folder: tuple[int, int]
    """(device, inode) of the folder holding the file when it was found."""


def find_file(
    folders: AllowedFolders, path: Path, *, verb: str = "read", kind: FileKind = DOCUMENT
) -> FoundFile:
    """The existing regular file ``path`` names, judged by ``kind`` (name given and real).

    Raises PathRefused (the rule, outside, hidden folder, a folder or special file),
    FileMissing or StorageFailed.
    """
    with _reach(folders, path, verb, kind) as spot:
        _require_regular(spot, verb)
        return FoundFile(spot.path, spot.folder_identity())


def read_file(
    folders: AllowedFolders,
    path: Path,
    *,
    verb: str = "read",
    kind: FileKind = DOCUMENT,
    limit: int = MAX_DOCUMENT_BYTES,
) -> tuple[FoundFile, bytes]:
    """Read the file ``path`` names whole, from its folder's descriptor (see find_file)."""
    with _reach(folders, path, verb, kind) as spot:
        data = read_at(spot.folder, spot.name, limit=limit, what=kind.what, shown=path)
        return FoundFile(spot.path, spot.folder_identity()), data


def read_document(folders: AllowedFolders, path: Path) -> tuple[FoundFile, str]:
    """Read a Markdown document as text (UTF-8 checked; a BOM is kept)."""
    found, data = read_file(folders, path)
    return found, decode_utf8(data, path=path)


def write_file(
    folders: AllowedFolders,
    path: Path,
    data: bytes | str,
    *,
    kind: FileKind = DOCUMENT,
    overwrite: bool = True,
    folder: tuple[int, int] | None = None,
    make_folders: bool = False,
    mode: int | None = None,
    verb: str = "write",
) -> FoundFile:
    """Write ``data`` as the file ``path`` names, atomically, in the folder the walk reached.

    A symlink at ``path`` itself is replaced, never written through; links on the way are
    followed only inside the allowed folders. ``folder``, when given, is the identity the
    file's folder had when it was found: a different folder there now is refused (the folder
    was replaced since), and nothing is written. With ``make_folders`` missing folders on the
    way are created. See ``quire.fs.atomic.write_at`` for the write itself.
    """
    payload = check_document_text(data, path) if isinstance(data, str) else encode_text(data, path)
    with _reach(folders, path, verb, kind, follow_final=False, make_folders=make_folders) as spot:
        identity = spot.folder_identity()
        if folder is not None and identity != folder:
            raise PathRefused(
                f"Refusing to {verb} '{path}': its folder was replaced since the file was "
                "opened (it is another folder now, maybe a link to somewhere else), so nothing "
                "was written. Reopen the file from where it is now, then try again."
            )
        write_at(spot.folder, spot.name, payload, overwrite=overwrite, mode=mode, shown=path)
        return FoundFile(spot.path, identity)


def write_document(
    folders: AllowedFolders,
    path: Path,
    text: str,
    *,
    overwrite: bool = True,
    folder: tuple[int, int] | None = None,
    make_folders: bool = False,
) -> FoundFile:
    """Write a Markdown document (at most 16 MiB of UTF-8); see write_file."""
    return write_file(
        folders, path, text, overwrite=overwrite, folder=folder, make_folders=make_folders
    )


def delete_file(
    folders: AllowedFolders, path: Path, *, verb: str = "delete", kind: FileKind = DOCUMENT
) -> bool:
    """Delete the file ``path`` names (a link on the way is followed inside only); False when
    nothing was there. A folder or special file is refused."""
    try:
        spot = _reach(folders, path, verb, kind)
    except FileMissing:
        return False
    with spot:
        info = spot.lstat()
        if info is None:
            return False
        _require_regular(spot, verb, info)
        try:
            os.unlink(spot.name, dir_fd=spot.folder)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise storage_failed(exc, doing=verb, path=path) from None
    return True


def _reach(
    folders: AllowedFolders,
    path: Path,
    verb: str,
    kind: FileKind,
    *,
    follow_final: bool = True,
    make_folders: bool = False,
) -> Spot:
    folders.require_placed(path, verb=verb)
    if not kind.accepts(path.name):
        raise PathRefused(f"Refusing to {verb} '{path}': {kind.rule(verb)}.")
    spot = folders.reach(path, verb=verb, follow_final=follow_final, make_folders=make_folders)
    if follow_final and spot.links and spot.lstat() is None:
        spot.close()
        raise FileMissing(
            f"Cannot {verb} '{path}': it is a symbolic link to a file that does not exist "
            f"('{spot.path}'). Fix or remove the link, or pass the path of an existing file."
        )
    if not kind.accepts(spot.name):
        spot.close()
        raise PathRefused(
            f"Refusing to {verb} '{path}': it is a symbolic link to '{spot.path}', and "
            f"{kind.rule(verb)}."
        )
    return spot


def _require_regular(spot: Spot, verb: str, info: os.stat_result | None = None) -> None:
    info = info if info is not None else spot.lstat()
    if info is None:
        raise FileMissing(
            f"Cannot {verb} '{spot.given}': the file does not exist. Check the path "
            "(absolute, or relative to the working directory)."
        )
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise PathRefused(
            f"Refusing to {verb} '{spot.given}': it is a folder, not a document. Pass the path "
            "of a file inside it."
        )
    raise PathRefused(
        f"Refusing to {verb} '{spot.given}': it is {file_kind(mode)}, not a regular file; "
        f"only regular files can be {participle(verb)}."
    )
