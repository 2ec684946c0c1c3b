"""Repo functions for live buffers: the buffer row of an open document and its Yjs updates.

Plain functions over a session; the caller owns the transaction and the order of writes. No
Yjs and no file access here: updates are opaque bytes, hashes come in computed. Appending
updates is ``quire.db.appends``'s (batches on a connection of their own).

When replicas share the database, every write of one buffer's updates holds the buffer's
advisory lock (``document_lock``) until it commits, so the ids of one buffer's updates grow in
the order their transactions commit: a replica that has read every update up to an id has
missed none below it (``updates_after``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import Buffer, BufferUpdate


@dataclass(frozen=True)
class BufferRecord:
    """A stored buffer: the file it mirrors, the hash of the text it was based on, whether it
    holds edits not yet saved, and its updates in the order they arrived."""

    doc_id: str
    path: str
    base_hash: str
    dirty: bool
    updated_at_ms: int
    updates: tuple[bytes, ...]
    last_id: int = 0
    """The id of the newest update (0 with none)."""


@dataclass(frozen=True)
class BufferTail:
    """What a replica that has read a buffer up to some update needs to be current: the
    updates stored since, the buffer's base and unsaved mark now, and the newest id."""

    base_hash: str
    dirty: bool
    updates: tuple[bytes, ...]
    last_id: int


def document_lock(doc_id: str) -> str:
    """The name of the advisory lock held by every write of ``doc_id``'s buffer."""
    return f"document:{doc_id}"


async def load_buffer(session: AsyncSession, doc_id: str) -> BufferRecord | None:
    """The buffer of ``doc_id`` with its updates, or None when none is stored."""
    row = await session.get(Buffer, doc_id)
    if row is None:
        return None
    ids, updates = await _updates(session, doc_id, after=0)
    return BufferRecord(
        doc_id=row.doc_id,
        path=row.path,
        base_hash=row.base_hash,
        dirty=row.dirty,
        updated_at_ms=row.updated_at_ms,
        updates=updates,
        last_id=ids[-1] if ids else 0,
    )


async def updates_after(session: AsyncSession, doc_id: str, after: int) -> BufferTail | None:
    """The updates of ``doc_id`` with ids above ``after``, with the buffer's state now; None
    when the buffer is gone. One query: replicas run it before every request on a document."""
    newer = and_(BufferUpdate.doc_id == Buffer.doc_id, BufferUpdate.id > after)
    result = await session.execute(
        select(Buffer.base_hash, Buffer.dirty, BufferUpdate.id, BufferUpdate.update)
        .select_from(Buffer)
        .outerjoin(BufferUpdate, newer)
        .where(Buffer.doc_id == doc_id)
        .order_by(BufferUpdate.id)
    )
    rows = result.all()
    if not rows:
        return None
    stored = [(row[2], bytes(row[3])) for row in rows if row[2] is not None]
    return BufferTail(
        base_hash=rows[0][0],
        dirty=rows[0][1],
        updates=tuple(update for _, update in stored),
        last_id=stored[-1][0] if stored else after,
    )


async def _updates(
    session: AsyncSession, doc_id: str, *, after: int
) -> tuple[list[int], tuple[bytes, ...]]:
    result = await session.execute(
        select(BufferUpdate.id, BufferUpdate.update)
        .where(BufferUpdate.doc_id == doc_id, BufferUpdate.id > after)
        .order_by(BufferUpdate.id)
    )
    rows = result.all()
    return [row[0] for row in rows], tuple(bytes(row[1]) for row in rows)


async def buffer_path(session: AsyncSession, doc_id: str) -> str | None:
    """The file path of the stored buffer ``doc_id``, or None when none is stored."""
    result = await session.execute(select(Buffer.path).where(Buffer.doc_id == doc_id))
    return result.scalar_one_or_none()


async def reset_buffer(
    session: AsyncSession,
    doc_id: str,
    path: str,
    *,
    base_hash: str,
    state: bytes,
    dirty: bool,
    now_ms: int,
) -> int:
    """Replace every stored update of ``doc_id`` with ``state`` (the whole document as one
    update) and record the base the buffer now rests on; creates the buffer row if needed.
    Returns the id of the update holding ``state``."""
    row = await session.get(Buffer, doc_id)
    if row is None:
        # A row left under another id for this path (the path was resolved differently
        # before) would break the unique path; it describes the same file, so it goes.
        await session.execute(delete(Buffer).where(Buffer.path == path))
        session.add(
            Buffer(doc_id=doc_id, path=path, base_hash=base_hash, dirty=dirty, updated_at_ms=now_ms)
        )
    else:
        row.path = path
        row.base_hash = base_hash
        row.dirty = dirty
        row.updated_at_ms = now_ms
    await session.execute(delete(BufferUpdate).where(BufferUpdate.doc_id == doc_id))
    await session.flush()
    snapshot = BufferUpdate(doc_id=doc_id, update=state, created_at_ms=now_ms)
    session.add(snapshot)
    await session.flush()
    return snapshot.id


async def set_base_hash(session: AsyncSession, doc_id: str, base_hash: str, *, now_ms: int) -> None:
    """Record that the buffer ``doc_id`` now rests on the file text hashing to ``base_hash``."""
    await session.execute(
        update(Buffer)
        .where(Buffer.doc_id == doc_id)
        .values(base_hash=base_hash, updated_at_ms=now_ms)
    )


async def delete_buffer(session: AsyncSession, doc_id: str) -> None:
    """Forget the buffer ``doc_id`` and its updates."""
    await session.execute(delete(BufferUpdate).where(BufferUpdate.doc_id == doc_id))
    await session.execute(delete(Buffer).where(Buffer.doc_id == doc_id))


async def move_buffer(session: AsyncSession, doc_id: str, path: str) -> None:
    """Record that the buffer ``doc_id`` belongs to the file now at ``path`` (a rename)."""
    await session.execute(delete(Buffer).where(Buffer.path == path, Buffer.doc_id != doc_id))
    await session.execute(update(Buffer).where(Buffer.doc_id == doc_id).values(path=path))


async def buffer_id_of(session: AsyncSession, path: str) -> str | None:
    """The id of the stored buffer of the file at ``path``, or None."""
    result = await session.execute(select(Buffer.doc_id).where(Buffer.path == path))
    return result.scalar_one_or_none()
