"""Safe reads and writes of users' files: the only way Quire opens them.

Reads take regular files only, without following a final symlink or blocking on a FIFO, within
a size limit; writes (from ``atomic``) are temp file + rename. Path rules live in ``sandbox``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from quire.core.errors import FileTooLarge, PathRefused
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.fs.atomic import write_atomic, write_document
from quire.fs.encoding import decode_utf8
from quire.fs.oserror import open_failed, storage_failed
from quire.fs.sandbox import (
    CheckedDocument,
    file_kind,
    inspect_document,
)

__all__ = [
    "decode_utf8",
    "read_checked_document",
    "read_document",
    "read_regular_bytes",
    "write_atomic",
    "write_document",
]

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


def read_checked_document(checked: CheckedDocument, *, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """Read the exact file ``inspect_document`` checked, as bytes.

    Opens the resolved path without following a final symlink, and refuses a file whose device
    and inode differ from the checked ones: the file (or a folder above it) was swapped after
    the check.
    """
    try:
        fd = os.open(checked.resolved, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _swapped(checked.path) from None
        raise open_failed(exc, doing="read", path=checked.path, what="file") from None
    try:
        identity = (checked.device, checked.inode)
        return _read_descriptor(fd, checked.path, limit=limit, what="file", identity=identity)
    finally:
        os.close(fd)


def read_document(path: Path) -> str:
    """Read a Markdown document: the document rule, a safe read of that very file, then UTF-8.

    ``path`` must be absolute (see ``sandbox.expand_path``). The BOM, if any, is kept.
    Raises PathRefused, FileMissing, FileTooLarge, NotUtf8 or StorageFailed.
    """
    checked = inspect_document(path, verb="read")
    return decode_utf8(read_checked_document(checked), path=path)


def _refuse_special(path: Path, what: str) -> None:
    # A look before the open, so a device is never opened at all (opening some has effects);
    # the fstat after the open is what the read relies on.
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise _not_regular(path, mode, what)


def _read_descriptor(
    fd: int, path: Path, *, limit: int, what: str, identity: tuple[int, int] | None = None
) -> bytes:
    try:
        info = os.fstat(fd)
        if identity is not None and (info.st_dev, info.st_ino) != identity:
            raise _swapped(path)
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
        f"Refusing to read '{path}': the file was replaced (by a symbolic link or another "
        "file) between the check and the read. Check what changed it, then try again."
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
