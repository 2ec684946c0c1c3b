"""Notices: one per agent session and kind (a repeat replaces it), 12 hours long, dismissible,
gone when the agent carries on, and no "waiting in its terminal" notice while a card asks."""

from __future__ import annotations

import pytest

from quire.api.events import Event, NoticeEvent
from quire.db.engine import Database
from quire.services.approvals.notices import NOTICE_LIFE_MS, Notices
from quire.services.approvals.queue import Approvals
from quire.services.chat.sessions import Stopper
from tests.services.approvals.test_queue import Clock, RecordingBus

pytestmark = pytest.mark.anyio
OWNER = "owner"


def build(database: Database) -> tuple[Notices, Approvals, Clock, list[Event]]:
    clock = Clock()
    events: list[Event] = []
    bus = RecordingBus(events)
    approvals = Approvals(database, bus, clock=clock)
    return Notices(database, bus, approvals, clock=clock), approvals, clock, events


async def raise_one(notices: Notices, kind: str = "idle", message: str = "") -> object:
    return await notices.raise_notice(
        OWNER,
        session_id="s1",
        kind=kind,  # type: ignore[arg-type]
        harness="claude-code",
        machine_label="box",
        message=message,
    )


async def test_a_repeat_replaces_the_notice_of_its_session_and_kind(database: Database) -> None:
    notices, _, _, events = build(database)
    await raise_one(notices, "idle", "first")
    await raise_one(notices, "idle", "second \u202e")
    await raise_one(notices, "other", "Look")
    live = await notices.live(OWNER)
    assert sorted((n.kind, n.message) for n in live) == [
        ("idle", "second \\u{202E}"),
        ("other", "Look"),
    ]
    assert [e.data.action for e in events if isinstance(e, NoticeEvent)] == ["raised"] * 3


async def test_a_notice_lasts_12_hours(database: Database) -> None:
    notices, _, clock, _ = build(database)
    await raise_one(notices)
    clock.now += NOTICE_LIFE_MS - 1
    assert len(await notices.live(OWNER)) == 1
    clock.now += 1
    assert await notices.live(OWNER) == []


async def test_dismissing_and_carrying_on_remove_notices(database: Database) -> None:
    notices, _, _, events = build(database)
    await raise_one(notices, "idle")
    await raise_one(notices, "other")
    assert await notices.dismiss(OWNER, "s1", "idle") == 1
    assert [n.kind for n in await notices.live(OWNER)] == ["other"]
    assert await notices.dismiss(OWNER, "s1") == 1
    assert await notices.dismiss(OWNER, "s1") == 0
    assert [e.data.action for e in events if isinstance(e, NoticeEvent)][-2:] == ["removed"] * 2


async def test_no_terminal_notice_while_a_card_of_the_session_asks(database: Database) -> None:
    notices, approvals, _, _ = build(database)
    await approvals.request(
        OWNER,
        harness="claude-code",
        session_id="s1",
        cwd="/w",
        tool_name="Bash",
        tool_input={"command": "ls"},
        suggestions=[],
        machine_label="box",
    )
    assert await raise_one(notices, "terminal") is None
    assert await notices.live(OWNER) == []
    await approvals.done(OWNER, "s1")
    assert await raise_one(notices, "terminal") is not None
    assert [n.message for n in await notices.live(OWNER)] == [
        "is waiting for an answer in its terminal"
    ]


async def test_a_stopped_notice_stays_through_the_stop_hooks_report_until_a_tool_runs(
    database: Database,
) -> None:
    notices, _, _, _ = build(database)
    await notices.agent_stopped(Stopper(OWNER, "s1", "codex", "box"))
    await raise_one(notices, "idle")
    assert await notices.carried_on(OWNER, "s1", tool_ran=False) == 1
    assert [(n.kind, n.harness) for n in await notices.live(OWNER)] == [("stopped", "codex")]
    assert await notices.carried_on(OWNER, "s1", tool_ran=True) == 1
    assert await notices.live(OWNER) == []


async def test_a_stopped_notice_from_an_older_hook_names_an_unknown_machine(
    database: Database,
) -> None:
    notices, _, _, _ = build(database)
    await notices.agent_stopped(Stopper(OWNER, "s1"))
    [notice] = await notices.live(OWNER)
    assert (notice.kind, notice.harness, notice.machine_label) == (
        "stopped",
        "claude-code",
        "unknown",
    )
    assert notice.message == "stopped and no longer listens to the chat"
