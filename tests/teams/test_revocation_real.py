"""Taking access away from another process closes what an account has open, at once.

A real ``quire serve --multi`` process; accounts made with the real ``quire user`` commands
against its state folder (and database). An account opens the events WebSocket, a live-editing
WebSocket and a long chat wait; then ANOTHER process runs ``quire user revoke-token``,
``quire user disable`` or ``quire user revoke USER WORKSPACE``. The server finds the change
with its once-a-second recheck: every open connection ends within ``CLOSE_WITHIN_S`` of that
command's exit (WebSockets with 4401 / 4403, the wait with 401 / 403), and the next request is
refused. On SQLite, and on PostgreSQL when QUIRE_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx
import pytest
from anyio.abc import Process
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.support.processes import first_line, stop_process

pytestmark = pytest.mark.anyio

CLI_TIMEOUT_S = 60
CLOSE_WITHIN_S = 2.5
"""The recheck runs every second; a check is a few queries. Measured from the command's exit."""
PASSWORD = b"correct horse battery staple\n"
_RUNNING = re.compile(r"^Quire is running at (http://\S+?)/login$")
_STEERING = ("QUIRE_HOST", "QUIRE_PORT", "QUIRE_DB", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")


@dataclass
class TeamServer:
    """A running ``quire serve --multi`` and how to run ``quire user`` beside it."""

    process: Process
    url: str
    state: Path
    workspace: Path
    db_url: str
    env: dict[str, str]

    async def user(self, *args: str, stdin: bytes = b"") -> str:
        """Run ``quire user ARGS…`` in its own process against the server's database."""
        command = [sys.executable, "-m", "quire.cli.main", "user", *args]
        command += ["--state-dir", str(self.state), "--db", self.db_url]
        with anyio.fail_after(CLI_TIMEOUT_S):
            done = await anyio.run_process(command, input=stdin, env=self.env, check=False)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        return done.stdout.decode()

    async def account(self, name: str, *, access: str = "write") -> tuple[str, str]:
        """A new account with ``access`` on the whole workspace; its API token and token id."""
        await self.user("add", name, "--password-stdin", stdin=PASSWORD)
        await self.user("grant", name, self.workspace.name, "--access", access)
        issued = json.loads(await self.user("token", name, "--json"))
        return issued["token"], issued["id"]

    def ws(self, path: str) -> str:
        return self.url.replace("http://", "ws://", 1) + path


@pytest.fixture
async def server(tmp_path: Path, database_url: str) -> AsyncIterator[TeamServer]:
    workspace = tmp_path / "team"
    (workspace / "open").mkdir(parents=True)
    (workspace / "open" / "plan.md").write_text("# Plan\n\nShip it.\n", encoding="utf-8")
    (workspace / "welcome.md").write_text("# Welcome\n", encoding="utf-8")
    state = tmp_path / "state"
    env = {key: value for key, value in os.environ.items() if key not in _STEERING}
    env.update({"QUIRE_HOME": str(state), "HOME": str(tmp_path)})
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "quire.cli.main", "serve", str(workspace), "--multi"]
    command += ["--port", "0", "--no-browser", "--state-dir", str(state), "--db", database_url]
    with log.open("ab") as errors:
        process = await anyio.open_process(
            command, stdout=subprocess.PIPE, stderr=errors, env=env, cwd=tmp_path
        )
        try:
            line = await first_line(process)
            found = _RUNNING.match(line)
            if found is None:
                raise RuntimeError(
                    f"quire serve --multi did not start ({line!r}):\n{log.read_text()}"
                )
            yield TeamServer(process, found.group(1), state, workspace.resolve(), database_url, env)
        finally:
            await stop_process(process)


@dataclass
class Ended:
    """How one open connection ended, and when (``time.monotonic``)."""

    what: str
    how: int | None = None
    at: float | None = None
    done: anyio.Event = field(default_factory=anyio.Event)


async def _hold_socket(socket: ClientConnection, ended: Ended) -> None:
    try:
        while True:
            await socket.recv()
    except ConnectionClosed as closed:
        ended.how = None if closed.rcvd is None else closed.rcvd.code
        ended.at = time.monotonic()
        ended.done.set()


async def _hold_wait(client: httpx.AsyncClient, chat: str, ended: Ended) -> None:
    answer = await client.post(
        "/api/chats/wait", json={"path": chat, "as": "alice", "timeoutMs": 600_000}
    )
    ended.how = answer.status_code
    ended.at = time.monotonic()
    ended.done.set()


@dataclass
class Opened:
    sockets: list[ClientConnection]
    ended: list[Ended]


async def _open_everything(
    server: TeamServer, client: httpx.AsyncClient, token: str, group: anyio.abc.TaskGroup
) -> Opened:
    """The events socket, a live-editing socket on a note and a chat wait, all held open."""
    auth = {"Authorization": f"Bearer {token}"}
    chat = str(server.workspace / "room.md")
    made = await client.post("/api/chats", json={"path": chat})
    assert made.status_code == 200, made.text
    opened = await client.post(
        "/api/documents/open", json={"path": str(server.workspace / "open" / "plan.md")}
    )
    assert opened.status_code == 200, opened.text
    doc_id = opened.json()["docId"]
    events = await connect(server.ws("/ws/events"), additional_headers=auth)
    live = await connect(server.ws(f"/ws/documents/{doc_id}"), additional_headers=auth)
    ended = [Ended("events socket"), Ended("live-editing socket"), Ended("chat wait")]
    group.start_soon(_hold_socket, events, ended[0])
    group.start_soon(_hold_socket, live, ended[1])
    group.start_soon(_hold_wait, client, chat, ended[2])
    await anyio.sleep(0.5)  # the wait reaches the server and starts waiting
    assert all(item.at is None for item in ended), ended
    return Opened([events, live], ended)


