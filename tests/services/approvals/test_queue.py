"""The approvals queue on SQLite and PostgreSQL: a wait wakes the moment the person decides,
a decision is bound to the input hash, requests expire, caps and sizes hold, cards answered in
the terminal close, and a pending request outlives the service that queued it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from quire.api.events import ApprovalEvent, Event
from quire.core.approvals.binding import input_hash
from quire.core.errors import ApprovalNotFound, ApprovalRefused, FileTooLarge, InvalidArgument
from quire.db.approvals import StoredApproval
from quire.db.engine import Database
from quire.services.approvals.queue import Approvals
from quire.services.events import EventBus

pytestmark = pytest.mark.anyio
OWNER = "owner"
NOW = 1_700_000_000_000
COMMAND = {"command": "rm -rf build \u202e", "description": "Clean the build"}
QUESTION = {
    "questions": [
        {
            "question": "Which colour?",
            "header": "Colour",
            "multiSelect": True,
            "options": [{"label": "Red"}, {"label": "Blue"}, {"label": "Green"}],
        }
    ]
}
RULES = [
    {
        "type": "addRules",
        "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
        "behavior": "allow",
        "destination": "localSettings",
    }
]


@dataclass
class Clock:
    now: int = NOW

    def __call__(self) -> int:
        return self.now


@dataclass
class World:
    approvals: Approvals
    clock: Clock
    events: list[Event] = field(default_factory=list)

    async def ask(
        self, tool: str = "Bash", tool_input: dict[str, Any] | None = None, **kw: Any
    ) -> StoredApproval:
        fields: dict[str, Any] = {
            "harness": "claude-code",
            "session_id": "s1",
            "cwd": "/work",
            "tool_name": tool,
            "tool_input": COMMAND if tool_input is None else tool_input,
            "suggestions": [],
            "machine_label": "box",
        }
        fields.update(kw)
        return await self.approvals.request(OWNER, **fields)


class RecordingBus(EventBus):
    def __init__(self, seen: list[Event]) -> None:
        super().__init__()
        self.seen = seen

    def publish(self, user: str, event: Event) -> None:
        self.seen.append(event)
        super().publish(user, event)


async def never(_: float) -> None:
    await anyio.sleep_forever()


@pytest.fixture
async def world(database: Database) -> AsyncIterator[World]:
    clock = Clock()
    events: list[Event] = []
    yield World(Approvals(database, RecordingBus(events), clock=clock), clock, events)


def actions(world: World) -> list[str]:
    return [e.data.action for e in world.events if isinstance(e, ApprovalEvent)]


async def test_a_wait_wakes_the_moment_the_person_decides(world: World) -> None:
    approval = await world.ask()
    assert approval.input_hash == input_hash("Bash", COMMAND)
    results: list[str] = []

    async def waiter() -> None:
        results.append((await world.approvals.wait(OWNER, approval.id, 600_000)).status)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            await world.approvals.decide(
                OWNER, approval.id, hash_of_input=approval.input_hash, behavior="allow"
            )
    assert results == ["decided"]
    stored = await world.approvals.get(OWNER, approval.id)
    assert stored.decision == {"behavior": "allow"}
    assert actions(world) == ["new", "decided"]


async def test_a_decision_for_another_input_hash_is_refused_and_changes_nothing(
    world: World,
) -> None:
    approval = await world.ask()
    other = input_hash("Bash", {**COMMAND, "command": "rm -rf build"})
    for wrong in (other, "", "A" * 64, approval.input_hash[:-1]):
        with pytest.raises(ApprovalRefused, match="another tool input"):
            await world.approvals.decide(OWNER, approval.id, hash_of_input=wrong, behavior="allow")
    assert (await world.approvals.get(OWNER, approval.id)).status == "pending"


async def test_a_decided_request_cannot_be_decided_again(world: World) -> None:
    approval = await world.ask()
    await world.approvals.decide(
        OWNER, approval.id, hash_of_input=approval.input_hash, behavior="deny", message="No."
    )
    assert (await world.approvals.get(OWNER, approval.id)).decision == {
        "behavior": "deny",
        "message": "No.",
    }
    with pytest.raises(ApprovalRefused, match="already decided"):
        await world.approvals.decide(
            OWNER, approval.id, hash_of_input=approval.input_hash, behavior="allow"
        )


async def test_a_request_expires_at_its_deadline_and_cannot_be_decided_then(
    world: World,
) -> None:
    approval = await world.ask(ttl_ms=60_000)
    world.clock.now += 60_000
    with anyio.fail_after(5):
        assert (await world.approvals.wait(OWNER, approval.id, 5_000)).status == "expired"
    with pytest.raises(ApprovalRefused, match="expired"):
        await world.approvals.decide(
            OWNER, approval.id, hash_of_input=approval.input_hash, behavior="allow"
        )
    assert actions(world) == ["new", "expired"]


async def test_a_request_without_a_ttl_lives_10_minutes(world: World) -> None:
    approval = await world.ask()
    assert approval.deadline_ms - approval.created_at_ms == 10 * 60 * 1000
    world.clock.now += 10 * 60 * 1000 - 1
    assert (await world.approvals.get(OWNER, approval.id)).status == "pending"
    world.clock.now += 1
    assert (await world.approvals.get(OWNER, approval.id)).status == "expired"


async def test_a_wait_that_runs_out_answers_pending(database: Database) -> None:
    clock = Clock()

    async def tick(seconds: float) -> None:
        clock.now += round(seconds * 1000)

    approvals = Approvals(database, EventBus(), clock=clock, sleep=tick)
    approval = await approvals.request(
        OWNER,
        harness="codex",
        session_id="s",
        cwd="/w",
        tool_name="Bash",
        tool_input={"command": ["ls", "-l"]},
        suggestions=[],
        machine_label="box",
    )
    with anyio.fail_after(5):
        assert (await approvals.wait(OWNER, approval.id, 1_000)).status == "pending"


@pytest.mark.parametrize(
    ("field_name", "value"),
    [
        ("ttl_ms", 59_999),
        ("ttl_ms", 3_600_001),
        ("harness", "cursor"),
        ("session_id", " "),
        ("session_id", "x" * 201),
        ("cwd", "a\0b"),
        ("machine_label", "bad label"),
        ("machine_label", ""),
    ],
)
async def test_bad_fields_are_refused_and_nothing_is_queued(
    world: World, field_name: str, value: Any
) -> None:
    with pytest.raises(InvalidArgument):
        await world.ask(**{field_name: value})
    assert (await world.approvals.listing(OWNER))[1] == 0


async def test_an_input_over_64_kb_is_refused(world: World) -> None:
    with pytest.raises(FileTooLarge):
        await world.ask(tool_input={"command": "x" * 65_536})


async def test_at_most_20_wait_per_machine_label_and_100_per_account(world: World) -> None:
    for _ in range(20):
        await world.ask(machine_label="busy")
    with pytest.raises(ApprovalRefused, match="from the machine 'busy'"):
        await world.ask(machine_label="busy")
    for number in range(80):
        await world.ask(machine_label=f"m{number % 5}")
    with pytest.raises(ApprovalRefused, match="100 approval requests"):
        await world.ask(machine_label="fresh")
    assert (await world.approvals.listing(OWNER))[1] == 100


async def test_expired_requests_no_longer_count_against_the_caps(world: World) -> None:
    for _ in range(20):
        await world.ask(machine_label="busy", ttl_ms=60_000)
    world.clock.now += 60_000
    await world.ask(machine_label="busy")


async def test_done_closes_the_sessions_card_for_that_call_only(world: World) -> None:
    first = await world.ask()
    second = await world.ask(tool_input={"command": "ls"})
    other = await world.ask(session_id="s2")
    assert await world.approvals.done(OWNER, "s1", "Bash", {"command": "ls"}) == 1
    assert (await world.approvals.get(OWNER, second.id)).status == "answered"
    assert (await world.approvals.get(OWNER, first.id)).status == "pending"
    assert await world.approvals.done(OWNER, "s1") == 1
    assert (await world.approvals.get(OWNER, first.id)).status == "answered"
    assert (await world.approvals.get(OWNER, other.id)).status == "pending"
    with pytest.raises(ApprovalRefused, match="answered in the agent's terminal"):
        await world.approvals.decide(
            OWNER, first.id, hash_of_input=first.input_hash, behavior="allow"
        )


async def test_a_questions_answers_go_back_in_option_order_then_the_typed_text(
    world: World,
) -> None:
    approval = await world.ask("AskUserQuestion", QUESTION)
    with pytest.raises(InvalidArgument):
        await world.approvals.decide(
            OWNER, approval.id, hash_of_input=approval.input_hash, behavior="allow"
        )
    with pytest.raises(InvalidArgument):
        await world.approvals.decide(
            OWNER, approval.id, hash_of_input=approval.input_hash, behavior="allow",
            answers=[[3]],
        )  # fmt: skip
    decided = await world.approvals.decide(
        OWNER,
        approval.id,
        hash_of_input=approval.input_hash,
        behavior="allow",
        answers=[[2, 0]],
        other=["teal"],
    )
    assert decided.decision == {
        "behavior": "allow",
        "updatedInput": {**QUESTION, "answers": {"Which colour?": "Red, Green, teal"}},
    }


async def test_allow_for_the_session_echoes_the_offered_rule_for_claude_code_only(
    world: World,
) -> None:
    bare = await world.ask()
    with pytest.raises(ApprovalRefused, match="no rule"):
        await world.approvals.decide(
            OWNER, bare.id, hash_of_input=bare.input_hash, behavior="allow_session"
        )
    codex = await world.ask(harness="codex", suggestions=RULES)
    with pytest.raises(ApprovalRefused, match="no rule"):
        await world.approvals.decide(
            OWNER, codex.id, hash_of_input=codex.input_hash, behavior="allow_session"
        )
    offered = await world.ask(suggestions=RULES)
    record = await world.approvals.record(offered)
    assert record.session_allows == ("Bash(npm test)",)
    decided = await world.approvals.decide(
        OWNER, offered.id, hash_of_input=offered.input_hash, behavior="allow_session"
    )
    assert decided.decision == {
        "behavior": "allow",
        "updatedPermissions": [{**RULES[0], "destination": "session"}],
    }


async def test_the_card_shows_hidden_characters_as_escapes(world: World) -> None:
    record = await world.approvals.record(await world.ask())
    assert record.card.kind == "command"
    assert record.card.text == "rm -rf build \\u{202E}"
    assert record.card.description == "Clean the build"
    assert record.card.hidden


async def test_an_unknown_or_anothers_id_is_not_found(world: World) -> None:
    approval = await world.ask()
    for who, approval_id in (("someone", approval.id), (OWNER, "0" * 28), (OWNER, "../x")):
        with pytest.raises(ApprovalNotFound):
            await world.approvals.get(who, approval_id)


async def test_a_pending_request_outlives_its_service_and_a_new_wait_gets_the_decision(
    database: Database,
) -> None:
    clock = Clock()
    first = Approvals(database, EventBus(), clock=clock)
    approval = await first.request(
        OWNER,
        harness="claude-code",
        session_id="s",
        cwd="/w",
        tool_name="Bash",
        tool_input={"command": "make"},
        suggestions=[],
        machine_label="box",
    )
    del first
    restarted = Approvals(database, EventBus(), clock=clock)
    statuses: list[str] = []

    async def waiter() -> None:
        statuses.append((await restarted.wait(OWNER, approval.id, 600_000)).status)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            await restarted.decide(
                OWNER, approval.id, hash_of_input=approval.input_hash, behavior="allow"
            )
    assert statuses == ["decided"]
