"""The keepalive Stop hook: Stop payloads against what the server recorded → exact stdout."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from quire.cli import chat_keepalive
from quire.cli.chat_keepalive import MAX_PAYLOAD_BYTES, block, keepalive_answer, read_payload
from quire.client.api import QuireApi
from quire.client.approvals import ApprovalsApi
from quire.client.chats import ChatApi
from quire.client.connection import ServerLink
from quire.client.servers import RemoteAddress, parse_address
from quire.client.session_server import Linker
from quire.core.chat import STOPS_TO_RELEASE
from quire.core.server_info import ServerInfo
from quire.services.app import open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.cli.chat_world import PROGRAM, chat_world
from tests.support.machines import machine_under
from tests.support.world import FakeClock

pytestmark = pytest.mark.anyio

TOKEN = "k" * 64
URL = "http://127.0.0.1:4747"
SESSION = "sess-1"
WAIT = "quire chat wait Chats/team.md --as bot --timeout 120"
TRANSCRIPT_WAIT = "quire chat wait Chats/other.md --as bot"


@dataclass
class World:
    """The app in process, a link to it as the hook has, and the hook's own clock."""

    chat: Path
    state: Path
    chats: ChatApi
    link: ServerLink
    server_clock: FakeClock
    hook_clock: FakeClock
    tmp: Path
    api: QuireApi
    transport: httpx.AsyncBaseTransport

    async def hook(self, payload: Any, **environ: str) -> str:
        return await self.hook_on(payload, "", **environ)

    async def hook_on(self, payload: Any, hostname: str, **environ: str) -> str:
        """The hook's answer, run on a machine called ``hostname``."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        answer = await keepalive_answer(
            data, environ=environ, link=self.link, clock=self.hook_clock, hostname=hostname
        )
        return "" if answer is None else answer

    def transcript(self, *commands: str) -> str:
        path = self.tmp / f"transcript-{len(list(self.tmp.glob('transcript-*')))}.jsonl"
        lines = [
            {
                "type": "assistant",
                "message": {
                    "content": [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
                },
            }
            for command in commands
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        return str(path)


@asynccontextmanager
async def world(
    tmp_path: Path, *, running: bool = True, approvals: bool = False
) -> AsyncIterator[World]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    settings = Settings(
        workspaces=(workspace,), state_dir=state, port=4747, approvals_enabled=approvals
    )
    server_clock = FakeClock()
    async with open_services(
        settings, token=TOKEN, clock=server_clock, machine=machine_under(tmp_path)
    ) as services:
        transport = httpx.ASGITransport(app=create_app(services))
        info = ServerInfo(url=URL, token=TOKEN, pid=os.getpid())
        api = QuireApi(info, server_file=state / "server.json", transport=transport)
        link = (
            ServerLink(state=state, fixed=info, transport=transport)
            if running
            else ServerLink(state=state)
        )
        chat = workspace / "Chats" / "team.md"
        chats = ChatApi(api)
        await chats.create(str(chat), "Team")
        try:
            yield World(
                chat, state, chats, link, server_clock, FakeClock(), tmp_path, api, transport
            )
        finally:
            await api.aclose()
            await link.aclose()


async def waited(w: World, session: str = SESSION) -> None:
    """bot waited (with its session and command) and got a message."""
    await w.chats.read(str(w.chat), "bot")
    await w.chats.post(str(w.chat), "ann", "ping @bot")
    result = await w.chats.wait(str(w.chat), "bot", timeout_ms=1000, session=session, command=WAIT)
    assert result.status == "messages"


async def waited_then_posted(w: World) -> None:
    await waited(w)
    await w.chats.post(str(w.chat), "bot", "pong", session=SESSION)


async def waited_then_left(w: World) -> None:
    await waited(w)
    await w.chats.leave(str(w.chat), "bot", session=SESSION)


async def waited_then_deleted(w: World) -> None:
    await waited(w)
    await w.chats.delete(str(w.chat))


async def only_read(w: World) -> None:
    await w.chats.read(str(w.chat), "bot", session=SESSION)


async def nothing(w: World) -> None:
    return None


Setup = Callable[[World], Awaitable[None]]
BLOCK = block(WAIT)
FROM_TRANSCRIPT = block(TRANSCRIPT_WAIT)

# (name, what the server recorded, payload fields, transcript commands, environment, stdout)
TABLE: list[tuple[str, Setup, dict[str, Any], tuple[str, ...] | None, dict[str, str], str]] = [
    ("a session whose last chat command was a wait", waited, {}, None, {}, BLOCK),
    ("a wait followed by a reply", waited_then_posted, {}, None, {}, BLOCK),
    (
        "stop_hook_active with a server to count stops",
        waited,
        {"stop_hook_active": True},
        None,
        {},
        BLOCK,
    ),
    ("a session that left", waited_then_left, {}, None, {}, ""),
    ("a chat deleted after the wait", waited_then_deleted, {}, None, {}, ""),
    ("a session that only read", only_read, {}, None, {}, ""),
    ("a session that never joined a chat", nothing, {}, None, {}, ""),
    ("QUIRE_KEEPALIVE=0", waited, {}, None, {"QUIRE_KEEPALIVE": "0"}, ""),
    ("QUIRE_KEEPALIVE=1", waited, {}, None, {"QUIRE_KEEPALIVE": "1"}, BLOCK),
    (
        "unknown session, transcript ends in a wait",
        nothing,
        {},
        (TRANSCRIPT_WAIT,),
        {},
        FROM_TRANSCRIPT,
    ),
    (
        "unknown session, transcript ends in a leave",
        nothing,
        {},
        (TRANSCRIPT_WAIT, "quire chat leave Chats/other.md --as bot"),
        {},
        "",
    ),
    (
        "the server's record wins over the transcript",
        waited_then_left,
        {},
        (TRANSCRIPT_WAIT,),
        {},
        "",
    ),
    (
        "no session id, transcript wait",
        nothing,
        {"session_id": None},
        (TRANSCRIPT_WAIT,),
        {},
        FROM_TRANSCRIPT,
    ),
    (
        "no session id, transcript wait, stop_hook_active",
        nothing,
        {"session_id": None, "stop_hook_active": True},
        (TRANSCRIPT_WAIT,),
        {},
        "",
    ),
    ("a session id the server refuses", nothing, {"session_id": "has space"}, None, {}, ""),
    ("a session id that is not a string", waited, {"session_id": 42}, None, {}, ""),
]


@pytest.mark.parametrize(
    ("setup", "fields", "transcript", "environ", "stdout"),
    [row[1:] for row in TABLE],
    ids=[row[0] for row in TABLE],
)
async def test_the_hook_answers_from_the_recorded_state(
    tmp_path: Path,
    setup: Setup,
    fields: dict[str, Any],
    transcript: tuple[str, ...] | None,
    environ: dict[str, str],
    stdout: str,
) -> None:
    async with world(tmp_path) as w:
        await setup(w)
        payload: dict[str, Any] = {
            "session_id": SESSION,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "cwd": str(tmp_path),
            **fields,
        }
        if transcript is not None:
            payload["transcript_path"] = w.transcript(*transcript)
        assert await w.hook(payload, **environ) == stdout


@pytest.mark.parametrize(
    "data",
    [b"", b"not json", b"[]", b"null", b'"Stop"', b"{", b"\xff\xfe", b"[" * 100_000],
)
async def test_payloads_that_are_not_a_json_object_let_the_agent_stop(
    tmp_path: Path, data: bytes
) -> None:
    async with world(tmp_path) as w:
        await waited(w)
        assert await w.hook(data) == ""


def test_a_payload_over_64_mib_is_ignored_unread() -> None:
    assert read_payload(b" " * (MAX_PAYLOAD_BYTES + 1)) is None
    assert read_payload(b'{"session_id": "s"}') is not None


async def test_three_stops_within_two_minutes_let_the_agent_stop(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await waited(w)
        payload = {"session_id": SESSION, "stop_hook_active": True}
        answers = []
        for _ in range(3):
            answers.append(await w.hook(payload))
            w.server_clock.advance(30_000)
        w.server_clock.advance(120_000)
        answers.append(await w.hook(payload))
    assert answers == [BLOCK, BLOCK, "", BLOCK]


async def test_the_stop_that_lets_a_chat_agent_go_raises_one_stopped_notice(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, approvals=True) as w:
        (w.state / "approvals.conf").write_text("MACHINE_LABEL=build-box\n", encoding="utf-8")
        await waited(w)
        payload = {"session_id": SESSION, "turn_id": "t-1", "stop_hook_active": True}
        answers = [await w.hook_on(payload, "laptop.local") for _ in range(STOPS_TO_RELEASE)]
        listed = await ApprovalsApi(w.api).listing()
        answers.append(await w.hook_on(payload, "laptop.local"))
        again = await ApprovalsApi(w.api).listing()
        text = w.chat.read_text(encoding="utf-8")
    assert answers == [BLOCK, BLOCK, "", ""]
    assert [(n.kind, n.harness, n.machine_label) for n in listed.notices] == [
        ("stopped", "codex", "build-box")
    ]
    assert len(again.notices) == 1  # one per session and kind: a repeat replaces it
    assert text.count("bot (Codex on build-box) stopped and no longer listens") == 1


async def test_two_stops_raise_no_notice_and_without_a_policy_the_host_names_the_machine(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, approvals=True) as w:
        await waited(w)
        payload = {"session_id": SESSION, "stop_hook_active": True}
        first = [await w.hook_on(payload, "laptop.local") for _ in range(STOPS_TO_RELEASE - 1)]
        before = await ApprovalsApi(w.api).listing()
        await w.hook_on(payload, "laptop.local")
        after = await ApprovalsApi(w.api).listing()
    assert (first, before.notices) == ([BLOCK, BLOCK], ())
    assert [(n.harness, n.machine_label) for n in after.notices] == [("claude-code", "laptop")]


async def test_with_no_server_the_transcript_and_a_local_count_decide(tmp_path: Path) -> None:
    async with world(tmp_path, running=False) as w:
        payload = {"session_id": SESSION, "transcript_path": w.transcript(TRANSCRIPT_WAIT)}
        answers = []
        for _ in range(3):
            answers.append(await w.hook(payload))
            w.hook_clock.advance(10_000)
        w.hook_clock.advance(200_000)
        answers.append(await w.hook(payload))
        other = await w.hook({**payload, "session_id": "another"})
    assert answers == [FROM_TRANSCRIPT, FROM_TRANSCRIPT, "", FROM_TRANSCRIPT]
    assert other == FROM_TRANSCRIPT


async def test_the_installed_hook_answers_on_stdout_and_exits_0(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as real:
        chat = real.workspace / "Chats" / "team.md"
        await real.chats.create(str(chat), "Team")
        await real.chats.read(str(chat), "bot")
        waited_cli = await real.cli(
            "wait", "Chats/team.md", "--as", "bot", "--timeout", "1", "--session", "live-1"
        )
        payload = json.dumps({"session_id": "live-1", "stop_hook_active": False}).encode()
        answered = await real.cli("keepalive", stdin=payload)
        garbage = await real.cli("keepalive", stdin=b"\x00garbage")
        off = await real.cli("keepalive", stdin=payload, environ=real.environ(QUIRE_KEEPALIVE="0"))
    assert waited_cli.code == 2
    arguments = ("Chats/team.md", "--as", "bot", "--timeout", "1", "--session", "live-1")
    command = shlex.join([*PROGRAM, "chat", "wait", *arguments])
    assert (answered.code, answered.stdout, answered.stderr) == (
        0,
        json.dumps({"decision": "block", "reason": command}) + "\n",
        "",
    )
    assert (garbage.code, garbage.stdout) == (0, "")
    assert (off.code, off.stdout) == (0, "")


# The session chats on a signed-in server: the app in process stands for @team, reached through
# a linker as `alias_link` would link it; this machine runs no server of its own.
REMOTE_CHAT = "@team/ws/Chats/team.md"
REMOTE_WAIT = f"quire chat wait {REMOTE_CHAT} --as bot"


def linked_to(transport: httpx.AsyncBaseTransport, linked: list[str]) -> Linker:
    """A linker that reaches the server over ``transport`` and notes each address linked."""

    def link(state: Path, raw: str, argument: str) -> tuple[ServerLink, RemoteAddress]:
        linked.append(raw)
        info = ServerInfo(url=URL, token=TOKEN, pid=0)
        remote = ServerLink(state=state, fixed=info, transport=transport, remote=True)
        return remote, parse_address(raw, argument)

    return link


async def remote_hook(
    w: World, payload: dict[str, Any], linker: Linker, reports: list[str] | None = None
) -> str:
    """The hook's answer on a machine whose own server is not running."""
    local = ServerLink(state=w.state)
    try:
        answer = await keepalive_answer(
            json.dumps(payload).encode(),
            environ={},
            link=local,
            clock=w.hook_clock,
            report=(reports if reports is not None else []).append,
            linker=linker,
        )
    finally:
        await local.aclose()
    return "" if answer is None else answer


