"""Repo functions for live buffers: the buffer row of an open document and its Yjs updates.

Plain functions over a session; the caller owns the transaction and the order of writes. No
Yjs and no file access here: updates are opaque bytes, hashes come in computed. Appending
updates is ``quire.db.appends``'s (batches on a connection of their own).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select, update
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


async def load_buffer(session: AsyncSession, doc_id: str) -> BufferRecord | None:
    """The buffer of ``doc_id`` with its updates, or None when none is stored."""
    row = await session.get(Buffer, doc_id)
    if row is None:
        return None
    result = await session.execute(
        select(BufferUpdate.update).where(BufferUpdate.doc_id == doc_id).order_by(BufferUpdate.id)
    )
    return BufferRecord(
        doc_id=row.doc_id,
        path=row.path,
        base_hash=row.base_hash,
        dirty=row.dirty,
        updated_at_ms=row.updated_at_ms,
        updates=tuple(bytes(update) for update in result.scalars()),
    )


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
) -> None:
    """Replace every stored update of ``doc_id`` with ``state`` (the whole document as one
    update) and record the base the buffer now rests on; creates the buffer row if needed."""
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
    session.add(BufferUpdate(doc_id=doc_id, update=state, created_at_ms=now_ms))


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
