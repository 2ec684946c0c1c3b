"""A real ``quire serve --multi`` process for the remote-agent tests, and a client machine.

    with remote_server(tmp_path) as server:
        token = server.account("alice", grants=[("team", "open", "read")])
        machine = server.machine(tmp_path / "laptop")
        done = machine.quire("login", "@team", server.url, "--token-stdin", stdin=token)

Accounts are made with the real ``quire user`` commands (in process, on the server's
database while it runs); the client machine runs ``quire`` as a subprocess with its own home
and state folder, so servers.toml is its own.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from quire.cli.main import cli
from quire.core.server_info import loads

START_TIMEOUT_S = 60
RUN_TIMEOUT_S = 120
PASSWORD = "correct horse battery staple"
NOTES = {
    "welcome.md": "# Welcome\n",
    "open/plan.md": "# Plan\n\nShip it.\n",
    "secret/keys.md": "# Keys\n\nhunter2\n",
}
_READY = re.compile(r"^Quire is running at (https?://[^/\s]+)")
_STEERING = ("QUIRE_HOST", "QUIRE_PORT", "QUIRE_DB", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")


def clean_environment(state: Path, home: Path) -> dict[str, str]:
    """This process's environment without anything that steers a server, with its own
    home and state folder."""
    environ = {key: value for key, value in os.environ.items() if key not in _STEERING}
    environ.update({"HOME": str(home), "QUIRE_HOME": str(state), "LANG": "C.UTF-8"})
    return environ


@dataclass
class Machine:
    """A client machine: ``quire`` with its own home and state folder."""

    home: Path
    state: Path

    def quire(
        self, *args: str, stdin: str = "", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``quire ARGS…`` to completion."""
        environ = clean_environment(self.state, self.home) | (env or {})
        return subprocess.run(
            [sys.executable, "-m", "quire.cli.main", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=environ,
            cwd=self.home,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )


@dataclass
class RemoteServer:
    """A running multi-mode server: where it is, its state and workspace, its own token."""

    url: str
    state: Path
    workspace: Path
    owner_token: str
    process: subprocess.Popen[bytes]
    stderr: Path
    ready: str
    """The line the server printed once it listened (its login URL)."""

    def user(self, *args: str, stdin: str = "") -> str:
        """Run ``quire user ARGS… --state-dir STATE`` in process (in a thread of its own, so
        an async test's running loop does not stop its ``asyncio.run``); its stdout."""
        with ThreadPoolExecutor(1) as pool:
            result = pool.submit(
                CliRunner().invoke, cli, ["user", *args, "--state-dir", str(self.state)], stdin
            ).result()
        assert result.exit_code == 0, result.output
        return result.stdout

    def account(self, username: str, grants: Sequence[tuple[str, str, str]] = ()) -> str:
        """A new account with ``grants`` (workspace, prefix, access); its new API token."""
        self.user("add", username, "--password-stdin", stdin=f"{PASSWORD}\n{PASSWORD}\n")
        for workspace, prefix, access in grants:
            self.user(
                "grant", username, workspace, *([prefix] if prefix else []), "--access", access
            )
        return self.user("token", username).strip().splitlines()[0]

    def machine(self, folder: Path) -> Machine:
        """A client machine in ``folder`` (made here)."""
        home = folder / "home"
        home.mkdir(parents=True)
        return Machine(home=home, state=home / ".quire")


@contextmanager
def remote_server(
    base: Path, *extra: str, notes: dict[str, str] | None = None, toml: str | None = None
) -> Iterator[RemoteServer]:
    """``quire serve --multi`` on a free port over the workspace ``base/team`` (with ``toml``
    as its quire.toml when given)."""
    workspace = base / "team"
    for relative, text in (notes or NOTES).items():
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(text, encoding="utf-8")
    state = base / "server-state"
    if toml is not None:
        state.mkdir(mode=0o700, parents=True, exist_ok=True)
        (state / "quire.toml").write_text(toml, encoding="utf-8")
    home = base / "server-home"
    home.mkdir(exist_ok=True)
    stderr = base / "serve.log"
    command = [
        sys.executable, "-m", "quire.cli.main", "serve", str(workspace), "--multi",
        "--port", "0", "--no-browser", "--state-dir", str(state), *extra,
    ]  # fmt: skip
    with stderr.open("wb") as errors:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=clean_environment(state, home),
            cwd=base,
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        match = _READY.match(line)
        assert match, line + stderr.read_text(encoding="utf-8")
        info = loads((state / "server.json").read_text(encoding="utf-8"))
        yield RemoteServer(
            info.url, state, workspace.resolve(), info.token, process, stderr, line.strip()
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
