"""Waiting in a chat: waking the moment a post lands, cursors per reader (kept across a
restart), own posts and mentions, timeouts, gone chats, presence and the role reminder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from quire.api.chats import Waited
from quire.core.chat import STOPS_TO_RELEASE
from quire.core.errors import InvalidArgument, PathRefused
from quire.core.views import OWNER
from quire.db.engine import Database
from quire.services.chat.reader_waits import REMINDER
from quire.services.chat.sessions import Stopper
from tests.support.chat_world import ChatWorld, open_chat_world

pytestmark = pytest.mark.anyio

WAKE_LIMIT_S = 5


@pytest.fixture
async def cw(database: Database, tmp_path: Path) -> AsyncIterator[ChatWorld]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_chat_world(database, workspace) as opened:
        yield opened


async def _states(cw: ChatWorld, path: Path) -> list[tuple[str, str | None]]:
    return [(item.name, item.state) for item in (await cw.chats.read(OWNER, path)).presence]


def _bodies(waited: Waited) -> list[str]:
    return [message.body for message in waited.messages]


async def _wait_and_post(
    cw: ChatWorld, path: Path, reader: str, posts: list[tuple[str, str]], **options: object
) -> Waited:
    """Start a wait, let it block, make ``posts``, and return what the wait got."""
    sleeping = cw.held()
    results: list[Waited] = []

    async def wait() -> None:
        results.append(await cw.chats.wait(OWNER, path, reader, **options))  # type: ignore[arg-type]

    with anyio.fail_after(WAKE_LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await sleeping.wait()
            for author, body in posts:
                await cw.post(path, author, body)
    return results[0]


async def test_a_wait_wakes_the_moment_a_message_is_posted(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=2)
    waited = await _wait_and_post(cw, path, "bob", [("ann", "are you there?")])
    assert waited.status == "messages"
    assert _bodies(waited) == ["are you there?"]
    assert waited.messages[0].number == 3
    assert waited.next == 3
    assert waited.reminder is None


async def test_a_reader_never_seen_starts_at_the_end_and_its_position_is_saved(
    cw: ChatWorld,
) -> None:
    path = cw.write_chat(messages=5)
    cw.world.sleep.hold = False
    first = await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert (first.status, first.messages, first.next) == ("timeout", (), 5)
    # Posted between two waits: the next wait still gets it.
    await cw.post(path, "ann", "while you were away")
    second = await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert _bodies(second) == ["while you were away"]
    assert second.next == 6


async def test_messages_posted_while_the_reader_was_busy_are_never_lost(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=1)
    cw.world.sleep.hold = False
    await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    for number in range(3):
        await cw.post(path, "ann", f"busy {number}")
    got = await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert _bodies(got) == ["busy 0", "busy 1", "busy 2"]
    assert got.next == 4


async def test_a_readers_own_posts_never_wake_it_nor_come_back(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    waited = await _wait_and_post(
        cw, path, "Bob", [("bob", "mine"), ("BOB", "mine too"), ("ann", "hers")], after=0
    )
    assert _bodies(waited) == ["hers"]
    assert waited.next == 3


async def test_only_own_posts_advance_the_position_without_waking(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    cw.world.sleep.hold = False
    await cw.post(path, "bob", "talking to myself")
    waited = await cw.chats.wait(OWNER, path, "bob", after=0, timeout_ms=1000)
    assert (waited.status, waited.next) == ("timeout", 1)
    again = await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert (again.status, again.next) == ("timeout", 1)


@pytest.mark.parametrize(
    ("body", "wakes"),
    [
        ("@bob please look", True),
        ("@BOB please look", True),
        ("@all standup", True),
        ("@everyone standup", True),
        ("mail bob@example.com", False),
        ("@bob-2 not you", False),
        ("`@bob` in code", False),
        ("no mention at all", False),
    ],
)
async def test_mentions_only_wakes_on_a_mention_of_the_reader(
    cw: ChatWorld, body: str, wakes: bool
) -> None:
    path = cw.write_chat(messages=0)
    posts = [("ann", body)] if wakes else [("ann", body), ("ann", "@bob the next one")]
    waited = await _wait_and_post(cw, path, "bob", posts, after=0, mentions_only=True)
    assert _bodies(waited) == [posts[-1][1]]
    assert waited.next == len(posts)


async def test_messages_that_do_not_match_advance_the_saved_position(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    cw.world.sleep.hold = False
    await cw.post(path, "ann", "chatter")
    quiet = await cw.chats.wait(OWNER, path, "bob", after=0, mentions_only=True, timeout_ms=1000)
    assert (quiet.status, quiet.next) == ("timeout", 1)
    await cw.post(path, "ann", "more chatter")
    everything = await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert _bodies(everything) == ["more chatter"]


@pytest.mark.parametrize(("after", "expected"), [(0, ["m1", "m2", "m3"]), (2, ["m3"])])
async def test_after_overrides_the_saved_position(
    cw: ChatWorld, after: int, expected: list[str]
) -> None:
    path = cw.write_chat(messages=3)
    cw.world.sleep.hold = False
    await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    waited = await cw.chats.wait(OWNER, path, "bob", after=after, timeout_ms=1000)
    assert _bodies(waited) == expected
    assert waited.next == 3


async def test_an_after_past_the_end_waits_for_the_next_message(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=2)
    waited = await _wait_and_post(cw, path, "bob", [("ann", "next")], after=50)
    assert _bodies(waited) == ["next"]


async def test_a_wait_times_out_after_its_timeout(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=1)
    start = cw.world.clock.now
    waited = await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert waited == Waited(status="timeout", messages=(), next=1, reminder=None)
    assert cw.world.clock.now - start == 1000


async def test_the_default_timeout_is_ten_minutes(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=1)
    start = cw.world.clock.now
    await cw.chats.wait(OWNER, path, "bob")
    assert cw.world.clock.now - start == 600_000


@pytest.mark.parametrize("watch", [False, True], ids=["stored at once", "stored behind"])
async def test_the_position_survives_a_server_restart(
    database: Database, tmp_path: Path, watch: bool
) -> None:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_chat_world(database, workspace, watch=watch) as first:
        path = first.write_chat(messages=3)
        first.world.sleep.hold = False
        got = await first.chats.wait(OWNER, path, "qa-1", after=0, timeout_ms=1000)
        assert got.next == 3
        await first.post(path, "ann", "before the restart")
    async with open_chat_world(database, workspace, watch=watch) as second:
        second.world.sleep.hold = False
        waited = await second.chats.wait(OWNER, path, "QA-1", timeout_ms=1000)
    assert _bodies(waited) == ["before the restart"]


async def test_a_chat_deleted_mid_wait_ends_the_wait_as_gone(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=1)
    sleeping = cw.held()
    results: list[Waited] = []

    async def wait() -> None:
        results.append(await cw.chats.wait(OWNER, path, "bob", session="s-1", command="w"))

    with anyio.fail_after(WAKE_LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await sleeping.wait()
            await cw.chats.delete(OWNER, path)
    assert results[0].status == "gone"
    session = await cw.chats.sessions.lookup(OWNER, "s-1")
    assert session is not None and session.last_kind == "leave"


@pytest.mark.parametrize(
    "spoil",
    [
        lambda path: path.unlink(),
        lambda path: path.write_bytes(b"---\nquire-chat: true\n---\n\xff\xfe"),
        lambda path: path.write_text("# no longer a chat\n", encoding="utf-8"),
    ],
    ids=["deleted", "not UTF-8", "tag removed"],
)
async def test_a_chat_spoiled_outside_quire_mid_wait_ends_the_wait_as_gone(
    database: Database, tmp_path: Path, spoil: object
) -> None:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_chat_world(database, workspace, watch=True) as cw:
        path = cw.write_chat(messages=1)
        sleeping = cw.held()
        results: list[Waited] = []

        async def wait() -> None:
            results.append(await cw.chats.wait(OWNER, path, "bob"))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await sleeping.wait()
                assert callable(spoil)
                spoil(path)
        assert results[0].status == "gone"


async def test_a_message_appended_outside_quire_wakes_a_watched_wait(
    database: Database, tmp_path: Path
) -> None:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_chat_world(database, workspace, watch=True) as cw:
        path = cw.write_chat(messages=1)
        sleeping = cw.held()
        results: list[Waited] = []

        async def wait() -> None:
            results.append(await cw.chats.wait(OWNER, path, "bob", after=1))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await sleeping.wait()
                with path.open("a", encoding="utf-8") as note:
                    note.write("\n#### carol · 2026-10-02T15:00:00Z\n\nwritten by hand\n")
        assert _bodies(results[0]) == ["written by hand"]


async def test_a_wait_on_a_missing_chat_is_gone_at_once(cw: ChatWorld) -> None:
    waited = await cw.chats.wait(OWNER, cw.workspace / "Chats" / "nothing.md", "bob")
    assert (waited.status, waited.messages, waited.next) == ("gone", (), 0)


async def test_a_reader_with_a_role_is_reminded_after_messages_only(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    await cw.chats.post(OWNER, path, "qa-1", "/role Test the login page")
    cw.world.sleep.hold = False
    empty = await cw.chats.wait(OWNER, path, "QA-1", timeout_ms=1000)
    assert empty.reminder is None
    await cw.post(path, "ann", "hello")
    waited = await cw.chats.wait(OWNER, path, "QA-1", timeout_ms=1000)
    assert waited.reminder == REMINDER.format(name="QA-1", role="Test the login page")
    assert waited.reminder.startswith("(reminder for QA-1) Your role in this chat: Test the")


async def test_presence_follows_the_wait(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    key = str(path)
    sleeping = cw.held()
    states: list[object] = []

    async def wait() -> None:
        await cw.chats.wait(OWNER, path, "bob", after=0)

    with anyio.fail_after(WAKE_LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await sleeping.wait()
            states.append(await _states(cw, path))
            await cw.post(path, "ann", "wake up")
    states.append(await _states(cw, path))
    await cw.post(path, "bob", "on it")
    states.append(await _states(cw, path))
    assert states == [[("bob", "waiting")], [("bob", "thinking")], []]
    assert cw.world.bus.of_kind("chat-presence").count({"path": key}) >= 3


async def test_an_empty_wait_clears_the_readers_status(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    await cw.chats.post(OWNER, path, "bob", "/status reviewing")
    assert await _states(cw, path) == [("bob", "working")]
    await cw.chats.wait(OWNER, path, "bob", timeout_ms=1000)
    assert await _states(cw, path) == []


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        ({"timeout_ms": 999}, "timeoutMs"),
        ({"timeout_ms": 600_001}, "timeoutMs"),
        ({"timeout_ms": True}, "timeoutMs"),
        ({"after": -1}, "after"),
        ({"session": "has space"}, "session"),
        ({"session": ""}, "session"),
        ({"session": "x" * 201}, "session"),
        ({"command": "a\0b"}, "command"),
    ],
)
async def test_bad_wait_arguments_are_refused_before_waiting(
    cw: ChatWorld, options: dict[str, object], argument: str
) -> None:
    path = cw.write_chat(messages=0)
    with pytest.raises(InvalidArgument) as caught:
        await cw.chats.wait(OWNER, path, "bob", **options)  # type: ignore[arg-type]
    assert caught.value.argument == argument


async def test_a_wait_outside_every_workspace_is_refused(cw: ChatWorld, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("---\nquire-chat: true\n---\n", encoding="utf-8")
    with pytest.raises(PathRefused, match="outside every workspace"):
        await cw.chats.wait(OWNER, outside, "bob")


async def test_sessions_record_the_last_wait_command_and_leaving(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=0)
    cw.world.sleep.hold = False
    command = "quire chat wait Chats/team.md --as qa-1"
    await cw.chats.wait(OWNER, path, "qa-1", timeout_ms=1000, session="s-9", command=command)
    found = await cw.chats.sessions.lookup(OWNER, "s-9")
    assert found is not None
    assert (found.last_kind, found.wait_command, found.chat_path) == ("wait", command, str(path))
    assert await cw.chats.sessions.record_stop(Stopper(OWNER, "s-9")) == 1
    assert await cw.chats.sessions.record_stop(Stopper(OWNER, "s-9")) == 2
    cw.world.clock.advance(120_000)
    assert await cw.chats.sessions.record_stop(Stopper(OWNER, "s-9")) == 1
    assert await cw.chats.sessions.record_stop(Stopper(OWNER, "never-seen")) == 0
    await cw.chats.leave(OWNER, path, "qa-1", session="s-9")
    left = await cw.chats.sessions.lookup(OWNER, "s-9")
    assert left is not None and left.last_kind == "leave"
    assert await cw.chats.sessions.lookup(OWNER, "never-seen") is None


async def test_the_third_stop_within_two_minutes_releases_the_agent_and_says_so(
    cw: ChatWorld,
) -> None:
    path = cw.write_chat(messages=0)
    cw.world.sleep.hold = False
    await cw.chats.wait(OWNER, path, "qa-1", timeout_ms=1000, session="s-9", command="w")
    released: list[Stopper] = []

    async def told(stopper: Stopper) -> None:
        released.append(stopper)

    cw.chats.sessions.on_released(told)
    stopper = Stopper(OWNER, "s-9", "codex", "build-box")
    counts = [await cw.chats.sessions.record_stop(stopper) for _ in range(STOPS_TO_RELEASE)]
    assert counts == [1, 2, 3]
    assert released == [stopper]
    await cw.chats.sessions.record_stop(Stopper(OWNER, "never-seen"))
    assert released == [stopper]
