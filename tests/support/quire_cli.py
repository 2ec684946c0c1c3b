"""The `quire` command as a subprocess beside a server in the test's own loop.

`local_server` runs the real app on a free port and publishes its server.json in the test's
state folder, as `quire serve` does, so a `quire open` or hook subprocess finds it; the test
keeps the services to look at the window. `Shell` runs `.venv/bin/quire` with QUIRE_HOME in
tmp_path, no browser unless the test installs the recording one, and stops any server a
command started in the background.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from starlette.types import ASGIApp

from quire.core.server_info import ServerInfo
from quire.core.views import OWNER
from quire.services.app import AppServices, open_services
from quire.services.windows import TabState
from quire.settings.model import Settings
from quire.settings.server_file import claim_state_folder
from quire.web.app import create_app
from tests.support.machines import machine_under
from tests.web.live_server import live_server

QUIRE = Path(sys.executable).with_name("quire")
TOKEN = "0123456789abcdef" * 4
STOP_TIMEOUT_S = 30
RUN_TIMEOUT_S = 120
_STEERING = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "QUIRE_HOST", "QUIRE_PORT", "QUIRE_DB")


@dataclass
class Shell:
    """Runs `quire` as a person's shell would, in ``cwd``, with its state in ``state``."""

    tmp_path: Path
    state: Path
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def browser_log(self) -> Path:
        """Where the recording browser writes each address it was asked to open."""
        return self.tmp_path / "browser.log"

    def with_browser(self) -> None:
        """Install a recording browser (and a display for it) for the next commands."""
        shim = self.tmp_path / "browser.sh"
        shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{self.browser_log}"\n')
        shim.chmod(0o755)
        self.env["BROWSER"] = f"{shim} %s"
        self.env["DISPLAY"] = ":99"

    def opened_in_browser(self) -> list[str]:
        """The addresses the recording browser was asked to open, in order."""
        if not self.browser_log.exists():
            return []
        return self.browser_log.read_text(encoding="utf-8").splitlines()

    async def run(
        self, *args: str | bytes, stdin: bytes = b""
    ) -> subprocess.CompletedProcess[bytes]:
        """Run `quire ARGS…` to completion with ``stdin`` piped in."""
        with anyio.fail_after(RUN_TIMEOUT_S):
            return await anyio.run_process(
                [str(QUIRE), *args],
                input=stdin,
                check=False,
                cwd=self.cwd,
                env=self.env,
            )

    def started_server(self) -> ServerInfo | None:
        """What the state folder's server.json says, when a command started a server."""
        path = self.state / "server.json"
        if not path.exists():
            return None
        record = json.loads(path.read_text(encoding="utf-8"))
        return ServerInfo(url=record["url"], token=record["token"], pid=record["pid"])

    async def stop_started_server(self) -> None:
        """SIGTERM the server a command started (if any) and wait until it removed server.json."""
        info = self.started_server()
        if info is None or info.pid == os.getpid():
            return
        try:
            os.kill(info.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        server_file = anyio.Path(self.state / "server.json")
        with anyio.fail_after(STOP_TIMEOUT_S):
            while True:
                if not await server_file.exists():
                    return
                await anyio.sleep(0.05)


def make_shell(tmp_path: Path) -> Shell:
    """A shell in ``tmp_path/work`` with its own home and state folder, no browser, port 0."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    state = tmp_path / "state"
    env = {key: value for key, value in os.environ.items() if key not in _STEERING}
    env.update({"HOME": str(home), "QUIRE_HOME": str(state), "QUIRE_PORT": "0"})
    env.setdefault("LANG", "C.UTF-8")
    return Shell(tmp_path=tmp_path, state=state, cwd=work, env=env)


@dataclass(frozen=True)
class LocalServer:
    """A server in this process: its services, how to reach it, and the folder it serves."""

    services: AppServices
    info: ServerInfo
    workspace: Path

    async def tabs(self) -> tuple[TabState, ...]:
        """The tabs of the owner's window."""
        return (await self.services.windows.state(OWNER)).tabs

    async def active(self) -> TabState | None:
        """The owner's active tab, if any."""
        state = await self.services.windows.state(OWNER)
        return next((tab for tab in state.tabs if tab.doc_id == state.active), None)


@contextmanager
def published(shell: Shell, url: str, token: str = TOKEN) -> Iterator[ServerInfo]:
    """Hold the shell's state folder and publish a server.json naming ``url`` and this process."""
    info = ServerInfo(url=url, token=token, pid=os.getpid())
    with claim_state_folder(shell.state) as claim:
        claim.publish(info)
        yield info


@asynccontextmanager
async def local_server(
    shell: Shell, workspace: Path, *, server_file_token: str = TOKEN
) -> AsyncIterator[LocalServer]:
    """Serve ``workspace`` on a free port and publish server.json in the shell's state folder.

    ``server_file_token`` is the token written to server.json (another one makes it stale).
    """
    served = await anyio.Path(workspace).resolve()
    settings = Settings(workspaces=(Path(served),), state_dir=shell.state)
    async with AsyncExitStack() as stack:
        services = await stack.enter_async_context(
            open_services(
                settings,
                token=TOKEN,
                clock=lambda: 1_700_000_000_000,
                machine=machine_under(shell.tmp_path),
            )
        )
        port = await stack.enter_async_context(live_server(create_app(services)))
        url = f"http://127.0.0.1:{port}"
        with published(shell, url, server_file_token):
            info = ServerInfo(url=url, token=TOKEN, pid=os.getpid())
            yield LocalServer(services, info, Path(served))


@asynccontextmanager
async def app_server(shell: Shell, app: ASGIApp) -> AsyncIterator[ServerInfo]:
    """Serve a stand-in ``app`` on a free port, published in the shell's server.json."""
    async with live_server(app) as port:
        with published(shell, f"http://127.0.0.1:{port}") as info:
            yield info


def paths(tabs: Sequence[TabState]) -> list[Path]:
    """The files of ``tabs``, in order."""
    return [tab.path for tab in tabs]
