"""Chat state in the database: read positions, agent sessions and pins, on both backends."""

from __future__ import annotations

import anyio
import pytest
from sqlalchemy.exc import IntegrityError

from quire.db import chats as store
from quire.db.engine import Database
from quire.db.models import ChatSession

pytestmark = pytest.mark.anyio

CHAT = "/notes/Chats/team.md"
OTHER = "/notes/Chats/other.md"


async def test_a_reader_never_seen_has_no_position(database: Database) -> None:
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", CHAT, "bob") is None


async def test_a_position_is_saved_and_replaced_under_the_lower_cased_name(
    database: Database,
) -> None:
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "Bob", 3, 1)
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "BOB", 7, 2)
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", CHAT, "bob") == 7
        assert await store.get_cursor(session, "other-user", CHAT, "bob") is None
        assert await store.get_cursor(session, "owner", OTHER, "bob") is None


async def test_positions_of_a_reader_are_listed_for_the_chats_asked(database: Database) -> None:
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "bob", 4, 1)
        await store.set_cursor(session, "owner", OTHER, "bob", 9, 1)
        await store.set_cursor(session, "owner", CHAT, "alice", 1, 1)
    async with database.session() as session:
        assert await store.reader_positions(session, "owner", "Bob", [CHAT]) == {CHAT: 4}
        both = await store.reader_positions(session, "owner", "bob", [CHAT, OTHER, "/x.md"])
        assert both == {CHAT: 4, OTHER: 9}
        assert await store.reader_positions(session, "owner", "bob", []) == {}


async def test_many_writers_of_one_position_never_collide(database: Database) -> None:
    async def write(position: int) -> None:
        async with database.session() as session, session.begin():
            await store.set_cursor(session, "owner", CHAT, "bob", position, position)

    async with anyio.create_task_group() as group:
        for position in range(20):
            group.start_soon(write, position)
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", CHAT, "bob") in range(20)


async def _record(
    database: Database, kind: store.SessionKind, command: str | None = None, **extra: str
) -> None:
    async with database.session() as session, session.begin():
        await store.record_session(
            session,
            session_id=extra.get("session_id", "s-1"),
            user_id=extra.get("user_id", "owner"),
            chat_path=extra.get("chat_path", CHAT),
            reader=extra.get("reader", "qa-1"),
            kind=kind,
            wait_command=command,
            now_ms=10,
        )


async def test_a_wait_records_its_command_and_a_later_post_keeps_it(database: Database) -> None:
    await _record(database, "wait", "quire chat wait Chats/team.md --as qa-1")
    await _record(database, "post", "ignored")
    async with database.session() as session:
        found = await store.get_session(session, "owner", "s-1")
    assert found is not None
    assert (found.last_kind, found.wait_command) == (
        "post",
        "quire chat wait Chats/team.md --as qa-1",
    )
    assert (found.chat_path, found.reader, found.stop_times) == (CHAT, "qa-1", ())


async def test_a_session_is_seen_only_by_its_user(database: Database) -> None:
    await _record(database, "read")
    async with database.session() as session:
        assert await store.get_session(session, "someone-else", "s-1") is None
        assert await store.get_session(session, "owner", "unknown") is None


async def test_stops_are_counted_within_the_window(database: Database) -> None:
    await _record(database, "wait", "cmd")
    counts = []
    for now in (1_000, 2_000, 200_000, 201_000):
        async with database.session() as session, session.begin():
            counts.append(await store.record_stop(session, "owner", "s-1", now, 120_000))
    assert counts == [1, 2, 1, 2]
    async with database.session() as session, session.begin():
        assert await store.record_stop(session, "owner", "missing", 1, 120_000) is None
        assert await store.record_stop(session, "intruder", "s-1", 1, 120_000) is None


async def test_stop_times_keep_only_the_most_recent(database: Database) -> None:
    await _record(database, "wait", "cmd")
    for now in range(store.STOPS_KEPT + 5):
        async with database.session() as session, session.begin():
            await store.record_stop(session, "owner", "s-1", now, 10**9)
    async with database.session() as session:
        found = await store.get_session(session, "owner", "s-1")
    assert found is not None
    assert len(found.stop_times) == store.STOPS_KEPT
    assert found.stop_times[-1] == store.STOPS_KEPT + 4


async def test_leaving_marks_the_sessions_in_that_chat_only(database: Database) -> None:
    await _record(database, "wait", "a", session_id="s-1", reader="qa-1")
    await _record(database, "wait", "b", session_id="s-2", reader="qa-2")
    await _record(database, "wait", "c", session_id="s-3", chat_path=OTHER)
    async with database.session() as session, session.begin():
        await store.leave_chat_sessions(session, "owner", CHAT, 20, reader="qa-1")
    kinds = {}
    async with database.session() as session:
        for session_id in ("s-1", "s-2", "s-3"):
            found = await store.get_session(session, "owner", session_id)
            assert found is not None
            kinds[session_id] = found.last_kind
    assert kinds == {"s-1": "leave", "s-2": "wait", "s-3": "wait"}
    async with database.session() as session, session.begin():
        await store.leave_chat_sessions(session, "owner", CHAT, 30)
    async with database.session() as session:
        second = await store.get_session(session, "owner", "s-2")
    assert second is not None and second.last_kind == "leave"


