"""The names of Quire's temp files, and when one is stale: the rule every writer and cleaner shares.

Owns the naming rule only (pure, apart from asking whether a process is alive): a temp file is
``.<final name, first 40 characters>.<host>-<pid>-<12 hex>.quire.tmp``, so a cleaner can tell
it from anyone else's file and from a temp another Quire is still writing. Nothing here
touches the disk; ``quire.vault.temp_files`` finds and removes stale ones.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import stat
from functools import cache
from typing import Final

STALE_AFTER_S: Final = 60.0
"""A temp file whose writer cannot be known to be dead is stale this long after its last
change (a write takes well under a second; a live writer renames its temp at once)."""

SUFFIX: Final = ".quire.tmp"

_NAME_CHARS: Final = 40
_NAME = re.compile(
    r"\.(?P<final>.{1,40})\.(?P<host>[0-9a-f]{8})-(?P<pid>[1-9][0-9]{0,9})-[0-9a-f]{12}"
    + re.escape(SUFFIX),
    re.DOTALL,
)
# The names Quire's writer used before this rule (``.<name>.<12 hex>.tmp``), recognised only
# for the Markdown documents it wrote into workspaces; they are judged by age alone.
_LEGACY = re.compile(
    r"\.(?P<final>.{1,40}\.(?:md|markdown|mdown|mkd|mdx))\.[0-9a-f]{12}\.tmp", re.DOTALL
)


@cache
def host_tag() -> str:
    """Eight hex digits naming this machine (a hash of its host name)."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]


def temp_name(final: str) -> str:
    """A new temp file name for a write that will be renamed to ``final`` (a bare name)."""
    return f".{final[:_NAME_CHARS]}.{host_tag()}-{os.getpid()}-{secrets.token_hex(6)}{SUFFIX}"


def is_temp_name(name: str) -> bool:
    """Whether ``name`` (a bare file name) is one of Quire's temp files."""
    return _NAME.fullmatch(name) is not None or _LEGACY.fullmatch(name) is not None


def is_stale(name: str, info: os.stat_result, *, now: float) -> bool:
    """Whether the temp file ``name`` (with its lstat ``info``, at time ``now``, seconds since
    the epoch) may be removed: one of Quire's temp names, a regular file (never a link or a
    folder), and either last changed ``STALE_AFTER_S`` ago or written by a process of this
    machine that is no longer running."""
    if not stat.S_ISREG(info.st_mode) or not is_temp_name(name):
        return False
    if now - info.st_mtime >= STALE_AFTER_S:
        return True
    match = _NAME.fullmatch(name)
    if match is None or match["host"] != host_tag():
        return False
    return not _is_running(int(match["pid"]))


def _is_running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        # Someone else's process (or a number the system cannot check): assume it is alive.
        return True
    return True
