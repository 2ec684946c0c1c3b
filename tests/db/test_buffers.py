"""Buffer repo functions: a buffer's row and its Yjs updates, kept in order until a reset."""

from __future__ import annotations

import pytest

from quire.db import buffers
from quire.db.appends import Append, AppendConnection
from quire.db.engine import Database

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000_000


async def reset(database: Database, doc_id: str, path: str, state: bytes, *, dirty: bool) -> int:
    async with database.session() as session, session.begin():
        return await buffers.reset_buffer(
            session, doc_id, path, base_hash="h" * 64, state=state, dirty=dirty, now_ms=NOW
        )


async def load(database: Database, doc_id: str) -> buffers.BufferRecord | None:
    async with database.session() as session:
        return await buffers.load_buffer(session, doc_id)


async def append(database: Database, doc_id: str, updates: list[bytes], *, dirty: bool) -> None:
    await AppendConnection(database).write([Append(doc_id, updates, dirty=dirty, now_ms=NOW + 1)])


async def test_a_buffer_is_stored_with_its_snapshot(database: Database) -> None:
    snapshot = await reset(database, "doc", "/n/a.md", b"state", dirty=False)
    assert await load(database, "doc") == buffers.BufferRecord(
        doc_id="doc",
        path="/n/a.md",
        base_hash="h" * 64,
        dirty=False,
        updated_at_ms=NOW,
        updates=(b"state",),
        last_id=snapshot,
    )


async def test_the_updates_after_an_id_are_those_stored_since_with_the_state_now(
    database: Database,
) -> None:
    snapshot = await reset(database, "doc", "/n/a.md", b"s", dirty=False)
    await reset(database, "other", "/n/b.md", b"o", dirty=False)
    async with database.session() as session:
        assert await buffers.updates_after(session, "doc", snapshot) == buffers.BufferTail(
            base_hash="h" * 64, dirty=False, updates=(), last_id=snapshot
        )
    await append(database, "doc", [b"1", b"2"], dirty=True)
    await append(database, "other", [b"x"], dirty=True)
    async with database.session() as session:
        tail = await buffers.updates_after(session, "doc", snapshot)
        assert tail is not None
        assert (tail.updates, tail.dirty) == ((b"1", b"2"), True)
        later = await buffers.updates_after(session, "doc", tail.last_id)
        assert later is not None and later.updates == ()
        assert await buffers.updates_after(session, "gone", 0) is None


async def test_no_buffer_loads_as_none(database: Database) -> None:
    assert await load(database, "nothing") is None
    async with database.session() as session:
        assert await buffers.buffer_path(session, "nothing") is None


async def test_updates_come_back_in_the_order_they_were_appended(database: Database) -> None:
    await reset(database, "doc", "/n/a.md", b"s", dirty=False)
    await append(database, "doc", [b"1", b"2"], dirty=True)
    await append(database, "doc", [b"3", b"\x00" * 5], dirty=True)
    record = await load(database, "doc")
    assert record is not None
    assert record.updates == (b"s", b"1", b"2", b"3", b"\x00" * 5)
    assert record.dirty
    assert record.updated_at_ms == NOW + 1


@pytest.mark.parametrize(("dirty", "expected"), [(True, True), (False, False)])
async def test_appending_marks_dirty_only_when_asked_and_never_clears_it(
    database: Database, dirty: bool, expected: bool
) -> None:
    await reset(database, "doc", "/n/a.md", b"s", dirty=False)
    await append(database, "doc", [b"1"], dirty=dirty)
    record = await load(database, "doc")
    assert record is not None and record.dirty is expected
    await append(database, "doc", [b"2"], dirty=False)
    record = await load(database, "doc")
    assert record is not None and record.dirty is expected


async def test_appending_nothing_writes_nothing(database: Database) -> None:
    await reset(database, "doc", "/n/a.md", b"s", dirty=False)
    await append(database, "doc", [], dirty=True)
    record = await load(database, "doc")
    assert record is not None
    assert (record.dirty, record.updates, record.updated_at_ms) == (False, (b"s",), NOW)


async def test_a_reset_replaces_every_update_with_the_snapshot(database: Database) -> None:
    await reset(database, "doc", "/n/a.md", b"old", dirty=False)
    await append(database, "doc", [b"1", b"2"], dirty=True)
    await reset(database, "doc", "/n/a.md", b"new", dirty=False)
    record = await load(database, "doc")
    assert record is not None
    assert (record.updates, record.dirty) == ((b"new",), False)


async def test_a_reset_under_a_new_id_replaces_the_row_of_the_same_path(database: Database) -> None:
    await reset(database, "old-id", "/n/a.md", b"old", dirty=True)
    await reset(database, "new-id", "/n/a.md", b"new", dirty=False)
    assert await load(database, "old-id") is None
    async with database.session() as session:
        assert await buffers.buffer_path(session, "new-id") == "/n/a.md"


async def test_a_new_base_hash_keeps_the_updates(database: Database) -> None:
    await reset(database, "doc", "/n/a.md", b"s", dirty=False)
    await append(database, "doc", [b"1"], dirty=True)
    async with database.session() as session, session.begin():
        await buffers.set_base_hash(session, "doc", "z" * 64, now_ms=NOW + 5)
    record = await load(database, "doc")
    assert record is not None
    assert (record.base_hash, record.dirty, record.updates) == ("z" * 64, True, (b"s", b"1"))


async def test_deleting_a_buffer_deletes_its_updates(database: Database) -> None:
    await reset(database, "doc", "/n/a.md", b"s", dirty=False)
    await append(database, "doc", [b"1"], dirty=True)
    async with database.session() as session, session.begin():
        await buffers.delete_buffer(session, "doc")
    assert await load(database, "doc") is None
