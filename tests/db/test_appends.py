"""Batches of appends on the journal's own connection: one transaction, in order, all or nothing."""

from __future__ import annotations

import anyio
import pytest
from sqlalchemy import text

from quire.core.errors import StorageFailed
from quire.db import buffers
from quire.db.advisory_locks import AdvisoryLocks
from quire.db.appends import Append, AppendConnection
from quire.db.engine import Database
from quire.db.models import Buffer

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000_000


async def reset(database: Database, doc_id: str) -> None:
    async with database.session() as session, session.begin():
        await buffers.reset_buffer(
            session,
            doc_id,
            f"/n/{doc_id}.md",
            base_hash="h" * 64,
            state=b"s",
            dirty=False,
            now_ms=NOW,
        )


async def updates_of(database: Database, doc_id: str) -> tuple[bytes, ...]:
    async with database.session() as session:
        record = await buffers.load_buffer(session, doc_id)
    return () if record is None else record.updates


async def test_a_batch_stores_every_documents_updates_in_order(database: Database) -> None:
    await reset(database, "a")
    await reset(database, "b")
    connection = AppendConnection(database)
    await connection.write(
        [
            Append("a", [b"a1", b"a2"], dirty=True, now_ms=NOW + 1),
            Append("b", [b"b1"], dirty=False, now_ms=NOW + 1),
            Append("a", [b"a3"], dirty=False, now_ms=NOW + 2),
        ]
    )
    await connection.write([Append("b", [b"b2"], dirty=False, now_ms=NOW + 3)])
    assert await updates_of(database, "a") == (b"s", b"a1", b"a2", b"a3")
    assert await updates_of(database, "b") == (b"s", b"b1", b"b2")
    async with database.session() as session:
        a, b = await session.get(Buffer, "a"), await session.get(Buffer, "b")
    assert a is not None and b is not None
    assert (a.dirty, a.updated_at_ms, b.dirty) == (True, NOW + 1, False)


async def test_a_failing_batch_stores_none_of_it_and_the_next_batch_works(
    database: Database,
) -> None:
    await reset(database, "a")
    connection = AppendConnection(database)
    with pytest.raises(StorageFailed) as caught:
        await connection.write(
            [
                Append("a", [b"a1"], dirty=True, now_ms=NOW + 1),
                Append("no-such-buffer", [b"x"], dirty=False, now_ms=NOW + 1),
            ]
        )
    assert "was not applied" in str(caught.value)
    assert "try again" in str(caught.value)
    assert await updates_of(database, "a") == (b"s",)
    await connection.write([Append("a", [b"a2"], dirty=False, now_ms=NOW + 2)])
    assert await updates_of(database, "a") == (b"s", b"a2")


async def test_closing_the_database_gives_the_held_connection_back(database: Database) -> None:
    await reset(database, "a")
    connection = AppendConnection(database)
    await connection.write([Append("a", [b"a1"], dirty=False, now_ms=NOW)])
    assert database.engine.pool.checkedout() == 1  # type: ignore[attr-defined]
    await database.close()
    assert database.engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_the_journal_connection_commits_to_the_wal_without_an_fsync_on_sqlite(
    database: Database,
) -> None:
    """The durability the journal's docstring promises: synchronous=NORMAL in WAL mode."""
    if database.backend != "sqlite":
        pytest.skip("PostgreSQL syncs its WAL at commit by default (synchronous_commit=on)")
    await reset(database, "a")
    connection = AppendConnection(database)
    await connection.write([Append("a", [b"a1"], dirty=False, now_ms=NOW)])
    held = connection._connection
    assert held is not None
    assert (await held.execute(text("PRAGMA journal_mode"))).scalar_one() == "wal"
    assert (await held.execute(text("PRAGMA synchronous"))).scalar_one() == 1  # NORMAL


async def test_a_batch_larger_than_one_statement_is_still_one_transaction(
    database: Database,
) -> None:
    await reset(database, "a")
    many = [f"u{n}".encode() for n in range(700)]
    connection = AppendConnection(database)
    with pytest.raises(StorageFailed):
        await connection.write(
            [
                Append("a", many, dirty=True, now_ms=NOW + 1),
                Append("no-such-buffer", [b"x"], dirty=False, now_ms=NOW + 1),
            ]
        )
    assert await updates_of(database, "a") == (b"s",)
    await connection.write([Append("a", many, dirty=True, now_ms=NOW + 1)])
    assert await updates_of(database, "a") == (b"s", *many)


async def test_with_replicas_a_batch_waits_for_each_documents_shared_lock(
    database: Database,
) -> None:
    """A buffer's updates are stored one replica at a time (its advisory lock), so their ids
    grow in the order they commit; alone (SQLite included) no lock is taken."""
    await reset(database, "a")
    shared = database.backend == "postgresql"
    locks = AdvisoryLocks(database, shared=shared)
    connection = AppendConnection(database, shared=True)
    stored = anyio.Event()

    async def append() -> None:
        await connection.write([Append("a", [b"a1"], dirty=True, now_ms=NOW + 1)])
        stored.set()

    async with anyio.create_task_group() as group:
        async with locks.held(buffers.document_lock("a")):
            group.start_soon(append)
            if shared:
                await wait_for_lock_waiter(database)
                assert not stored.is_set()
                assert await updates_of(database, "a") == (b"s",)
            else:
                await stored.wait()
        await stored.wait()
    assert await updates_of(database, "a") == (b"s", b"a1")
    await connection.close()


async def wait_for_lock_waiter(database: Database) -> None:
    """Return once some connection waits for an advisory lock."""
    query = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
    with anyio.fail_after(10):
        while True:
            async with database.session() as session:
                if (await session.execute(query)).scalar_one():
                    return
            await anyio.sleep(0.01)
