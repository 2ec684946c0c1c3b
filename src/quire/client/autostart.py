"""Starting a local server when a tool needs one and none runs: ``quire serve`` in the background.

Spawns the server detached (its own session, no browser; the folders it is given, else its
default workspace, the working directory) and waits, bounded, until its server.json names a
live process that answers ``/health``. It never talks to the API beyond that probe.

A caller that will likely need a server soon (``quire mcp``, as it starts) may ``prepare`` one:
its process is spawned on standby (``quire serve --wait-for-start``), loads its modules while the
caller loads its own, and touches nothing until ``start`` writes ``STANDBY_START`` to its
standard input. Closing that pipe (the caller ends) makes the standby end unused.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import anyio

from quire.core.errors import QuireError, ServerUnreachable
from quire.core.server_info import ServerInfo
from quire.settings.server_file import Found, discover, server_file

START_TIMEOUT = 10.0
"""How long a start may take before the caller is told it failed (seconds)."""

LOG_FILE_NAME = "serve.log"
_POLL_SECONDS = 0.01
STANDBY_START = b"start\n"
"""What a standby server reads on its standard input to start serving."""
_LOG_TAIL_BYTES = 2000

Probe = Callable[[ServerInfo, Path], Awaitable[bool]]
"""Whether the server ``info`` names answers its health check."""


class Starter(Protocol):
    """Starts a server on demand and returns how to reach it."""

    async def start(self) -> ServerInfo:
        """Start a server (or wait for one being started) and return its ServerInfo."""
        ...


class NoStarter:
    """A starter that never starts anything: the caller runs with a fixed or no server."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    async def start(self) -> ServerInfo:
        """Refuse with the reason given."""
        raise ServerUnreachable(self._reason)


class SubprocessStarter:
    """Starts ``quire serve --no-browser`` in ``cwd`` with the state folder of ``environ``."""

    def __init__(
        self,
        *,
        state: Path,
        cwd: Path,
        environ: Mapping[str, str],
        probe: Probe | None = None,
        timeout: float = START_TIMEOUT,
        command: Sequence[str] | None = None,
    ) -> None:
        self._state = state
        self._cwd = cwd
        self._environ = dict(environ)
        self._probe = probe
        self._timeout = timeout
        self._command = list(command or serve_command())
        self._standby: subprocess.Popen[bytes] | None = None

    def prepare(self) -> None:
        """Spawn the server's process on standby, once; a standby that cannot be spawned is
        simply not there (``start`` then spawns a server and says what went wrong)."""
        if self._standby is None:
            with contextlib.suppress(ServerUnreachable):
                self._standby = self._spawn(standby=True)

    async def start(self) -> ServerInfo:
        """Start the standby (or spawn the server) and wait (at most ``timeout``) until it
        answers."""
        process = self._take_standby() or self._spawn()
        try:
            with anyio.fail_after(self._timeout):
                return await self._wait(process)
        except TimeoutError:
            raise ServerUnreachable(
                f"Quire started `quire serve` in the background (pid {process.pid}) but it did "
                f"not answer within {self._timeout:g} seconds. {self._log_hint()}"
            ) from None

    def _take_standby(self) -> subprocess.Popen[bytes] | None:
        """The standby, told to start; None when there is none or it already ended."""
        process, self._standby = self._standby, None
        if process is None or process.stdin is None or process.poll() is not None:
            return None
        try:
            process.stdin.write(STANDBY_START)
            process.stdin.close()
        except OSError:
            return None
        return process

    async def _wait(self, process: subprocess.Popen[bytes]) -> ServerInfo:
        if self._probe is None:
            from quire.client.api import probe_health  # not needed until a server is up

            self._probe = probe_health
        while True:
            try:
                found = discover(self._state)
            except QuireError:
                found = None
            if isinstance(found, Found) and await self._probe(found.info, server_file(self._state)):
                return found.info
            if process.poll() is not None and not isinstance(found, Found):
                raise ServerUnreachable(
                    f"Quire tried to start `quire serve` in the background, but it stopped "
                    f"at once (exit status {process.returncode}). {self._log_hint()}"
                )
            await anyio.sleep(_POLL_SECONDS)

    def _spawn(self, *, standby: bool = False) -> subprocess.Popen[bytes]:
        log = self._open_log()
        try:
            process = subprocess.Popen(
                [*self._command, "--wait-for-start"] if standby else self._command,
                cwd=self._cwd,
                env=self._environ,
                stdin=subprocess.PIPE if standby else subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            raise ServerUnreachable(
                f"Quire could not start `quire serve` in the background: "
                f"{exc.strerror or exc}. Start it yourself with `quire serve` in the folder "
                "that holds your documents, then retry."
            ) from None
        finally:
            os.close(log)
        # The server outlives this call on purpose; a thread waits on it so that, should it
        # stop while this process runs, it is reaped rather than left a zombie.
        threading.Thread(target=process.wait, name="quire-serve-reaper", daemon=True).start()
        return process

    def _open_log(self) -> int:
        try:
            self._state.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
            return os.open(self._state / LOG_FILE_NAME, flags, 0o600)
        except OSError as exc:
            raise ServerUnreachable(
                f"Quire could not start a server: the state folder {self._state} cannot be "
                f"written ({exc.strerror or exc}). Fix its permissions or set QUIRE_HOME to "
                "another folder, then retry."
            ) from None

    def _log_hint(self) -> str:
        log = self._state / LOG_FILE_NAME
        try:
            with log.open("rb") as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                handle.seek(max(0, size - _LOG_TAIL_BYTES))
                tail = handle.read().decode("utf-8", "replace").strip()
        except OSError:
            tail = ""
        shown = f" Its log ends with: {tail[-600:]}" if tail else ""
        return (
            f"See {log} for why.{shown} Start it yourself with `quire serve` (the server "
            f"file is {server_file(self._state)}), then retry."
        )


def serve_command(folders: Sequence[Path] = ()) -> list[str]:
    """The command line of a background ``quire serve`` for ``folders`` (none: its defaults)."""
    return [sys.executable, "-m", "quire.cli.main", "serve", "--no-browser", *map(str, folders)]
