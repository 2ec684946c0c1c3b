"""Read positions: in memory at once, written to the database behind, all of them on close."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.db import chats as store
from quire.db.engine import Database
from quire.services.chat.cursors import ChatCursors
from tests.support.world import FakeClock

pytestmark = pytest.mark.anyio

CHAT = "/ws/Chats/team.md"
MOVED = "/ws/Done/Team 2.md"


async def _stored(database: Database, reader: str, chat: str = CHAT) -> int | None:
    async with database.session() as session:
        return await store.get_cursor(session, "owner", chat, reader)


async def test_without_the_writer_a_position_is_stored_before_the_call_returns(
    database: Database,
) -> None:
    cursors = ChatCursors(database, FakeClock())
    await cursors.set("owner", CHAT, "Bob", 4)
    assert await _stored(database, "bob") == 4
    assert await cursors.get("owner", CHAT, "BOB") == 4


async def test_with_the_writer_a_position_is_known_at_once_and_stored_by_the_close(
    database: Database,
) -> None:
    async with ChatCursors(database, FakeClock()) as cursors:
        await cursors.set("owner", CHAT, "bob", 7)
        await cursors.set("owner", CHAT, "bob", 9)
        assert await cursors.get("owner", CHAT, "bob") == 9
        assert await cursors.positions("owner", "bob", [CHAT, "/ws/other.md"]) == {CHAT: 9}
    assert await _stored(database, "bob") == 9
    reopened = ChatCursors(database, FakeClock())
    assert await reopened.get("owner", CHAT, "bob") == 9


async def test_a_flush_stores_every_pending_position(database: Database) -> None:
    async with ChatCursors(database, FakeClock()) as cursors:
        await cursors.set("owner", CHAT, "a", 1)
        await cursors.set("owner", "/ws/other.md", "b", 2)
        await cursors.flush()
        assert await _stored(database, "a") == 1
        assert await _stored(database, "b", "/ws/other.md") == 2


async def test_a_position_only_in_the_database_is_read_from_it(database: Database) -> None:
    async with database.session() as session, session.begin():
        await store.set_cursor(session, "owner", CHAT, "carol", 12, 1)
    cursors = ChatCursors(database, FakeClock())
    assert await cursors.get("owner", CHAT, "Carol") == 12
    assert await cursors.get("owner", CHAT, "dave") is None
    assert await cursors.positions("owner", "carol", [CHAT]) == {CHAT: 12}


async def test_forgetting_a_chat_drops_pending_and_stored_positions(database: Database) -> None:
    async with ChatCursors(database, FakeClock()) as cursors:
        await cursors.set("owner", CHAT, "bob", 3)
        await cursors.flush()
        await cursors.set("owner", CHAT, "bob", 5)
        await cursors.set("owner", "/ws/other.md", "bob", 1)
        await cursors.forget(CHAT)
        assert await cursors.get("owner", CHAT, "bob") is None
    assert await _stored(database, "bob") is None
    assert await _stored(database, "bob", "/ws/other.md") == 1


async def test_every_position_follows_a_chat_moved_stored_or_not(database: Database) -> None:
    async with ChatCursors(database, FakeClock()) as cursors:
        await cursors.set("owner", CHAT, "bob", 3)
        await cursors.flush()
        await cursors.set("owner", CHAT, "carol", 4)
        await cursors.set("other", CHAT, "bob", 7)
        await cursors.moved(Path(CHAT), Path(MOVED))
        assert await cursors.get("owner", CHAT, "bob") is None
        assert await cursors.get("owner", MOVED, "bob") == 3
        assert await cursors.get("owner", MOVED, "carol") == 4
    assert await _stored(database, "bob", MOVED) == 3
    assert await _stored(database, "carol", MOVED) == 4
    assert await _stored(database, "bob", CHAT) is None