async def _all_end(opened: Opened) -> None:
    with anyio.fail_after(15):
        for item in opened.ended:
            await item.done.wait()
    for socket in opened.sockets:
        await socket.close()


REVOCATIONS = ["revoke-token", "disable", "revoke-grant"]


@pytest.mark.parametrize("revocation", REVOCATIONS)
async def test_a_change_made_by_another_process_closes_open_connections(
    server: TeamServer, revocation: str
) -> None:
    await server.user("add", "boss", "--role", "superadmin", "--password-stdin", stdin=PASSWORD)
    token, token_id = await server.account("alice")
    bystander, _ = await server.account("bob")
    auth = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(base_url=server.url, headers=auth, timeout=60) as client,
        httpx.AsyncClient(
            base_url=server.url, headers={"Authorization": f"Bearer {bystander}"}, timeout=60
        ) as bob,
        anyio.create_task_group() as group,
    ):
        opened = await _open_everything(server, client, token, group)
        if revocation == "revoke-token":
            await server.user("revoke-token", "alice", token_id)
        elif revocation == "disable":
            await server.user("disable", "alice")
        else:
            await server.user("revoke", "alice", server.workspace.name)
        changed = time.monotonic()
        await _all_end(opened)

        signed_out = revocation != "revoke-grant"
        socket_code, status = (4401, 401) if signed_out else (4403, 403)
        for item in opened.ended:
            assert item.at is not None
            assert item.at - changed <= CLOSE_WITHIN_S, (item, item.at - changed)
            expected = status if item.what == "chat wait" else socket_code
            assert item.how == expected, item

        # The next request is refused: no sign-in at all, or the note is "not found".
        note = str(server.workspace / "open" / "plan.md")
        again = await client.post("/api/documents/open", json={"path": note})
        if signed_out:
            assert again.status_code == 401, again.text
            assert (await client.get("/api/workspaces")).status_code == 401
            async with connect(server.ws("/ws/events"), additional_headers=auth) as socket:
                with anyio.fail_after(10), pytest.raises(ConnectionClosed) as caught:
                    await socket.recv()
            assert caught.value.rcvd is not None and caught.value.rcvd.code == 4401
        else:
            assert again.status_code == 404, again.text
            assert "Ship it." not in again.text
        # Someone else's access is untouched.
        assert (await bob.post("/api/documents/open", json={"path": note})).status_code == 200


async def test_a_member_removed_from_a_private_chat_loses_its_connections_at_once(
    server: TeamServer,
) -> None:
    alice, _ = await server.account("alice")
    bob, _ = await server.account("bob")
    chat = str(server.workspace / "pair.md")
    auth = {"Authorization": f"Bearer {bob}"}
    async with (
        httpx.AsyncClient(
            base_url=server.url, headers={"Authorization": f"Bearer {alice}"}, timeout=60
        ) as owner,
        httpx.AsyncClient(base_url=server.url, headers=auth, timeout=60) as member,
        anyio.create_task_group() as group,
    ):
        made = await owner.post(
            "/api/chats", json={"path": chat, "private": True, "invite": ["bob"]}
        )
        assert made.status_code == 200 and made.json()["private"] is True, made.text
        opened = await member.post("/api/documents/open", json={"path": chat})
        assert opened.status_code == 200, opened.text
        live = await connect(
            server.ws(f"/ws/documents/{opened.json()['docId']}"), additional_headers=auth
        )
        ended = [Ended("live-editing socket"), Ended("chat wait")]
        group.start_soon(_hold_socket, live, ended[0])

        async def wait() -> None:
            answer = await member.post(
                "/api/chats/wait", json={"path": chat, "as": "bob", "timeoutMs": 600_000}
            )
            ended[1].how, ended[1].at = answer.status_code, time.monotonic()
            ended[1].done.set()

        group.start_soon(wait)
        await anyio.sleep(0.5)  # the wait reaches the server and starts waiting
        assert all(item.at is None for item in ended), ended
        removed = await owner.post(
            "/api/chats/members", json={"path": chat, "action": "remove", "username": "bob"}
        )
        assert removed.status_code == 200, removed.text
        changed = time.monotonic()
        await _all_end(Opened([live], ended))
        for item in ended:
            assert item.at is not None and item.at - changed <= CLOSE_WITHIN_S, item
        assert [item.how for item in ended] == [4403, 403]
        again = await member.get("/api/chats/read", params={"path": chat})
        assert again.status_code == 403 and "access denied" in again.text.lower(), again.text
        kept = await owner.get("/api/chats/read", params={"path": chat})
        assert kept.status_code == 200, kept.text
