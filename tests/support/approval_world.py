"""A machine for the approval hooks: a state folder with a policy, a real server (a `quire
serve` process, or the app in this process on a real port with a clock the test moves), the
person's browser login, and `quire approval …` run as the harness runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx

from quire.core.server_info import ServerInfo
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from quire.settings.server_file import Found, discover
from quire.web.app import create_app
from tests.support.machines import machine_under
from tests.web.live_server import live_server

QUIRE = Path(sys.executable).with_name("quire")
POLICY = "SERVER=local\nMACHINE_LABEL=box\nTOOLS=Bash\nNEVER_REMOTE=sudo\nQUESTIONS=yes\n"
TOKEN = "0123456789abcdef" * 4
_HARNESS_VARIABLES = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_SANDBOX")


@dataclass
class Clock:
    now: int = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: bytes
    stderr: str


def ask(
    tool: str = "Bash", tool_input: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """A PermissionRequest as Claude Code sends it."""
    return {
        "session_id": "sess-1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/work/project",
        "permission_mode": "default",
        "hook_event_name": "PermissionRequest",
        "tool_name": tool,
        "tool_input": {"command": "make test"} if tool_input is None else tool_input,
        **extra,
    }


@dataclass
class Machine:
    """The state folder the hooks and the server share, and the hooks' environment."""

    state: Path
    home: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def policy(self) -> Path:
        return self.state / "approvals.conf"

    async def start_hook(
        self, stdin: bytes, *args: str, command: str = "request"
    ) -> anyio.abc.Process:
        """``quire approval COMMAND --agent claude-code ARGS…`` with ``stdin``, running."""
        process = await anyio.open_process(
            [str(QUIRE), "approval", command, "--agent", "claude-code", *args], env=self.env
        )
        assert process.stdin is not None
        await process.stdin.send(stdin)
        await process.stdin.aclose()
        return process

    async def hook(self, stdin: bytes, *args: str, command: str = "request") -> Ran:
        """Run one hook to its end."""
        return await finished(await self.start_hook(stdin, *args, command=command))


def make_machine(tmp_path: Path, policy: str | None = POLICY) -> Machine:
    state = tmp_path / "state"
    state.mkdir(mode=0o700, exist_ok=True)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (state / "quire.toml").write_text("[approvals]\nenabled = true\n", encoding="utf-8")
    if policy is not None:
        (state / "approvals.conf").write_text(policy, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in _HARNESS_VARIABLES}
    env.update({"QUIRE_HOME": str(state), "HOME": str(home), "QUIRE_PORT": "0"})
    return Machine(state, home, env)


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
    return Ran(code, b"".join(out), b"".join(err).decode())


@dataclass
class Person:
    """The owner at the server: the API token (the agent's) and a browser login's cookie."""

    info: ServerInfo
    http: httpx.AsyncClient
    cookie: str = ""

    async def login(self) -> None:
        response = await self.http.get(f"{self.info.url}/", params={"token": self.info.token})
        assert response.status_code == 303, response.text
        self.cookie = response.cookies["quire_session"]
        self.http.cookies.clear()

    async def listing(self) -> dict[str, Any]:
        response = await self.http.get(f"{self.info.url}/api/approvals", headers=self._token())
        assert response.status_code == 200, response.text
        listed: dict[str, Any] = response.json()
        return listed

    async def card(self) -> dict[str, Any]:
        """The oldest pending card, once there is one (bounded)."""
        with anyio.fail_after(30):
            while True:
                listed = await self.listing()
                pending = [a for a in listed["approvals"] if a["status"] == "pending"]
                if pending:
                    return dict(pending[0])
                await anyio.sleep(0.02)

    async def decide(
        self, card: dict[str, Any], *, token: bool = False, **body: Any
    ) -> httpx.Response:
        headers = self._token() if token else {"Cookie": f"quire_session={self.cookie}"}
        return await self.http.post(
            f"{self.info.url}/api/approvals/{card['approvalId']}/decision",
            headers=headers,
            json={"input_hash": card["inputHash"], **body},
        )

    def _token(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.info.token}"}


@asynccontextmanager
async def person_at(info: ServerInfo) -> AsyncIterator[Person]:
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        person = Person(info, http)
        await person.login()
        yield person


async def server_info(state: Path, process: subprocess.Popen[bytes]) -> ServerInfo:
    """The server.json of ``state`` once the server wrote it (bounded)."""
    with anyio.fail_after(30):
        while True:
            found = discover(state)
            if isinstance(found, Found):
                return found.info
            if process.poll() is not None:
                raise AssertionError(f"quire serve exited with {process.returncode}")
            await anyio.sleep(0.05)


@contextmanager
def quire_serve(machine: Machine, workspace: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A real `quire serve` process over ``workspace`` with the machine's state folder."""
    process = subprocess.Popen(
        [str(QUIRE), "serve", "--port", "0", "--no-browser", str(workspace)],
        env=machine.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def write_server_file(state: Path, info: ServerInfo) -> None:
    """Point ``state``'s server.json at ``info``, as a running server does."""
    record = {"url": info.url, "token": info.token, "pid": info.pid}
    temp = state / "server.json.tmp"
    temp.write_text(json.dumps(record), encoding="utf-8")
    temp.chmod(0o600)
    temp.replace(state / "server.json")


@asynccontextmanager
async def app_on_a_port(
    machine: Machine, workspace: Path, clock: Clock
) -> AsyncIterator[tuple[AppServices, ServerInfo]]:
    """The real app in this process on a free port, its clock ``clock``, named in server.json."""
    settings = Settings(workspaces=(workspace,), state_dir=machine.state, approvals_enabled=True)
    async with (
        open_services(settings, token=TOKEN, clock=clock, machine=machine_under(machine.home))
        as services,
        live_server(create_app(services)) as port,
    ):  # fmt: skip
        info = ServerInfo(f"http://127.0.0.1:{port}", TOKEN, os.getpid())
        write_server_file(machine.state, info)
        yield services, info
