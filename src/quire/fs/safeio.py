"""Safe reads of files: regular files only, no final symlink followed, no FIFO waited on.

Reads take regular files only, by path (Quire's own files) or relative to an open folder
(``read_at``, which ``quire.fs.documents`` uses for a user's files), within a size limit;
writes (from ``atomic``) are temp file + rename. Path rules live in ``sandbox`` and
``anchored``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from quire.core.errors import FileTooLarge, PathRefused
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.fs.atomic import write_atomic
from quire.fs.encoding import decode_utf8
from quire.fs.oserror import open_failed, storage_failed
from quire.fs.sandbox import file_kind

__all__ = ["decode_utf8", "read_at", "read_regular_bytes", "write_atomic"]

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1024 * 1024


def read_regular_bytes(path: Path, *, limit: int = MAX_DOCUMENT_BYTES, what: str = "file") -> bytes:
    """Read a regular file whole, refusing anything else, without blocking.

    The final component must not be a symlink (O_NOFOLLOW); a FIFO, device, socket or folder is
    refused from its type without ever waiting on it. A file larger than ``limit`` bytes is
    refused before it is read, and so is one that grows past it while being read. ``what``
    names the file in messages ("session file").

    Raises PathRefused, FileMissing, FileTooLarge or StorageFailed (with the OS reason).
    """
    _refuse_special(path, what)
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise open_failed(exc, doing="read", path=path, what=what) from None
    try:
        return _read_descriptor(fd, path, limit=limit, what=what)
    finally:
        os.close(fd)


def read_at(folder: int, name: str, *, limit: int, what: str, shown: Path) -> bytes:
    """Read the regular file ``name`` of the open folder ``folder`` whole, as bytes.

    Like :func:`read_regular_bytes`, relative to the folder's descriptor: a symlink at ``name``
    is not followed (the walk that found the folder resolved links already), a FIFO or device
    is refused without waiting on it. ``shown`` is the path messages name.
    """
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError as exc:
        raise open_failed(exc, doing="read", path=shown, what=what) from None
    if not stat.S_ISREG(mode):
        if stat.S_ISLNK(mode):
            raise _swapped(shown)
        raise _not_regular(shown, mode, what)
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _swapped(shown) from None
        raise open_failed(exc, doing="read", path=shown, what=what) from None
    try:
        return _read_descriptor(fd, shown, limit=limit, what=what)
    finally:
        os.close(fd)


def _refuse_special(path: Path, what: str) -> None:
    # A look before the open, so a device is never opened at all (opening some has effects);
    # the fstat after the open is what the read relies on.
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise _not_regular(path, mode, what)


def _read_descriptor(fd: int, path: Path, *, limit: int, what: str) -> bytes:
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode, what)
        if info.st_size > limit:
            raise _too_large(path, f"the {what} is {size_words(info.st_size)}, more than", limit)
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise storage_failed(exc, doing="read", path=path) from None
    if total > limit:
        raise _too_large(path, f"the {what} grew while it was being read, past", limit)
    return b"".join(chunks)


def _swapped(path: Path) -> PathRefused:
    return PathRefused(
        f"Refusing to read '{path}': the file was replaced by a symbolic link while it was "
        "being opened. Check what changed it, then try again."
    )


def _not_regular(path: Path, mode: int, what: str) -> PathRefused:
    return PathRefused(
        f"Refusing to read '{path}': it is {file_kind(mode)}, not a regular file; only regular "
        f"files are read. Pass the path of a {what} that holds text."
    )


def _too_large(path: Path, detail: str, limit: int) -> FileTooLarge:
    return FileTooLarge(
        f"Refusing to read '{path}': {detail} the {size_words(limit)} limit, so it was not "
        "read. Split it into smaller files."
    )
