"""Queries over stored notices: raise (a repeat replaces the last of its session and kind),
list the live ones, dismiss, clear a session's, and drop the expired.

Plain functions over a session the caller opened and commits; when a notice is raised and how
long it lives is the approvals service's rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import Notice

NoticeKind = Literal["terminal", "idle", "stopped", "other"]
_NOTICES = Notice.metadata.tables[Notice.__tablename__]


@dataclass(frozen=True)
class StoredNotice:
    """One notice as stored."""

    user_id: str
    session_id: str
    kind: NoticeKind
    harness: str
    machine_label: str
    message: str
    created_at_ms: int
    expires_at_ms: int


async def put_notice(session: AsyncSession, notice: StoredNotice) -> StoredNotice | None:
    """Store ``notice``, replacing the one of its session and kind; returns the replaced one."""
    key = (
        (Notice.user_id == notice.user_id)
        & (Notice.session_id == notice.session_id)
        & (Notice.kind == notice.kind)
    )
    old = await session.scalar(select(Notice).where(key))
    replaced = None if old is None else _stored(old)
    await session.execute(delete(Notice).where(key))
    await session.execute(
        _NOTICES.insert().values(
            user_id=notice.user_id,
            session_id=notice.session_id,
            kind=notice.kind,
            harness=notice.harness,
            machine_label=notice.machine_label,
            message=notice.message,
            created_at_ms=notice.created_at_ms,
            expires_at_ms=notice.expires_at_ms,
        )
    )
    return replaced


async def live_notices(session: AsyncSession, user_id: str, now_ms: int) -> list[StoredNotice]:
    """The user's notices that have not expired, newest first."""
    rows = await session.scalars(
        select(Notice)
        .where(Notice.user_id == user_id, Notice.expires_at_ms > now_ms)
        .order_by(Notice.created_at_ms.desc(), Notice.session_id, Notice.kind)
    )
    return [_stored(row) for row in rows]


async def remove_notices(
    session: AsyncSession,
    user_id: str,
    session_id: str,
    kind: NoticeKind | None = None,
    *,
    keep: tuple[NoticeKind, ...] = (),
) -> list[StoredNotice]:
    """Delete one session's notice of ``kind`` (every kind but those in ``keep`` when None);
    returns those deleted."""
    where = (Notice.user_id == user_id) & (Notice.session_id == session_id)
    if kind is not None:
        where = where & (Notice.kind == kind)
    if keep:
        where = where & Notice.kind.not_in(keep)
    found = [_stored(row) for row in await session.scalars(select(Notice).where(where))]
    if found:
        await session.execute(delete(Notice).where(where))
    return found


async def drop_expired(session: AsyncSession, now_ms: int) -> int:
    """Delete every notice past its time; returns how many."""
    result = await session.execute(delete(Notice).where(Notice.expires_at_ms <= now_ms))
    rowcount = getattr(result, "rowcount", 0)
    return rowcount if isinstance(rowcount, int) else 0


def _stored(row: Notice) -> StoredNotice:
    return StoredNotice(
        user_id=row.user_id,
        session_id=row.session_id,
        kind=_kind(row.kind),
        harness=row.harness,
        machine_label=row.machine_label,
        message=row.message,
        created_at_ms=row.created_at_ms,
        expires_at_ms=row.expires_at_ms,
    )


def _kind(value: str) -> NoticeKind:
    match value:
        case "terminal" | "idle" | "stopped" | "other":
            return value
        case _:
            raise ValueError(f"unknown notice kind {value!r} in the notices table")
