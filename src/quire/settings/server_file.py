"""One server per state folder: the lock, and ``<state>/server.json`` that says how to reach it.

A running server holds an exclusive lock on ``<state>/server.lock`` for its whole life. The
lock, not the pid, decides whether a server is running: the kernel drops it however the
process ends, and a pid can be reused by an unrelated process. So a second server refuses to
start while the lock is held (naming the url and pid in server.json), and a server.json left
behind while the lock is free is stale and replaced. Clients, which cannot take the lock,
judge server.json by its pid (``discover``, ``is_process_alive``): this is the one reading and
the one judgement of the file for both sides. This module never opens sockets.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from quire.core.errors import FileMissing, QuireError, ServerAlreadyRunning, StorageFailed
from quire.core.server_info import ServerInfo, dumps, loads
from quire.fs.atomic import write_atomic
from quire.fs.safeio import read_regular_bytes

SERVER_FILE_NAME = "server.json"
LOCK_FILE_NAME = "server.lock"
MAX_SERVER_FILE_BYTES = 64 * 1024
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Found:
    """A server.json whose process is alive: how to reach that server."""

    info: ServerInfo


@dataclass(frozen=True)
class Absent:
    """No server.json, or one left behind by a process that has ended (``stale``)."""

    stale: bool


Discovery = Found | Absent


def server_file(state_dir: Path) -> Path:
    """Where the server file of ``state_dir`` lives."""
    return state_dir / SERVER_FILE_NAME


def read_server_file(state_dir: Path) -> ServerInfo | None:
    """What ``<state>/server.json`` says, or None when there is none.

    Raises DocumentInvalid for a malformed file, other QuireErrors when it cannot be read.
    """
    try:
        data = read_regular_bytes(
            server_file(state_dir), limit=MAX_SERVER_FILE_BYTES, what="server file"
        )
    except FileMissing:
        return None
    return loads(data.decode("utf-8", "replace"))


def discover(state_dir: Path) -> Discovery:
    """What the server file of ``state_dir`` says about a running server, judged by its pid.

    Raises DocumentInvalid (with the fix) for a malformed file and other QuireErrors when
    the file cannot be read.
    """
    info = read_server_file(state_dir)
    if info is None:
        return Absent(stale=False)
    if not is_process_alive(info.pid):
        return Absent(stale=True)
    return Found(info)


def is_process_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (it may belong to another user).

    A pid too large for the OS (OverflowError) names no process, so it is not alive.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True


def prepare_state_folder(state_dir: Path) -> None:
    """Create the state folder owner-only (0700) when it is missing."""
    try:
        state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise StorageFailed(
            f"Could not create the state folder {state_dir}: {err.strerror or err}. Check its "
            "parent folder's permissions, or pass --state-dir (or set QUIRE_HOME) to use "
            "another folder."
        ) from None
    if not state_dir.is_dir():
        raise StorageFailed(
            f"The state folder {state_dir} is not a folder. Move that file away, or pass "
            "--state-dir (or set QUIRE_HOME) to use another folder."
        )


class ServerClaim:
    """The state folder held by this server: the lock, and the server file once published.

    Use as a context manager, or call ``release`` when the server stops.
    """

    def __init__(self, state_dir: Path, lock_fd: int) -> None:
        self.state_dir = state_dir
        self._lock_fd: int | None = lock_fd
        self._published: ServerInfo | None = None

    @property
    def path(self) -> Path:
        """The server file this claim writes."""
        return server_file(self.state_dir)

    def publish(self, info: ServerInfo) -> None:
        """Write server.json: created 0600, complete before it has its name, replacing any."""
        if self._lock_fd is None:
            raise RuntimeError("publish after release: the state folder is no longer held")
        write_atomic(self.path, dumps(info), overwrite=True, mode=0o600)
        self._published = info

    def release(self) -> None:
        """Remove server.json if it is still the one published here; then drop the lock."""
        if self._published is not None:
            _remove_if_ours(self.path, self._published.token)
            self._published = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> ServerClaim:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


def claim_state_folder(state_dir: Path) -> ServerClaim:
    """Hold ``state_dir`` for one server, creating it 0700 when missing.

    Raises ServerAlreadyRunning (naming its url and pid) while another server holds it, and
    StorageFailed when the folder or its lock file cannot be made.
    """
    prepare_state_folder(state_dir)
    lock_path = state_dir / LOCK_FILE_NAME
    try:
        fd = os.open(lock_path, _LOCK_FLAGS, 0o600)
    except OSError as err:
        raise StorageFailed(
            f"Could not open the lock file {lock_path}: {err.strerror or err}. Check the state "
            "folder's permissions, or pass --state-dir to use another folder."
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise StorageFailed(
                f"Could not lock {lock_path}: {err.strerror or err}. Pass --state-dir to use "
                "another folder."
            ) from None
        raise _already_running(state_dir) from None
    return ServerClaim(state_dir, fd)


def _already_running(state_dir: Path) -> ServerAlreadyRunning:
    try:
        info = read_server_file(state_dir)
    except QuireError:
        info = None
    if info is None:
        return ServerAlreadyRunning(
            f"Another Quire server is starting with the state folder {state_dir} (it holds "
            f"{state_dir / LOCK_FILE_NAME}). Wait for it and use it, stop it first, or pass "
            "--state-dir to run a separate server.",
            info=None,
        )
    return ServerAlreadyRunning(
        f"A Quire server is already running at {info.url} (pid {info.pid}) with the state "
        f"folder {state_dir}. Use that one, stop it first (kill {info.pid}), or pass "
        "--state-dir to run a separate server.",
        info=info,
    )


def _remove_if_ours(path: Path, token: str) -> None:
    try:
        current = read_server_file(path.parent)
    except QuireError:
        return
    if current is not None and current.token == token:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
