"""The tables under real use: keys, cascades, constraints and many writers at once."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from quire.db.engine import Database, open_database
from quire.db.models import Buffer, BufferUpdate, Recent, Review, Tab, User, Window
from quire.settings.database import database_url

LATER_THAN_2038_MS = 4_102_444_800_000  # 2100-01-01: past what a 32-bit integer holds


def _buffer(doc_id: str, *, path: str | None = None) -> Buffer:
    return Buffer(
        doc_id=doc_id,
        path=path or f"/notes/{doc_id}.md",
        base_hash="0" * 64,
        dirty=False,
        updated_at_ms=LATER_THAN_2038_MS,
    )


def _review(review_id: str, **overrides: object) -> Review:
    fields: dict[str, object] = {
        "id": review_id,
        "user_id": "owner",
        "path": "/notes/plan.md",
        "content": None,
        "content_hash": "a" * 64,
        "requested_by": "agent",
        "timeout_ms": 300_000,
        "created_at_ms": LATER_THAN_2038_MS,
        "deadline_ms": LATER_THAN_2038_MS + 300_000,
        "status": "pending",
        "verdict": None,
        "comments": None,
        "decided_at_ms": None,
        "late": False,
        "superseded_by": None,
    }
    fields.update(overrides)
    return Review(**fields)


async def _count(db: Database, model: type[BufferUpdate] | type[Window]) -> int:
    async with db.session() as session:
        return int((await session.execute(select(func.count()).select_from(model))).scalar_one())


@pytest.mark.anyio
async def test_deleting_a_buffer_deletes_its_updates(database: Database) -> None:
    async with database.session() as session:
        session.add_all([_buffer("kept"), _buffer("gone")])
        await session.flush()
        session.add_all(
            BufferUpdate(doc_id=doc_id, update=bytes([n, 0, 255]), created_at_ms=n)
            for n in range(3)
            for doc_id in ("kept", "gone")
        )
        await session.commit()
    async with database.session() as session:
        await session.delete(await session.get_one(Buffer, "gone"))
        await session.commit()
    async with database.session() as session:
        left = (await session.execute(select(BufferUpdate.doc_id))).scalars().all()
    assert left == ["kept"] * 3


@pytest.mark.anyio
async def test_an_update_for_an_unknown_buffer_is_refused(database: Database) -> None:
    async with database.session() as session:
        session.add(BufferUpdate(doc_id="missing", update=b"\x00", created_at_ms=1))
        with pytest.raises(IntegrityError):
            await session.commit()
    assert await _count(database, BufferUpdate) == 0


@pytest.mark.anyio
async def test_deleting_a_user_deletes_their_window(database: Database) -> None:
    async with database.session() as session:
        session.add(User(id="owner", name="Owner", created_at_ms=1))
        await session.flush()
        session.add(Window(user_id="owner", active_doc_id=None, present=False, updated_at_ms=1))
        await session.commit()
    assert await _count(database, Window) == 1
    async with database.session() as session:
        await session.delete(await session.get_one(User, "owner"))
        await session.commit()
    assert await _count(database, Window) == 0


@pytest.mark.anyio
async def test_updates_keep_their_bytes_and_arrival_order(database: Database) -> None:
    payloads = [b"", b"\x00\x01\x02", bytes(range(256)), b"\xff" * 70_000]
    async with database.session() as session:
        session.add(_buffer("doc"))
        await session.flush()
        for n, payload in enumerate(payloads):
            session.add(BufferUpdate(doc_id="doc", update=payload, created_at_ms=n))
            await session.flush()
        await session.commit()
    async with database.session() as session:
        stored = (await session.execute(select(BufferUpdate).order_by(BufferUpdate.id))).scalars()
        assert [row.update for row in stored] == payloads


@pytest.mark.anyio
async def test_millisecond_times_after_2038_and_unicode_paths_round_trip(
    database: Database,
) -> None:
    path = "/notes/ünïcødé 📝/ﬁle\u200b.md"
    async with database.session() as session:
        session.add(Recent(user_id="owner", path=path, name="ﬁle\u200b.md", opened_at_ms=1))
        session.add(_buffer("doc", path=path))
        session.add(_review("r1", path=path, comments="é" * 10_000))
        await session.commit()
    async with database.session() as session:
        buffer = await session.get_one(Buffer, "doc")
        recent = await session.get_one(Recent, ("owner", path))
        review = await session.get_one(Review, "r1")
    assert buffer.path == path
    assert buffer.updated_at_ms == LATER_THAN_2038_MS
    assert recent.name == "ﬁle\u200b.md"
    assert review.deadline_ms == LATER_THAN_2038_MS + 300_000
    assert review.comments == "é" * 10_000


@pytest.mark.anyio
async def test_two_buffers_cannot_share_a_path(database: Database) -> None:
    async with database.session() as session:
        session.add_all([_buffer("a", path="/same.md"), _buffer("b", path="/same.md")])
        with pytest.raises(IntegrityError):
            await session.commit()


@pytest.mark.anyio
@pytest.mark.parametrize(
    "row",
    [
        _review("bad-status", status="waiting"),
        _review("bad-verdict", status="decided", verdict="maybe"),
        Tab(user_id="owner", doc_id="d", path="/a.md", view="print", position=0, opened_at_ms=1),
    ],
    ids=["review status", "review verdict", "tab view"],
)
async def test_a_value_outside_its_closed_set_is_refused(
    database: Database, row: Review | Tab
) -> None:
    async with database.session() as session:
        session.add(row)
        with pytest.raises(IntegrityError):
            await session.commit()


@pytest.mark.anyio
@pytest.mark.parametrize(
    "verdict", ["approved", "changes_requested", "dismissed", "timeout", "superseded"]
)
async def test_every_verdict_is_accepted(database: Database, verdict: str) -> None:
    async with database.session() as session:
        session.add(_review("r", status="decided", verdict=verdict, late=True))
        await session.commit()
    async with database.session() as session:
        stored = await session.get_one(Review, "r")
    assert (stored.verdict, stored.late) == (verdict, True)


WRITERS = 20
WRITES_EACH = 5


async def _write_updates(db: Database, writer: int) -> None:
    for n in range(WRITES_EACH):
        async with db.session() as session:
            # Read, then write in the same session: the pattern the repo functions use.
            buffer = await session.get_one(Buffer, "doc")
            session.add(
                BufferUpdate(doc_id=buffer.doc_id, update=bytes([writer, n]), created_at_ms=n)
            )
            await session.execute(
                update(Buffer).where(Buffer.doc_id == "doc").values(dirty=True, updated_at_ms=n)
            )
            await session.commit()


@pytest.mark.anyio
async def test_twenty_concurrent_writers_all_succeed(database: Database) -> None:
    async with database.session() as session:
        session.add(_buffer("doc"))
        await session.commit()
    async with anyio.create_task_group() as group:
        for writer in range(WRITERS):
            group.start_soon(_write_updates, database, writer)
    assert await _count(database, BufferUpdate) == WRITERS * WRITES_EACH


@pytest.mark.anyio
async def test_two_engines_on_one_sqlite_file_take_turns_instead_of_failing(
    tmp_path: Path,
) -> None:
    first = await open_database(database_url(None, tmp_path))
    second = await open_database(database_url(None, tmp_path))
    try:
        async with first.session() as session:
            session.add(_buffer("doc"))
            await session.commit()
        async with anyio.create_task_group() as group:
            for writer in range(WRITERS):
                group.start_soon(_write_updates, first if writer % 2 else second, writer)
        assert await _count(first, BufferUpdate) == WRITERS * WRITES_EACH
    finally:
        await first.close()
        await second.close()
