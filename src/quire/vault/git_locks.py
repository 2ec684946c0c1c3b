"""Stale git lock files (``index.lock``, ``refs/heads/main.lock``) left by a crashed git.

A lock is stale when no process holds it open (every ``/proc/PID/fd`` is looked at) and it is
older than ``STALE_AFTER_S``; a stale one is removed and reported. A lock a running git holds
is never touched. Blocking: call it from a worker thread.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

logger = logging.getLogger(__name__)

STALE_AFTER_S: Final = 5.0
"""How old a lock nobody holds must be before it is taken for a crashed git's."""

PROC: Final = Path("/proc")


@dataclass(frozen=True)
class StaleLock:
    """A lock file removed because a crashed git left it: where, and how old it was."""

    path: Path
    age_s: float


def holders(lock: Path, proc: Path = PROC) -> list[int]:
    """The ids of the processes holding ``lock`` open (those this user may look at)."""
    found: list[int] = []
    try:
        pids = [entry.name for entry in os.scandir(proc) if entry.name.isdigit()]
    except OSError:
        return found
    target = str(lock)
    for pid in pids:
        try:
            fds = os.scandir(proc / pid / "fd")
        except OSError:
            continue
        with fds:
            for fd in fds:
                try:
                    if str(Path(fd.path).readlink()) == target:
                        found.append(int(pid))
                        break
                except OSError:
                    continue
    return found


def clear_if_stale(lock: Path, *, now: float, proc: Path = PROC) -> StaleLock | None:
    """Remove ``lock`` when it is stale (see the module) and say so; None when there is no
    lock, it is fresh, or a process holds it."""
    try:
        age = now - lock.stat().st_mtime
    except OSError:
        return None
    if age < STALE_AFTER_S or holders(lock, proc):
        return None
    try:
        lock.unlink()
    except FileNotFoundError:
        return None
    except OSError as exc:
        logger.error("Cannot remove the stale git lock %s: %s", lock, exc)
        return None
    logger.warning(
        "Removed the stale git lock %s (%.0f s old, held by no process): a git that crashed "
        "left it, and it blocked history.",
        lock,
        age,
    )
    return StaleLock(lock, age)
