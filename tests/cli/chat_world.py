"""A real Quire server on a socket for ``quire chat`` subprocess tests, found by the CLI through
its server.json, and a runner for the CLI as a real process.

The server runs in the test's event loop (tests/web/live_server.py); the person and other
agents act through an API client; each CLI call is ``python -m quire.cli.main chat …``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx

from quire.client.api import QuireApi
from quire.client.chats import ChatApi
from quire.core.server_info import ServerInfo, dumps
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.support.machines import machine_under
from tests.web.live_server import live_server

TOKEN = "c" * 64
PROGRAM = (sys.executable, "-m", "quire.cli.main")
HARNESS_VARIABLES = (
    "QUIRE_AS",
    "QUIRE_USER",
    "QUIRE_KEEPALIVE",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
    "QUIRE_SESSION",
)


def _clock() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Ran:
    """A finished CLI process."""

    code: int
    stdout: str
    stderr: str


@dataclass
class ChatWorld:
    """One workspace served by a real server, and how to reach it."""

    workspace: Path
    state: Path
    services: AppServices
    port: int
    chats: ChatApi
    clients: list[QuireApi] = field(default_factory=list)

    @property
    def info(self) -> ServerInfo:
        return ServerInfo(url=f"http://127.0.0.1:{self.port}", token=TOKEN, pid=os.getpid())

    def environ(self, **extra: str) -> dict[str, str]:
        """The CLI's environment: this world's state folder, no harness session variables."""
        return cli_environ(self.state, **extra)

    async def cli(
        self,
        *args: str,
        stdin: bytes | None = None,
        cwd: Path | None = None,
        environ: dict[str, str] | None = None,
    ) -> Ran:
        """Run ``quire chat ARGS`` to the end."""
        done = await anyio.run_process(
            [*PROGRAM, "chat", *args],
            input=stdin,
            cwd=cwd or self.workspace,
            env=environ or self.environ(),
            check=False,
        )
        return Ran(done.returncode, done.stdout.decode(), done.stderr.decode())

    async def waiting(self, chat: Path, name: str) -> None:
        """Return once ``name`` shows as waiting in ``chat`` (bounded)."""
        await until_waiting(self.chats, chat, name)


def cli_environ(state: Path, **extra: str) -> dict[str, str]:
    """The CLI's environment: ``state`` as QUIRE_HOME, no harness session variables."""
    base = {k: v for k, v in os.environ.items() if k not in HARNESS_VARIABLES}
    return {**base, "QUIRE_HOME": str(state), **extra}


async def until_waiting(chats: ChatApi, chat: Path, name: str) -> None:
    """Return once ``name`` shows as waiting in ``chat`` (bounded)."""
    with anyio.fail_after(30):
        while True:
            view = await chats.read(str(chat))
            if any(p.name == name and p.state == "waiting" for p in view.presence):
                return
            await anyio.sleep(0.02)


def write_server_file(state: Path, info: ServerInfo) -> None:
    """Point the state folder's server.json at ``info`` (as a running server does)."""
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = state / "server.json"
    temp = state / "server.json.tmp"
    temp.write_text(dumps(info), encoding="utf-8")
    temp.chmod(0o600)
    temp.replace(path)


@asynccontextmanager
async def serve(workspace: Path, state: Path) -> AsyncIterator[tuple[AppServices, int]]:
    """Open the services over ``workspace`` and serve them on a free port."""
    settings = Settings(workspaces=(workspace,), state_dir=state, port=4747)
    async with (
        open_services(
            settings, token=TOKEN, clock=_clock, machine=machine_under(state)
        ) as services,
        live_server(create_app(services)) as port,
    ):
        yield services, port


@asynccontextmanager
async def chat_world(tmp_path: Path) -> AsyncIterator[ChatWorld]:
    """A served workspace with server.json written, and an API client for the other people."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    state = tmp_path / "state"
    async with serve(workspace, state) as (services, port):
        info = ServerInfo(url=f"http://127.0.0.1:{port}", token=TOKEN, pid=os.getpid())
        world = ChatWorld(workspace, state, services, port, ChatApi(client(info, state)))
        write_server_file(state, world.info)
        try:
            yield world
        finally:
            await world.chats.api.aclose()


def client(info: ServerInfo, state: Path) -> QuireApi:
    """An API client of the server ``info`` names, over a real socket."""
    return QuireApi(info, server_file=state / "server.json", transport=httpx.AsyncHTTPTransport())


async def start_process(argv: Sequence[str], cwd: Path, state: Path) -> anyio.abc.Process:
    """Start ``quire chat ARGV`` in ``cwd`` without waiting for it."""
    return await anyio.open_process([*PROGRAM, "chat", *argv], cwd=cwd, env=cli_environ(state))


async def started(argv: Sequence[str], world: ChatWorld) -> anyio.abc.Process:
    """Start ``quire chat ARGV`` in the world's workspace without waiting for it."""
    return await start_process(argv, world.workspace, world.state)


async def finished(process: anyio.abc.Process, seconds: float = 60) -> Ran:
    """Wait (bounded) for a started process and collect what it printed."""
    assert process.stdout is not None and process.stderr is not None
    out: list[bytes] = []
    err: list[bytes] = []

    async def drain(stream: anyio.abc.ByteReceiveStream, into: list[bytes]) -> None:
        async for chunk in stream:
            into.append(chunk)

    with anyio.fail_after(seconds):
        async with anyio.create_task_group() as group:
            group.start_soon(drain, process.stdout, out)
            group.start_soon(drain, process.stderr, err)
        code = await process.wait()
    return Ran(code, b"".join(out).decode(), b"".join(err).decode())
