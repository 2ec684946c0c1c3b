"""Removing Quire's stale temp files from the workspaces: at server start and as watchers see them.

Owns the removal only: which names are Quire's temp files and when one is stale is
``quire.fs.temp_names``'s rule, and which files a workspace holds is the one walker's
(``quire.fs.walk``). A file is removed only when, looked at again through its folder's
descriptor just before, it is still a regular file with a Quire temp name and stale; anything
else (someone's own file, a link, a temp still being written) is left alone.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from quire.fs.temp_names import STALE_AFTER_S, is_stale, is_temp_name
from quire.fs.walk import walk_tree

logger = logging.getLogger(__name__)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class Swept:
    """What a sweep did: the temp files it removed, and those not stale yet (kept)."""

    removed: list[Path] = field(default_factory=list)
    fresh: list[Path] = field(default_factory=list)


def remove_if_stale(path: Path, *, now: float | None = None) -> bool | None:
    """Remove ``path`` when it is a stale Quire temp file; True when removed, False when it
    is kept (not stale yet), None when it is not a temp file to remove (gone, a link, a folder,
    someone else's name). Blocking."""
    if not is_temp_name(path.name):
        return None
    moment = time.time() if now is None else now
    try:
        folder = os.open(path.parent, _DIR_FLAGS)
    except OSError:
        return None
    try:
        info = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
        if not is_stale(path.name, info, now=moment):
            return False if stat.S_ISREG(info.st_mode) else None
        os.unlink(path.name, dir_fd=folder)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            logger.warning("Cannot remove the stale temp file %s: %s", path, exc.strerror)
        return None
    finally:
        os.close(folder)
    logger.info("Removed the stale temp file %s", path)
    return True


def sweep(roots: Iterable[Path], *, now: float | None = None) -> Swept:
    """Remove the stale Quire temp files the walker finds under each of ``roots``. Blocking."""
    swept = Swept()
    for root in roots:
        for path in walk_tree(root, keep=lambda _name: False).temp_files:
            removed = remove_if_stale(path, now=now)
            if removed:
                swept.removed.append(path)
            elif removed is False:
                swept.fresh.append(path)
    return swept


async def remove_when_stale(path: Path) -> None:
    """Wait until ``path`` (a temp file seen now) would be stale, then remove it if it still
    is one (a writer that finished renamed it away; one that died left it)."""
    for _attempt in range(4):
        removed = await anyio.to_thread.run_sync(remove_if_stale, path)
        if removed is not False:
            return
        await anyio.sleep(STALE_AFTER_S / 2)
