"""The grant checks of the file operations: what the request's access must allow before a
file or folder is created, changed, moved, copied, deleted, restored or downloaded.

Pure decisions over ``quire.services.users.access`` (plus a walk of a folder's entries); they
never touch what they check. A refusal reads as the answer the path would get if it were not
there whenever the account may not read it (so it never tells whether something exists), and
as "access denied" when it may read but not change it. A folder refused because of something
inside it says only "access denied", naming nothing hidden.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from quire.core.errors import AccessDenied
from quire.fs.resolve import resolve_leniently
from quire.services.users.access import Access

logger = logging.getLogger(__name__)

_PARTICIPLES = {
    "delete": "deleted",
    "move": "moved",
    "copy": "copied",
    "restore": "restored",
    "remove": "removed",
}


def missing_entry(path: Path, verb: str) -> str:
    """What an operation on the existing ``path`` says when nothing is there (the words of
    ``quire.vault.files.reach_entry``)."""
    return f"Cannot {verb} '{path}': nothing is there. Check the path."


def missing_folder(path: Path, verb: str) -> str:
    """What an operation making the new name ``path`` says when its folder is missing (the
    words of ``quire.fs.anchored``)."""
    return (
        f"Cannot {verb} '{path}': the folder '{path.parent}' does not exist. Check the path, "
        "or create the folder first."
    )


def missing_file(path: Path, verb: str) -> str:
    """What reading the document ``path`` says when it is not there (``quire.fs``'s words)."""
    return (
        f"Cannot {verb} '{path}': the file does not exist. Check the path (absolute, or "
        "relative to the working directory)."
    )


def require_entry(access: Access, path: Path, verb: str, *, write: bool) -> None:
    """The existing file or folder ``path`` may be read (``write``: changed): else the answer
    of nothing there (no read) or AccessDenied (read only)."""
    if write:
        access.require_write(path, missing=missing_entry(path, verb))
    else:
        access.require_read(path, missing=missing_entry(path, verb))


def require_new(access: Access, path: Path, verb: str) -> None:
    """A new name may be made at ``path``: without read there, the answer of a missing folder;
    with read only, AccessDenied."""
    access.require_write(path, missing=missing_folder(path, verb))


def require_whole(access: Access, path: Path, verb: str, *, write: bool) -> None:
    """Every entry in the folder ``path`` (when it is one, not a link) may be changed
    (``write``) or read; else AccessDenied naming only ``path``. Checked entry by entry; an
    error while looking denies. Blocking (a walk): run in a worker thread."""
    check = access.may_write if write else access.may_read
    if not _all_below(path, check):
        done = _PARTICIPLES.get(verb, "done")
        able = "change" if write else "read"
        raise AccessDenied(
            f"Access denied: '{path}' holds files or folders your account cannot {able}, so "
            f"nothing was {done}. Ask a workspace admin for {'write' if write else 'read'} "
            "access to all of it."
        )


def trashed_writable(access: Access, held: Path, original: Path) -> bool:
    """Whether the trashed item at ``held`` (in the trash) may be removed for good: its
    original path may be changed, and, for a folder, every entry in it at the place it came
    from. An error while looking denies. Blocking."""
    if not access.may_write(original):
        return False
    base = resolve_leniently(held)
    return _all_below(base, lambda inner: access.may_write(original / inner.relative_to(base)))


def _all_below(path: Path, check: Callable[[Path], bool]) -> bool:
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            return True
        return all(check(entry) for entry in _entries(resolve_leniently(path)))
    except FileNotFoundError:
        return True  # nothing there: the operation itself says so
    except OSError:
        logger.exception("Looking inside '%s' for the access check failed; access denied.", path)
        return False


def _entries(folder: Path) -> Iterator[Path]:
    """Every file, folder and link below ``folder`` (links not followed); an error raises."""

    def fail(error: OSError) -> None:
        raise error

    for top, folders, files in os.walk(folder, onerror=fail, followlinks=False):
        base = Path(top)
        for name in (*folders, *files):
            yield base / name