async def test_a_remote_chat_is_answered_from_that_server_s_record(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await waited(w)
        linked: list[str] = []
        payload = {"session_id": SESSION, "transcript_path": w.transcript(REMOTE_WAIT)}
        waiting = await remote_hook(w, payload, linked_to(w.transport, linked))
        await w.chats.leave(str(w.chat), "bot", session=SESSION)
        left = await remote_hook(w, payload, linked_to(w.transport, linked))
    # The server's record wins: its exact wait, then its leave, though the transcript waits.
    assert (waiting, left) == (BLOCK, "")
    assert linked == [REMOTE_CHAT, REMOTE_CHAT]


async def test_a_remote_session_s_stops_are_counted_on_that_server(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await waited(w)
        linker = linked_to(w.transport, [])
        payload = {
            "session_id": SESSION,
            "transcript_path": w.transcript(REMOTE_WAIT),
            "stop_hook_active": True,
        }
        answers = [await remote_hook(w, payload, linker) for _ in range(STOPS_TO_RELEASE)]
        w.hook_clock.advance(600_000)  # the local count could not release it: the server's does
        answers.append(await remote_hook(w, payload, linker))
    assert answers == [BLOCK, BLOCK, "", ""]
    assert not (w.state / "keepalive").exists()


async def test_a_local_chat_never_links_a_signed_in_server(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await waited(w)
        linked: list[str] = []
        payload = {"session_id": SESSION, "transcript_path": w.transcript(TRANSCRIPT_WAIT)}
        answer = await remote_hook(w, payload, linked_to(w.transport, linked))
    assert (answer, linked) == (FROM_TRANSCRIPT, [])


async def test_an_alias_not_signed_in_is_not_asked_of_the_local_server(tmp_path: Path) -> None:
    # The local server knows the session waiting in its own chat; the transcript says the
    # session went on to @gone and left it there: that is the chat that counts.
    async with world(tmp_path) as w:
        await waited(w)
        gone = "@gone/ws/Chats/team.md"
        transcript = w.transcript(f"quire chat wait {gone}", f"quire chat leave {gone}")
        reports: list[str] = []
        answer = await keepalive_answer(
            json.dumps({"session_id": SESSION, "transcript_path": transcript}).encode(),
            environ={},
            link=w.link,
            clock=w.hook_clock,
            report=reports.append,
        )
    assert answer is None
    assert len(reports) == 1 and "`quire login @gone URL`" in reports[0]


def refusing(request: httpx.Request) -> httpx.Response:
    return httpx.Response(401, json={"error": {"code": "token_refused", "message": "no"}})


async def hanging(request: httpx.Request) -> httpx.Response:
    await anyio.sleep_forever()
    raise AssertionError("unreachable")


async def test_a_remote_that_refuses_the_token_leaves_it_to_the_transcript_and_local_count(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        linker = linked_to(httpx.MockTransport(refusing), [])
        payload = {"session_id": SESSION, "transcript_path": w.transcript(REMOTE_WAIT)}
        reports: list[str] = []
        answers = []
        for _ in range(STOPS_TO_RELEASE):
            answers.append(await remote_hook(w, payload, linker, reports))
            w.hook_clock.advance(10_000)
    assert answers == [block(REMOTE_WAIT), block(REMOTE_WAIT), ""]
    assert (w.state / "keepalive").is_dir()
    assert "(HTTP 401)" in reports[0] and "Decided from the session transcript" in reports[0]
    assert all(TOKEN not in report for report in reports)


async def test_a_remote_that_never_answers_is_given_up_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_keepalive, "SERVER_SECONDS", 0.2)
    async with world(tmp_path) as w:
        linker = linked_to(httpx.MockTransport(hanging), [])
        payload = {"session_id": SESSION, "transcript_path": w.transcript(REMOTE_WAIT)}
        reports: list[str] = []
        with anyio.fail_after(10):
            answer = await remote_hook(w, payload, linker, reports)
    assert answer == block(REMOTE_WAIT)
    assert reports == [
        f"@team ({URL}) did not answer within 0.2 s. Decided from the session transcript instead."
    ]


class StopsHang(httpx.AsyncBaseTransport):
    """The server in process, except that recording a stop never answers."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/chats/session/stop":
            await anyio.sleep_forever()
        return await self.inner.handle_async_request(request)


async def test_a_stop_the_remote_never_counts_is_counted_here_within_the_same_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_keepalive, "SERVER_SECONDS", 0.5)
    async with world(tmp_path) as w:
        await waited(w)
        linker = linked_to(StopsHang(w.transport), [])
        payload = {"session_id": SESSION, "transcript_path": w.transcript(REMOTE_WAIT)}
        reports: list[str] = []
        with anyio.fail_after(10):
            answer = await remote_hook(w, payload, linker, reports)
    assert answer == BLOCK  # the server's record still decides what to run
    assert reports == [
        f"@team ({URL}) did not answer within 0.5 s. Counted this stop on this machine instead."
    ]
    assert (w.state / "keepalive").is_dir()
