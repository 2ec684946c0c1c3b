"""Resolving a path through its symbolic links, leniently, for where a path leads *now*.

On Linux the kernel resolves it: the path is opened with ``O_PATH`` (no read, no blocking on a
FIFO) and ``/proc/self/fd`` names what was opened, three system calls where
``os.path.realpath`` makes one ``lstat`` per component in Python (about 3x slower, and every
access check of a team server resolves a path). Anything that cannot be opened that way (a
path not there yet, a loop, a folder that cannot be searched, no ``/proc``) goes the portable
way.

``os.path.realpath`` raises OSError when a link on the way is swapped while it is resolved (a
racing writer in the workspace); here that gives the path as written instead. The answer only
names a place (which workspace holds a path, which key a chat has): every read and write still
walks from the allowed folder's descriptor (``quire.fs.anchored``), so a stale answer can make
a call fail, never escape.
"""

from __future__ import annotations

import os
from pathlib import Path

_ATTEMPTS = 3
_O_PATH = getattr(os, "O_PATH", 0)
_PROC_FDS = Path("/proc/self/fd")
_BY_DESCRIPTOR = bool(_O_PATH) and _PROC_FDS.is_dir()
_DELETED = " (deleted)"


def resolve_leniently(path: Path) -> Path:
    """``path`` with its links resolved as far as they exist (never raises)."""
    return Path(resolve_leniently_as_text(path))


def resolve_leniently_as_text(path: Path) -> str:
    """``resolve_leniently``'s answer as text, for a check that compares strings (an access
    check): building a Path from it would cost a third as much as resolving it."""
    if _BY_DESCRIPTOR:
        found = _by_descriptor(path)
        if found is not None:
            return found
    for _attempt in range(_ATTEMPTS):
        try:
            return os.path.realpath(path)
        except OSError:
            continue
    return os.path.normpath(path if path.is_absolute() else Path.cwd() / path)


def _by_descriptor(path: Path) -> str | None:
    """What the kernel resolved ``path`` to, or None when it could not be opened (or was
    deleted meanwhile, which ``/proc`` marks by a suffix)."""
    try:
        descriptor = os.open(path, _O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        # os.readlink on a str: a Path built for each check would cost as much as the rest.
        found = os.readlink(f"/proc/self/fd/{descriptor}")  # noqa: PTH115
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if not found.startswith("/") or found.endswith(_DELETED):
        return None
    return found