async def test_an_unknown_session_kind_is_refused_by_the_table(database: Database) -> None:
    async with database.session() as session:
        session.add(
            ChatSession(
                session_id="bad",
                user_id="owner",
                chat_path=CHAT,
                reader="x",
                last_kind="sleep",
                wait_command=None,
                updated_at_ms=1,
                stop_times="[]",
            )
        )
        with pytest.raises(IntegrityError):
            await session.commit()


async def test_pins_are_set_twice_without_error_and_removed(database: Database) -> None:
    async with database.session() as session, session.begin():
        await store.set_pin(session, "owner", CHAT, True, 1)
        await store.set_pin(session, "owner", CHAT, True, 2)
        await store.set_pin(session, "owner", OTHER, True, 3)
        await store.set_pin(session, "owner", OTHER, False, 4)
        await store.set_pin(session, "owner", "/never.md", False, 5)
    async with database.session() as session:
        assert await store.pinned_paths(session, "owner") == {CHAT}
        assert await store.pinned_paths(session, "nobody") == set()


async def test_forgetting_a_chat_drops_every_users_positions_and_pins_there_only(
    database: Database,
) -> None:
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "bob", 4, 1)
        await store.set_cursor(session, "ann", CHAT, "bob", 5, 1)
        await store.set_cursor(session, "owner", OTHER, "bob", 2, 1)
        await store.set_pin(session, "owner", CHAT, True, 1)
    async with database.session() as session, session.begin():
        await store.forget_chats(session, CHAT)
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", CHAT, "bob") is None
        assert await store.get_cursor(session, "ann", CHAT, "bob") is None
        assert await store.get_cursor(session, "owner", OTHER, "bob") == 2
        assert await store.pinned_paths(session, "owner") == set()


async def test_forgetting_a_folder_drops_the_chats_below_it_not_its_namesakes(
    database: Database,
) -> None:
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "bob", 4, 1)
        await store.set_cursor(session, "owner", "/notes/Chats2/x.md", "bob", 2, 1)
    async with database.session() as session, session.begin():
        await store.forget_chats(session, "/notes/Chats")
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", CHAT, "bob") is None
        assert await store.get_cursor(session, "owner", "/notes/Chats2/x.md", "bob") == 2


@pytest.mark.parametrize(
    ("source", "target", "moved_chat"),
    [
        (CHAT, "/notes/Done/Team 2.md", "/notes/Done/Team 2.md"),
        ("/notes/Chats", "/notes/Archive/Chats", "/notes/Archive/Chats/team.md"),
        ("/notes/Chats", "/notes/日本 📝", "/notes/日本 📝/team.md"),
    ],
    ids=["the chat", "its folder", "to a unicode folder"],
)
async def test_a_moved_chat_keeps_every_users_positions_pins_and_sessions(
    database: Database, source: str, target: str, moved_chat: str
) -> None:
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "bob", 4, 1)
        await store.set_cursor(session, "ann", CHAT, "bob", 6, 1)
        await store.set_cursor(session, "owner", "/notes/Chats2/x.md", "bob", 2, 1)
        await store.set_cursor(session, "owner", moved_chat, "bob", 99, 1)  # a stale row
        await store.set_pin(session, "owner", CHAT, True, 1)
        await store.record_session(
            session, session_id="s-1", user_id="owner", chat_path=CHAT, reader="bob",
            kind="wait", wait_command="w", now_ms=1,
        )  # fmt: skip
    async with database.session() as session, session.begin():
        await store.move_chats(session, source, target)
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", moved_chat, "bob") == 4
        assert await store.get_cursor(session, "ann", moved_chat, "bob") == 6
        assert await store.get_cursor(session, "owner", CHAT, "bob") is None
        assert await store.get_cursor(session, "owner", "/notes/Chats2/x.md", "bob") == 2
        assert await store.pinned_paths(session, "owner") == {moved_chat}
        stored = await store.get_session(session, "owner", "s-1")
        assert stored is not None and stored.chat_path == moved_chat


@pytest.mark.parametrize("path", ["/notes/ünïcødé 📝/chat.md", "/a/" + "x" * 3000 + ".md"])
async def test_long_and_unicode_paths_and_names_round_trip(database: Database, path: str) -> None:
    reader = "Ölaf-日本-" + "n" * 150
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", path, reader, 2**31 - 1, 4_102_444_800_000)
    async with database.session() as session:
        assert await store.get_cursor(session, "owner", path, reader) == 2**31 - 1


def test_a_reader_key_is_the_lower_cased_name() -> None:
    assert store.reader_key("QA-One") == "qa-one"
