"""Queries over stored approval requests: insert, read, count the waiting ones, record how one
ended, and prune the old ones.

Plain functions over a session the caller opened and commits; the rules (caps, time to live,
who may decide) live in the approvals service. JSON columns are decoded here, nowhere else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import Approval

ApprovalStatus = Literal["pending", "decided", "expired", "answered"]
_APPROVALS = Approval.metadata.tables[Approval.__tablename__]
_DELETE_CHUNK = 500


@dataclass(frozen=True)
class StoredApproval:
    """One request as stored. ``decision`` is the person's decision as a JSON-ready object
    (``behavior``, ``message``, ``updatedInput``, ``updatedPermissions``) once decided."""

    id: str
    user_id: str
    harness: str
    machine_label: str
    session_id: str
    cwd: str
    tool_name: str
    tool_input: dict[str, Any]
    suggestions: tuple[dict[str, Any], ...]
    input_hash: str
    created_at_ms: int
    deadline_ms: int
    status: ApprovalStatus
    decision: dict[str, Any] | None = None
    decided_at_ms: int | None = None


async def insert_approval(session: AsyncSession, approval: StoredApproval) -> None:
    """Store a new request."""
    await session.execute(
        _APPROVALS.insert().values(
            id=approval.id,
            user_id=approval.user_id,
            harness=approval.harness,
            machine_label=approval.machine_label,
            session_id=approval.session_id,
            cwd=approval.cwd,
            tool_name=approval.tool_name,
            tool_input=_dumps(approval.tool_input),
            suggestions=_dumps(list(approval.suggestions)),
            input_hash=approval.input_hash,
            created_at_ms=approval.created_at_ms,
            deadline_ms=approval.deadline_ms,
            status=approval.status,
            decision=None if approval.decision is None else _dumps(approval.decision),
            decided_at_ms=approval.decided_at_ms,
        )
    )


async def get_approval(session: AsyncSession, approval_id: str) -> StoredApproval | None:
    """The request with this id, or None."""
    row = await session.get(Approval, approval_id)
    return None if row is None else _stored(row)


async def waiting_counts(
    session: AsyncSession, user_id: str, machine_label: str
) -> tuple[int, int]:
    """How many of the user's requests wait (pending, deadline not passed is not checked
    here), in all and from ``machine_label``."""
    on_label = case((Approval.machine_label == machine_label, 1), else_=0)
    row = (
        await session.execute(
            select(func.count(), func.coalesce(func.sum(on_label), 0)).where(
                Approval.user_id == user_id, Approval.status == "pending"
            )
        )
    ).one()
    return int(row[0]), int(row[1])


async def record_end(
    session: AsyncSession,
    approval_id: str,
    status: ApprovalStatus,
    *,
    decided_at_ms: int,
    decision: dict[str, Any] | None = None,
) -> bool:
    """End a pending request as ``status`` (with the person's ``decision``), if it is still
    pending; returns whether it was written (False: it ended meanwhile, or is gone)."""
    result = await session.execute(
        update(_APPROVALS)
        .where(_APPROVALS.c.id == approval_id, _APPROVALS.c.status == "pending")
        .values(
            status=status,
            decision=None if decision is None else _dumps(decision),
            decided_at_ms=decided_at_ms,
        )
    )
    rowcount = getattr(result, "rowcount", 0)
    return isinstance(rowcount, int) and rowcount == 1


async def pending_approvals(session: AsyncSession, user_id: str) -> list[StoredApproval]:
    """The user's pending requests, oldest first (the order they are answered in)."""
    rows = await session.scalars(
        select(Approval)
        .where(Approval.user_id == user_id, Approval.status == "pending")
        .order_by(Approval.created_at_ms, Approval.id)
    )
    return [_stored(row) for row in rows]


async def overdue_ids(session: AsyncSession, user_id: str | None, now_ms: int) -> list[str]:
    """The pending requests whose deadline has passed (of one user, or every user's)."""
    query = select(Approval.id).where(Approval.status == "pending", Approval.deadline_ms <= now_ms)
    if user_id is not None:
        query = query.where(Approval.user_id == user_id)
    return list(await session.scalars(query))


async def session_pending(
    session: AsyncSession, user_id: str, session_id: str
) -> list[StoredApproval]:
    """The pending requests one agent session made, oldest first."""
    rows = await session.scalars(
        select(Approval)
        .where(
            Approval.user_id == user_id,
            Approval.session_id == session_id,
            Approval.status == "pending",
        )
        .order_by(Approval.created_at_ms, Approval.id)
    )
    return [_stored(row) for row in rows]


async def recent_ended(session: AsyncSession, user_id: str, limit: int) -> list[StoredApproval]:
    """The user's ``limit`` newest requests that ended, newest first."""
    rows = await session.scalars(
        select(Approval)
        .where(Approval.user_id == user_id, Approval.status != "pending")
        .order_by(Approval.created_at_ms.desc(), Approval.id.desc())
        .limit(limit)
    )
    return [_stored(row) for row in rows]


async def prune_approvals(session: AsyncSession, user_id: str, keep: int) -> int:
    """Delete the user's ended requests past the ``keep`` newest; returns how many."""
    rows = await session.scalars(
        select(Approval.id)
        .where(Approval.user_id == user_id, Approval.status != "pending")
        .order_by(Approval.created_at_ms.desc(), Approval.id.desc())
        .offset(keep)
    )
    doomed = list(rows)
    for start in range(0, len(doomed), _DELETE_CHUNK):
        chunk = doomed[start : start + _DELETE_CHUNK]
        await session.execute(delete(Approval).where(Approval.id.in_(chunk)))
    return len(doomed)


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _stored(row: Approval) -> StoredApproval:
    suggestions = json.loads(row.suggestions)
    return StoredApproval(
        id=row.id,
        user_id=row.user_id,
        harness=row.harness,
        machine_label=row.machine_label,
        session_id=row.session_id,
        cwd=row.cwd,
        tool_name=row.tool_name,
        tool_input=json.loads(row.tool_input),
        suggestions=tuple(suggestions),
        input_hash=row.input_hash,
        created_at_ms=row.created_at_ms,
        deadline_ms=row.deadline_ms,
        status=_status(row.status),
        decision=None if row.decision is None else json.loads(row.decision),
        decided_at_ms=row.decided_at_ms,
    )


def _status(value: str) -> ApprovalStatus:
    match value:
        case "pending" | "decided" | "expired" | "answered":
            return value
        case _:
            raise ValueError(f"unknown approval status {value!r} in the approvals table")
