"""Turn an operating-system error on a user's file into a Quire error a person can act on.

Owns the wording of OS failures for the file layer; it never touches the disk itself.
"""

from __future__ import annotations

import errno
from pathlib import Path

from quire.core.errors import FileMissing, PathRefused, QuireError, StorageFailed, StorageFull

_HINTS: dict[int, str] = {
    errno.EACCES: "Check the permissions of the file and of its folders.",
    errno.EPERM: "Check the permissions of the file and of its folders.",
    errno.ENOSPC: "Free some disk space, then try again.",
    errno.EDQUOT: "Free some space within your disk quota, then try again.",
    errno.EROFS: "The file system is read-only; pick a folder on a writable disk.",
    errno.ENAMETOOLONG: "Use a shorter file name or a shallower folder.",
    errno.EIO: "The disk reported an input/output error; check the disk, then try again.",
}

_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def reason(exc: OSError) -> str:
    """The OS reason in words, with its error code: ``permission denied (EACCES)``."""
    text = (exc.strerror or str(exc)).rstrip(".")
    text = text[:1].lower() + text[1:]
    code = errno.errorcode.get(exc.errno) if exc.errno is not None else None
    return f"{text} ({code})" if code else text


def storage_failed(exc: OSError, *, doing: str, path: Path, after: str = "") -> StorageFailed:
    """``Cannot <doing> '<path>': <reason>. <after><hint>`` as a StorageFailed (a StorageFull
    when the disk or the quota has no space left)."""
    hint = _HINTS.get(exc.errno or 0, "")
    tail = " ".join(part for part in (after, hint) if part)
    message = f"Cannot {doing} '{path}': {reason(exc)}."
    cls = StorageFull if exc.errno in _NO_SPACE else StorageFailed
    return cls(f"{message} {tail}" if tail else message)


def open_failed(exc: OSError, *, doing: str, path: Path, what: str) -> QuireError:
    """Map a failed open or stat of a file to the Quire error that says what to do next."""
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return FileMissing(
            f"Cannot {doing} '{path}': the {what} does not exist. "
            "Check the path (absolute, or relative to the working directory)."
        )
    if exc.errno == errno.ELOOP:
        return PathRefused(
            f"Refusing to {doing} '{path}': it is a symbolic link (or a loop of links), "
            "and Quire opens only the file a checked path names. Pass the path of the file itself."
        )
    return storage_failed(exc, doing=doing, path=path)
