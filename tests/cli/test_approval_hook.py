"""`quire approval request` as the harness runs it (a subprocess) against a real server on a
port: the exact bytes it prints for each decision, nothing (exit 0) for every failure, the
decision bound to the real auth, and a request that outlives a `quire serve` restart."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from quire.core.server_info import ServerInfo
from tests.support.approval_world import (
    POLICY,
    Clock,
    Machine,
    app_on_a_port,
    ask,
    finished,
    make_machine,
    person_at,
    quire_serve,
    server_info,
    write_server_file,
)

pytestmark = pytest.mark.anyio

PREFIX = b'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'
QUESTION = {
    "questions": [
        {
            "question": "Which database?",
            "header": "DB",
            "multiSelect": True,
            "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}, {"label": "Redis"}],
        }
    ]
}
RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "make test"}],
    "behavior": "allow",
    "destination": "localSettings",
}


def encoded(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    ("request_json", "decision", "printed"),
    [
        (ask(), {"behavior": "allow"}, b'{"behavior":"allow"}}}'),
        (
            ask(),
            {"behavior": "deny", "message": "Run `make lint` first"},
            b'{"behavior":"deny","message":"Run `make lint` first"}}}',
        ),
        (
            ask("AskUserQuestion", QUESTION),
            {"behavior": "allow", "answers": [[2, 0]], "other": ["DuckDB"]},
            b'{"behavior":"allow","updatedInput":{"questions":[{"question":"Which database?",'
            b'"header":"DB","multiSelect":true,"options":[{"label":"SQLite"},'
            b'{"label":"PostgreSQL"},{"label":"Redis"}]}],'
            b'"answers":{"Which database?":"SQLite, Redis, DuckDB"}}}}}',
        ),
        (
            ask(permission_suggestions=[RULE]),
            {"behavior": "allow_session"},
            b'{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":'
            b'[{"toolName":"Bash","ruleContent":"make test"}],"behavior":"allow",'
            b'"destination":"session"}]}}}',
        ),
    ],
    ids=["allow", "deny-with-reason", "question-answers", "allow-for-session"],
)
async def test_the_hook_prints_exactly_the_persons_decision(
    tmp_path: Path,
    workspace: Path,
    request_json: dict[str, Any],
    decision: dict[str, Any],
    printed: bytes,
) -> None:
    machine = make_machine(tmp_path)
    with quire_serve(machine, workspace) as process:
        info = await server_info(machine.state, process)
        async with person_at(info) as person:
            hook = await machine.start_hook(encoded(request_json))
            card = await person.card()
            decided = await person.decide(card, **decision)
            assert decided.status_code == 200, decided.text
            ran = await finished(hook)
    assert (ran.code, ran.stdout) == (0, PREFIX + printed), ran.stderr


async def test_the_owners_token_cannot_decide_nor_a_changed_hash_and_the_cookie_then_can(
    tmp_path: Path, workspace: Path
) -> None:
    machine = make_machine(tmp_path)
    with quire_serve(machine, workspace) as process:
        info = await server_info(machine.state, process)
        async with person_at(info) as person:
            hook = await machine.start_hook(encoded(ask()))
            card = await person.card()
            by_token = await person.decide(card, token=True, behavior="allow")
            assert by_token.status_code == 403
            changed = await person.decide(
                {**card, "inputHash": "f" * 64}, behavior="allow"
            )  # the hash of another command
            assert changed.status_code == 409
            assert (await person.card())["status"] == "pending"
            assert (await person.decide(card, behavior="deny")).status_code == 200
            ran = await finished(hook)
    assert (
        ran.stdout == PREFIX + b'{"behavior":"deny","message":"The person denied this in Quire."}}}'
    )


async def test_a_pending_card_outlives_a_restart_and_the_hook_prints_the_later_decision(
    tmp_path: Path, workspace: Path
) -> None:
    machine = make_machine(tmp_path)
    with quire_serve(machine, workspace) as first:
        info = await server_info(machine.state, first)
        async with person_at(info) as person:
            hook = await machine.start_hook(encoded(ask()))
            before = await person.card()
        first.send_signal(signal.SIGTERM)
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(first.wait)
    with quire_serve(machine, workspace) as second:
        fresh = await server_info(machine.state, second)
        assert fresh.token != info.token
        async with person_at(fresh) as person:
            after = await person.card()
            assert after["approvalId"] == before["approvalId"]
            assert (await person.decide(after, behavior="allow")).status_code == 200
            ran = await finished(hook)
    assert (ran.code, ran.stdout) == (0, PREFIX + b'{"behavior":"allow"}}}'), ran.stderr


Case = Callable[[Machine], Awaitable[bytes]]


async def _no_policy(machine: Machine) -> bytes:
    machine.policy.unlink()
    return encoded(ask())


async def _bad_policy(machine: Machine) -> bytes:
    machine.policy.write_text(POLICY + "MAX_WAIT=5\n", encoding="utf-8")
    return encoded(ask())


async def _never_remote(machine: Machine) -> bytes:
    return encoded(ask(tool_input={"command": "SUDO reboot"}))


async def _tool_not_listed(machine: Machine) -> bytes:
    return encoded(ask("Write", {"file_path": "/w/a.md", "content": "x"}))


def _raw(data: bytes) -> Case:
    async def case(machine: Machine) -> bytes:
        return data

    return case


async def _unreachable(machine: Machine) -> bytes:
    write_server_file(machine.state, ServerInfo("http://127.0.0.1:9", "t" * 64, os.getpid()))
    return encoded(ask())


async def _token_refused(machine: Machine) -> bytes:
    record = json.loads((machine.state / "server.json").read_text("utf-8"))
    write_server_file(machine.state, ServerInfo(record["url"], "w" * 64, os.getpid()))
    return encoded(ask())


FAILURES: dict[str, Case] = {
    "no policy": _no_policy,
    "bad policy": _bad_policy,
    "NEVER_REMOTE": _never_remote,
    "tool not in TOOLS": _tool_not_listed,
    "not JSON": _raw(b"{not json"),
    "trailing data": _raw(encoded(ask()) + b" {}"),
    "key twice": _raw(b'{"session_id":"a","session_id":"b"}'),
    "keys in two cases": _raw(encoded({**ask(), "Tool_Name": "Read"})),
    "not an object": _raw(b"[]"),
    "not UTF-8": _raw(b'{"session_id":"\xff"}'),
    "over 1 MiB": _raw(encoded(ask(tool_input={"command": "x" * (1024 * 1024)}))),
    "another event": _raw(encoded({**ask(), "hook_event_name": "PreToolUse"})),
    "input over 64 KB": _raw(encoded(ask(tool_input={"command": "y" * 70_000}))),
    "server unreachable": _unreachable,
    "401": _token_refused,
}


@pytest.mark.parametrize("name", list(FAILURES))
async def test_every_failure_prints_nothing_exits_0_and_sends_nothing(
    tmp_path: Path, workspace: Path, name: str
) -> None:
    machine = make_machine(tmp_path)
    async with app_on_a_port(machine, workspace, Clock()) as (services, _):
        stdin = await FAILURES[name](machine)
        ran = await machine.hook(stdin)
        assert services.approvals is not None
        records, waiting = await services.approvals.listing("owner")
    assert (ran.code, ran.stdout) == (0, b""), ran.stderr
    assert (records, waiting) == ([], 0)


async def test_an_expired_request_prints_nothing(tmp_path: Path, workspace: Path) -> None:
    machine = make_machine(tmp_path)
    clock = Clock()
    async with (
        app_on_a_port(machine, workspace, clock) as (_, info),
        person_at(info) as person,
    ):
        hook = await machine.start_hook(encoded(ask()))
        card = await person.card()
        clock.now = card["deadline"]
        listed = await person.listing()  # the list records the expiry, waking the hook
        ran = await finished(hook)
    assert [a["status"] for a in listed["approvals"]] == ["expired"]
    assert (ran.code, ran.stdout) == (0, b""), ran.stderr


async def test_over_the_machine_labels_cap_the_hook_prints_nothing(
    tmp_path: Path, workspace: Path
) -> None:
    machine = make_machine(tmp_path)
    async with app_on_a_port(machine, workspace, Clock()) as (services, _):
        approvals = services.approvals
        assert approvals is not None
        for number in range(20):
            await approvals.request(
                "owner",
                harness="claude-code",
                session_id=f"other-{number}",
                cwd="/w",
                tool_name="Bash",
                tool_input={"command": "ls"},
                suggestions=[],
                machine_label="box",
            )
        ran = await machine.hook(encoded(ask()))
        waiting = (await approvals.listing("owner"))[1]
    assert (ran.code, ran.stdout, waiting) == (0, b"", 20)


async def test_a_card_answered_in_the_terminal_closes_and_the_hook_prints_nothing(
    tmp_path: Path, workspace: Path
) -> None:
    machine = make_machine(tmp_path)
    async with (
        app_on_a_port(machine, workspace, Clock()) as (_, info),
        person_at(info) as person,
    ):
        hook = await machine.start_hook(encoded(ask()))
        card = await person.card()
        post_tool_use = {**ask(), "hook_event_name": "PostToolUse", "tool_response": {}}
        done = await machine.hook(encoded(post_tool_use), command="done")
        ran = await finished(hook)
        listed = await person.listing()
    assert (done.code, done.stdout) == (0, b"")
    assert (ran.code, ran.stdout) == (0, b""), ran.stderr
    assert [(a["approvalId"], a["status"]) for a in listed["approvals"]] == [
        (card["approvalId"], "answered")
    ]


async def test_notify_raises_a_notice_but_not_while_a_card_of_the_session_asks(
    tmp_path: Path, workspace: Path
) -> None:
    machine = make_machine(tmp_path)
    idle = {**ask(), "hook_event_name": "Notification", "notification_type": "idle_prompt"}
    prompt = {**idle, "notification_type": "permission_prompt", "session_id": "sess-2"}
    async with (
        app_on_a_port(machine, workspace, Clock()) as (_, info),
        person_at(info) as person,
    ):
        hook = await machine.start_hook(encoded(ask(session_id="sess-2")))
        await person.card()
        ran = [await machine.hook(encoded(n), command="notify") for n in (idle, prompt)]
        notices = (await person.listing())["notices"]
        await machine.hook(
            encoded({**ask(session_id="sess-2"), "hook_event_name": "Stop"}), command="done"
        )
        assert (await finished(hook)).stdout == b""
    assert [(r.code, r.stdout) for r in ran] == [(0, b""), (0, b"")]
    assert [(n["sessionId"], n["kind"]) for n in notices] == [("sess-1", "idle")]
