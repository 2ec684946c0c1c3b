"""Renaming, copying and removing a name between two open folders, never replacing anything.

Every call works relative to folder descriptors a walk (``quire.fs.anchored``) reached, never
on path strings. A rename never replaces what holds the destination name: on Linux it is one
``renameat2(RENAME_NOREPLACE)`` call; where that call or flag is missing (other systems, some
file systems) a file is published with ``link`` + ``unlink`` (the link fails when the name is
taken) and a folder is renamed after a check (a folder created in the instant between is the
one case that call cannot refuse; ``rename`` then fails rather than replace a non-empty one).
A case-only rename of the same file on a case-insensitive disk is allowed (it replaces itself).
Copies stream through a temp name that is published the same no-replace way, so a copy appears
whole or not at all; symbolic links and special files inside a copied folder are left out.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from quire.core.errors import NameTaken, PathRefused
from quire.fs.oserror import storage_failed
from quire.fs.sandbox import file_kind
from quire.fs.temp_names import is_temp_name, temp_name

__all__ = [
    "NO_REPLACE",
    "CopyCount",
    "copy_at",
    "name_taken",
    "open_read",
    "remove_at",
    "rename_noreplace",
]

RENAME_NOREPLACE: Final = 1
CHUNK: Final = 1 << 20
"""How many bytes a copy or a stream moves at a time."""
MAX_COPY_DEPTH: Final = 64
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_UNSUPPORTED = (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP)
_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK)


def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    except OSError:
        return None
    call = getattr(libc, "renameat2", None)
    if call is None:
        return None
    call.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    call.restype = ctypes.c_int
    return call  # type: ignore[no-any-return]


_RENAMEAT2 = _renameat2()
NO_REPLACE: Final[Literal["renameat2", "link"]] = "renameat2" if _RENAMEAT2 else "link"
"""How this system renames without replacing: ``renameat2`` (Linux) or ``link`` + ``unlink``."""


@dataclass(frozen=True)
class CopyCount:
    """What a copy made: files and folders copied, bytes, and entries left out (links,
    special files, Quire's temp files)."""

    files: int = 0
    folders: int = 0
    size: int = 0
    skipped: int = 0

    def __add__(self, other: CopyCount) -> CopyCount:
        return CopyCount(
            self.files + other.files,
            self.folders + other.folders,
            self.size + other.size,
            self.skipped + other.skipped,
        )


def rename_noreplace(
    source: tuple[int, str], target: tuple[int, str], *, shown: Path, to: Path
) -> None:
    """Rename ``source`` (folder descriptor, name) to ``target`` unless the target name is
    taken (NameTaken); a case-only rename of the same file is allowed. ``shown``/``to`` are
    the paths messages name. Raises StorageFailed for what the OS refuses."""
    src_dir, src_name = source
    dst_dir, dst_name = target
    if _is_same_file_renamed(source, target):
        _plain_rename(source, target, shown)
        return
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(src_dir, os.fsencode(src_name), dst_dir, os.fsencode(dst_name), 1) == 0:
            return
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise name_taken(to)
        if code not in _UNSUPPORTED:
            raise _rename_failed(OSError(code, os.strerror(code)), shown, to)
    _rename_by_link(source, target, shown, to)


def _rename_by_link(
    source: tuple[int, str], target: tuple[int, str], shown: Path, to: Path
) -> None:
    """The no-replace rename without renameat2: link + unlink for a file, a checked rename
    for a folder."""
    src_dir, src_name = source
    dst_dir, dst_name = target
    info = _lstat(src_dir, src_name, shown)
    if stat.S_ISDIR(info.st_mode):
        if _exists(dst_dir, dst_name, to):
            raise name_taken(to)
        _plain_rename(source, target, shown, folder=True)
        return
    try:
        os.link(src_name, dst_name, src_dir_fd=src_dir, dst_dir_fd=dst_dir, follow_symlinks=False)
    except FileExistsError:
        raise name_taken(to) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise _rename_failed(exc, shown, to) from None
        if _exists(dst_dir, dst_name, to):
            raise name_taken(to) from None
        _plain_rename(source, target, shown)
        return
    try:
        os.unlink(src_name, dir_fd=src_dir)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(dst_name, dir_fd=dst_dir)
        raise _rename_failed(exc, shown, to) from None


def copy_at(
    source: tuple[int, str], target: tuple[int, str], *, shown: Path, to: Path
) -> CopyCount:
    """Copy the file or folder tree ``source`` to the new name ``target`` (never replacing
    one), streamed, through a temp name published whole. Links are not followed: a link
    inside a folder is left out, and ``source`` itself must not be one."""
    src_dir, src_name = source
    dst_dir, dst_name = target
    info = _lstat(src_dir, src_name, shown)
    if _exists(dst_dir, dst_name, to):
        raise name_taken(to)
    temp = temp_name(dst_name)
    try:
        if stat.S_ISDIR(info.st_mode):
            count = _copy_tree(source, (dst_dir, temp), shown, depth=0)
        elif stat.S_ISREG(info.st_mode):
            count = CopyCount(files=1, size=_copy_file(source, (dst_dir, temp), shown))
        else:
            raise PathRefused(
                f"Refusing to copy '{shown}': it is {file_kind(info.st_mode)}; only files and "
                "folders are copied."
            )
        rename_noreplace((dst_dir, temp), target, shown=shown, to=to)
    except BaseException:
        remove_at(dst_dir, temp, shown=to, missing_ok=True)
        raise
    return count


def remove_at(folder: int, name: str, *, shown: Path, missing_ok: bool = False) -> None:
    """Remove ``name`` (a file, a link itself, or a whole folder tree, links never followed)."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(name, dir_fd=folder)
        else:
            os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        if not missing_ok:
            raise storage_failed(
                OSError(errno.ENOENT, "no such file"), doing="remove", path=shown
            ) from None
    except OSError as exc:
        raise storage_failed(exc, doing="remove", path=shown) from None


def open_read(folder: int, name: str, shown: Path) -> tuple[int, os.stat_result]:
    """Open the regular file ``name`` for reading without following a link; its descriptor
    and status (the caller closes it). PathRefused for anything but a regular file."""
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused(
                f"Refusing to read '{shown}': it is a symbolic link, which is not followed here."
            ) from None
        raise storage_failed(exc, doing="read", path=shown) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise PathRefused(
            f"Refusing to read '{shown}': it is {file_kind(info.st_mode)}, not a regular file."
        )
    return fd, info


def _copy_file(source: tuple[int, str], target: tuple[int, str], shown: Path) -> int:
    fd_in, info = open_read(*source, shown)
    try:
        try:
            fd_out = os.open(target[1], _TEMP_FLAGS, 0o600, dir_fd=target[0])
        except OSError as exc:
            raise storage_failed(exc, doing="copy", path=shown) from None
        try:
            size = _pump(fd_in, fd_out)
            os.fchmod(fd_out, stat.S_IMODE(info.st_mode))
            os.fsync(fd_out)
        except OSError as exc:
            raise storage_failed(exc, doing="copy", path=shown) from None
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    return size


def _pump(fd_in: int, fd_out: int) -> int:
    size = 0
    while chunk := os.read(fd_in, CHUNK):
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd_out, view) :]
        size += len(chunk)
    return size


def _copy_tree(
    source: tuple[int, str], target: tuple[int, str], shown: Path, depth: int
) -> CopyCount:
    if depth > MAX_COPY_DEPTH:
        raise PathRefused(
            f"Refusing to copy '{shown}': its folders nest more than {MAX_COPY_DEPTH} deep."
        )
    try:
        os.mkdir(target[1], 0o755, dir_fd=target[0])
        src = os.open(source[1], _FOLDER_FLAGS, dir_fd=source[0])
    except OSError as exc:
        raise storage_failed(exc, doing="copy", path=shown) from None
    count = CopyCount(folders=1)
    try:
        dst = os.open(target[1], _FOLDER_FLAGS, dir_fd=target[0])
        try:
            with os.scandir(src) as entries:
                names = sorted(
                    (
                        entry.name,
                        entry.is_dir(follow_symlinks=False),
                        entry.is_file(follow_symlinks=False),
                    )
                    for entry in entries
                )
            for name, is_dir, is_file in names:
                inner = shown / name
                if is_temp_name(name) or not (is_dir or is_file):
                    count += CopyCount(skipped=1)
                elif is_dir:
                    count += _copy_tree((src, name), (dst, name), inner, depth + 1)
                else:
                    count += CopyCount(files=1, size=_copy_file((src, name), (dst, name), inner))
        finally:
            os.close(dst)
    finally:
        os.close(src)
    return count


def _is_same_file_renamed(source: tuple[int, str], target: tuple[int, str]) -> bool:
    """Whether ``target`` already names ``source`` itself under another case (a
    case-insensitive disk): then a plain rename only changes the name's case."""
    if source[1] == target[1] or source[1].casefold() != target[1].casefold():
        return False
    try:
        a = os.stat(source[1], dir_fd=source[0], follow_symlinks=False)
        b = os.stat(target[1], dir_fd=target[0], follow_symlinks=False)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _plain_rename(
    source: tuple[int, str], target: tuple[int, str], shown: Path, *, folder: bool = False
) -> None:
    try:
        os.rename(source[1], target[1], src_dir_fd=source[0], dst_dir_fd=target[0])
    except OSError as exc:
        if folder and exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise name_taken(shown) from None
        raise _rename_failed(exc, shown, shown) from None


def _lstat(folder: int, name: str, shown: Path) -> os.stat_result:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError as exc:
        raise storage_failed(exc, doing="move", path=shown) from None


def _exists(folder: int, name: str, shown: Path) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise storage_failed(exc, doing="inspect", path=shown) from None
    return True


def name_taken(to: Path) -> NameTaken:
    """The refusal of a destination whose name is taken."""
    return NameTaken(
        f"Refusing to replace '{to}': something already has that name, and Quire never "
        "overwrites a file or folder. Pick another name, or move that one away first."
    )


def _rename_failed(exc: OSError, shown: Path, to: Path) -> Exception:
    if exc.errno == errno.EXDEV:
        return storage_failed(
            exc, doing="move", path=shown, after=f"'{to}' is on another disk; copy it instead."
        )
    if exc.errno == errno.EINVAL:
        return PathRefused(
            f"Refusing to move '{shown}' to '{to}': a folder cannot go inside itself."
        )
    return storage_failed(exc, doing="move", path=shown)
