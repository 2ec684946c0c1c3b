"""Repo functions for what agents were given and previewed (tables ``given_versions`` and
``edit_previews``), which replicas share so an agent's next call may reach any of them.

Plain functions over a session; the caller owns the transaction. What the rows mean, and the
checks an apply makes, are ``quire.services.live``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import EditPreview, GivenVersion
from quire.db.upserts import upsert


@dataclass(frozen=True)
class StoredPreview:
    """A preview as stored (see ``EditPreview``)."""

    edit_id: str
    doc_id: str
    path: str
    find: str
    replace: str
    version: int
    match_count: int
    base: str
    applied: bool


async def give_version(
    session: AsyncSession, doc_id: str, version: str, text: str, *, now_ms: int, keep: int | None
) -> None:
    """Store ``text`` as given out under ``version`` (kept as it is when stored already), and
    with ``keep`` forget all but the ``keep`` newest versions of ``doc_id``."""
    values = {"doc_id": doc_id, "version": version, "text": text, "given_at_ms": now_ms}
    await upsert(session, GivenVersion, values, keys=("doc_id", "version"), changed=())
    if keep is None:
        return
    newest = (
        select(GivenVersion.version)
        .where(GivenVersion.doc_id == doc_id)
        .order_by(GivenVersion.given_at_ms.desc(), GivenVersion.version)
        .limit(keep)
    )
    await session.execute(
        delete(GivenVersion).where(
            GivenVersion.doc_id == doc_id, GivenVersion.version.not_in(newest.scalar_subquery())
        )
    )


async def version_text(session: AsyncSession, doc_id: str, version: str) -> str | None:
    """The text given out under ``version`` of ``doc_id``, or None."""
    row = await session.get(GivenVersion, (doc_id, version))
    return None if row is None else row.text


async def remember_preview(
    session: AsyncSession, preview: StoredPreview, *, now_ms: int, keep: int
) -> None:
    """Store ``preview`` and forget all but the ``keep`` newest previews."""
    session.add(
        EditPreview(
            edit_id=preview.edit_id,
            doc_id=preview.doc_id,
            path=preview.path,
            find=preview.find,
            replace=preview.replace,
            version=preview.version,
            match_count=preview.match_count,
            base=preview.base,
            applied=preview.applied,
            made_at_ms=now_ms,
        )
    )
    await session.flush()
    oldest_kept = await session.scalar(
        select(EditPreview.made_at_ms)
        .order_by(EditPreview.made_at_ms.desc())
        .offset(keep - 1)
        .limit(1)
    )
    if oldest_kept is not None:
        await session.execute(delete(EditPreview).where(EditPreview.made_at_ms < oldest_kept))


async def stored_preview(session: AsyncSession, edit_id: str) -> StoredPreview | None:
    """The preview ``edit_id``, or None."""
    row = await session.get(EditPreview, edit_id, populate_existing=True)
    if row is None:
        return None
    return StoredPreview(
        edit_id=row.edit_id,
        doc_id=row.doc_id,
        path=row.path,
        find=row.find,
        replace=row.replace,
        version=row.version,
        match_count=row.match_count,
        base=row.base,
        applied=row.applied,
    )


async def mark_preview_applied(session: AsyncSession, edit_id: str) -> None:
    """Record that the preview ``edit_id`` was applied."""
    await session.execute(
        update(EditPreview).where(EditPreview.edit_id == edit_id).values(applied=True)
    )
