"""Finding the local server: what ``<state>/server.json`` says, judged by its process id.

Reads the file through ``quire.fs`` and asks the OS whether the pid lives; it never opens a
socket (the connection does) and never starts a server (autostart does).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import FileMissing
from quire.core.server_info import ServerInfo, loads
from quire.fs.safeio import read_regular_bytes

SERVER_FILE_NAME = "server.json"
MAX_SERVER_FILE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Found:
    """A server.json whose process is alive: how to reach that server."""

    info: ServerInfo


@dataclass(frozen=True)
class Absent:
    """No server.json, or one left behind by a process that has ended (``stale``)."""

    stale: bool


Discovery = Found | Absent


def server_file(state: Path) -> Path:
    """Where the server file of the state folder ``state`` lives."""
    return state / SERVER_FILE_NAME


def discover(state: Path) -> Discovery:
    """What the server file of ``state`` says about a running server.

    Raises DocumentInvalid (with the fix) for a malformed file and other QuireErrors when
    the file cannot be read.
    """
    try:
        data = read_regular_bytes(
            server_file(state), limit=MAX_SERVER_FILE_BYTES, what="server file"
        )
    except FileMissing:
        return Absent(stale=False)
    info = loads(data.decode("utf-8", "replace"))
    if not is_process_alive(info.pid):
        return Absent(stale=True)
    return Found(info)


def is_process_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (it may belong to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True
