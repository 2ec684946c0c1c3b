"""Presence in a chat: waiting, thinking and working, with /status and /context lifetimes."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.api.chats import ContextUse, Presence
from quire.services.chat.presence import CONTEXT_MS, REMOTE_KEPT_MS, STATUS_MS, ChatPresence
from tests.support.world import FakeClock

CHAT = "/ws/chat.md"


def _states(presence: ChatPresence) -> dict[str, str]:
    return {item.name: item.state for item in presence.snapshot(CHAT)}


def test_nobody_is_present_in_a_chat_nobody_used() -> None:
    assert ChatPresence(FakeClock()).snapshot(CHAT) == []


def test_a_wait_makes_its_reader_waiting_until_it_ends() -> None:
    presence = ChatPresence(FakeClock())
    assert presence.wait_started(CHAT, "qa-1")
    assert _states(presence) == {"qa-1": "waiting"}
    assert presence.wait_ended(CHAT, "qa-1", returned_messages=False)
    assert _states(presence) == {}


def test_a_wait_that_returned_messages_leaves_its_reader_thinking_until_it_posts() -> None:
    presence = ChatPresence(FakeClock())
    presence.wait_started(CHAT, "qa-1")
    presence.wait_ended(CHAT, "qa-1", returned_messages=True)
    assert _states(presence) == {"qa-1": "thinking"}
    assert presence.posted(CHAT, "QA-1")
    assert _states(presence) == {}


def test_two_open_waits_of_one_name_keep_it_waiting_until_both_end() -> None:
    presence = ChatPresence(FakeClock())
    presence.wait_started(CHAT, "qa-1")
    presence.wait_started(CHAT, "qa-1")
    presence.wait_ended(CHAT, "qa-1", returned_messages=False)
    assert _states(presence) == {"qa-1": "waiting"}
    presence.wait_ended(CHAT, "qa-1", returned_messages=False)
    assert _states(presence) == {}


def test_a_status_means_working_for_two_minutes() -> None:
    clock = FakeClock()
    presence = ChatPresence(clock)
    presence.set_status(CHAT, "qa-1", "reviewing the PR")
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="working", status="reviewing the PR", context=None)
    ]
    clock.advance(STATUS_MS - 1)
    assert _states(presence) == {"qa-1": "working"}
    clock.advance(1)
    assert presence.snapshot(CHAT) == []


def test_repeating_a_status_extends_it() -> None:
    clock = FakeClock()
    presence = ChatPresence(clock)
    presence.set_status(CHAT, "qa-1", "one")
    clock.advance(STATUS_MS - 10)
    presence.set_status(CHAT, "qa-1", "two")
    clock.advance(STATUS_MS - 10)
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="working", status="two", context=None)
    ]


def test_an_empty_status_a_post_and_an_empty_wait_each_clear_the_status() -> None:
    presence = ChatPresence(FakeClock())
    presence.set_status(CHAT, "qa-1", "busy")
    assert presence.set_status(CHAT, "qa-1", "")
    assert presence.snapshot(CHAT) == []
    presence.set_status(CHAT, "qa-1", "busy")
    presence.posted(CHAT, "qa-1")
    assert presence.snapshot(CHAT) == []
    presence.set_status(CHAT, "qa-1", "busy")
    presence.wait_started(CHAT, "qa-1")
    assert _states(presence) == {"qa-1": "waiting"}
    presence.wait_ended(CHAT, "qa-1", returned_messages=False)
    assert presence.snapshot(CHAT) == []


def test_a_wait_that_returned_messages_keeps_the_status() -> None:
    presence = ChatPresence(FakeClock())
    presence.set_status(CHAT, "qa-1", "busy")
    presence.wait_started(CHAT, "qa-1")
    presence.wait_ended(CHAT, "qa-1", returned_messages=True)
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="working", status="busy", context=None)
    ]


def test_a_context_report_lasts_an_hour_and_shows_with_the_names_state() -> None:
    clock = FakeClock()
    presence = ChatPresence(clock)
    report = ContextUse(text="87k/200k", percent=44)
    presence.set_context(CHAT, "qa-1", report)
    assert presence.snapshot(CHAT) == []
    presence.wait_started(CHAT, "qa-1")
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="waiting", status=None, context=report)
    ]
    clock.advance(CONTEXT_MS - 1)
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="waiting", status=None, context=report)
    ]
    clock.advance(1)
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="waiting", status=None, context=None)
    ]


def test_leaving_drops_status_context_and_thinking() -> None:
    presence = ChatPresence(FakeClock())
    presence.set_context(CHAT, "qa-1", ContextUse(text="5%", percent=5))
    presence.set_status(CHAT, "qa-1", "busy")
    assert presence.left(CHAT, "qa-1")
    assert presence.snapshot(CHAT) == []
    assert not presence.left(CHAT, "qa-1")
    presence.set_status(CHAT, "qa-1", "back")
    assert presence.snapshot(CHAT) == [
        Presence(name="qa-1", state="working", status="back", context=None)
    ]


def test_a_change_that_changes_nothing_says_so() -> None:
    presence = ChatPresence(FakeClock())
    assert not presence.posted(CHAT, "qa-1")
    assert presence.set_status(CHAT, "qa-1", "x")
    assert not presence.set_status(CHAT, "qa-1", "x")


def test_names_are_one_entry_whatever_their_case_showing_the_latest_spelling() -> None:
    presence = ChatPresence(FakeClock())
    presence.wait_started(CHAT, "qa-1")
    presence.set_status(CHAT, "QA-1", "busy")
    assert [item.name for item in presence.snapshot(CHAT)] == ["QA-1"]


def test_chats_are_separate_and_forgetting_one_keeps_the_others() -> None:
    presence = ChatPresence(FakeClock())
    presence.set_status(CHAT, "qa-1", "busy")
    presence.set_status("/ws/other.md", "qa-1", "elsewhere")
    assert presence.forget(Path(CHAT)) == [CHAT]
    assert presence.snapshot(CHAT) == []
    assert _states(presence) == {}
    assert presence.snapshot("/ws/other.md")[0].status == "elsewhere"


def test_a_folder_forgotten_drops_every_chat_below_it_only() -> None:
    presence = ChatPresence(FakeClock())
    presence.set_status("/ws/team/a.md", "qa-1", "busy")
    presence.set_status("/ws/team/b.md", "qa-2", "busy")
    presence.set_status("/ws/teamwork.md", "qa-3", "busy")
    assert sorted(presence.forget(Path("/ws/team"))) == ["/ws/team/a.md", "/ws/team/b.md"]
    assert [item.name for item in presence.snapshot("/ws/teamwork.md")] == ["qa-3"]


def test_presence_follows_a_chat_or_its_folder_moved() -> None:
    presence = ChatPresence(FakeClock())
    presence.set_status("/ws/team/a.md", "qa-1", "busy")
    presence.set_status("/ws/other.md", "qa-2", "elsewhere")
    assert presence.moved(Path("/ws/team"), Path("/ws/done")) == ["/ws/done/a.md"]
    assert presence.snapshot("/ws/team/a.md") == []
    assert [item.status for item in presence.snapshot("/ws/done/a.md")] == ["busy"]
    assert [item.name for item in presence.snapshot("/ws/other.md")] == ["qa-2"]


def test_another_replicas_entries_show_beside_ours_until_they_age_out() -> None:
    now = [1_000]
    ours = ChatPresence(lambda: now[0])
    theirs = ChatPresence(lambda: now[0])
    theirs.wait_started("/w/room.md", "Bot")
    theirs.set_status("/w/room.md", "helper", "reading")
    ours.set_status("/w/room.md", "bot", "mine")
    ours.heard("web-2", "/w/room.md", theirs.shared("/w/room.md"))
    shown = [(item.name, item.state, item.status) for item in ours.snapshot("/w/room.md")]
    assert shown == [("bot", "waiting", "mine"), ("helper", "working", "reading")]
    assert ours.chats() == ["/w/room.md"]
    now[0] += REMOTE_KEPT_MS + 1
    shown = [(item.name, item.state, item.status) for item in ours.snapshot("/w/room.md")]
    assert shown == [("bot", "working", "mine")]


def test_an_empty_list_from_a_replica_clears_its_entries() -> None:
    ours = ChatPresence(lambda: 0)
    theirs = ChatPresence(lambda: 0)
    theirs.wait_started("/w/room.md", "bot")
    ours.heard("web-2", "/w/room.md", theirs.shared("/w/room.md"))
    assert [item.name for item in ours.snapshot("/w/room.md")] == ["bot"]
    ours.heard("web-2", "/w/room.md", [])
    assert ours.snapshot("/w/room.md") == []


@pytest.mark.parametrize(
    "entry",
    [
        {},
        {"name": 1, "waits": 0, "thinking": False, "status": None, "statusUntil": 0,
         "context": None, "contextUntil": 0},
        {"name": "a", "waits": True, "thinking": False, "status": None, "statusUntil": 0,
         "context": None, "contextUntil": 0},
        {"name": "a", "waits": 0, "thinking": False, "status": 3, "statusUntil": 0,
         "context": None, "contextUntil": 0},
        {"name": "a", "waits": 0, "thinking": False, "status": None, "statusUntil": 0,
         "context": {"text": 1}, "contextUntil": 0},
    ],
)  # fmt: skip
def test_what_is_not_an_entry_is_refused(entry: dict[str, object]) -> None:
    with pytest.raises((ValueError, TypeError, KeyError)):
        ChatPresence(lambda: 0).heard("web-2", "/w/room.md", [entry])
