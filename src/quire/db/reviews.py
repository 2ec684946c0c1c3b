"""Queries over stored reviews: insert, read, record an outcome, and prune old ones.

Plain functions over a session the caller opened and commits; the review loop's rules (who
may decide, when a review times out) live in the reviews service.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.views import Decision, ReviewStatus, Verdict
from quire.db.models import Review
from quire.db.paths import at_or_below, moved_below

_DELETE_CHUNK = 500
_REVIEWS = Review.metadata.tables[Review.__tablename__]


@dataclass(frozen=True)
class StoredReview:
    """A review as stored. ``path`` is the resolved file (None for inline ``content``);
    ``content_hash`` is the SHA-256 of the text under review when it was requested."""

    id: str
    user_id: str
    path: str | None
    content: str | None
    content_hash: str
    requested_by: str
    timeout_ms: int
    created_at_ms: int
    deadline_ms: int
    status: ReviewStatus
    verdict: Verdict | None
    comments: str | None
    decided_at_ms: int | None
    late: bool
    superseded_by: str | None


async def insert_review(session: AsyncSession, review: StoredReview) -> None:
    """Store a new review."""
    session.add(
        Review(
            id=review.id,
            user_id=review.user_id,
            path=review.path,
            content=review.content,
            content_hash=review.content_hash,
            requested_by=review.requested_by,
            timeout_ms=review.timeout_ms,
            created_at_ms=review.created_at_ms,
            deadline_ms=review.deadline_ms,
            status=review.status,
            verdict=review.verdict,
            comments=review.comments,
            decided_at_ms=review.decided_at_ms,
            late=review.late,
            superseded_by=review.superseded_by,
        )
    )
    await session.flush()


async def get_review(session: AsyncSession, review_id: str) -> StoredReview | None:
    """The review with this id, or None."""
    row = await session.get(Review, review_id)
    return None if row is None else _stored(row)


async def record_outcome(session: AsyncSession, review: StoredReview, *, was: ReviewStatus) -> bool:
    """Write a review's outcome fields (status, verdict, comments, decision time, late,
    superseded_by) if its stored status is still ``was``; the request fields never change.

    One UPDATE on the table itself (no ORM bookkeeping: a person waits on it). Returns whether
    the row was written: False when it is gone or its status is no longer ``was``.
    """
    result = await session.execute(
        update(_REVIEWS)
        .where(_REVIEWS.c.id == review.id, _REVIEWS.c.status == was)
        .values(
            status=review.status,
            verdict=review.verdict,
            comments=review.comments,
            decided_at_ms=review.decided_at_ms,
            late=review.late,
            superseded_by=review.superseded_by,
        )
    )
    rowcount = getattr(result, "rowcount", 0)
    return isinstance(rowcount, int) and rowcount == 1


async def pending_reviews(session: AsyncSession, user_id: str) -> list[StoredReview]:
    """The user's reviews still waiting for a verdict, newest first."""
    rows = await session.scalars(
        select(Review)
        .where(Review.user_id == user_id, Review.status == "pending")
        .order_by(Review.created_at_ms.desc(), Review.id.desc())
    )
    return [_stored(row) for row in rows]


async def all_pending_reviews(session: AsyncSession) -> list[StoredReview]:
    """Every user's reviews still waiting for a verdict, oldest first."""
    rows = await session.scalars(
        select(Review).where(Review.status == "pending").order_by(Review.created_at_ms, Review.id)
    )
    return [_stored(row) for row in rows]


async def latest_for_path(session: AsyncSession, user_id: str, path: str) -> StoredReview | None:
    """The user's newest review of the file at ``path`` (resolved), or None."""
    row = await session.scalar(
        select(Review)
        .where(Review.user_id == user_id, Review.path == path)
        .order_by(Review.created_at_ms.desc(), Review.id.desc())
        .limit(1)
    )
    return None if row is None else _stored(row)


async def move_reviews(session: AsyncSession, source: str, target: str) -> None:
    """The reviews of the file ``source`` (or of files below the folder ``source``), whatever
    their status, are now of that file at ``target``: it was renamed or moved."""
    await session.execute(
        update(Review)
        .where(at_or_below(Review.path, source))
        .values(path=moved_below(Review.path, source, target))
        .execution_options(synchronize_session=False)
    )


async def prune_reviews(session: AsyncSession, user_id: str, keep: int) -> int:
    """Delete the user's reviews past the ``keep`` newest, except the newest of each file and
    any still pending; returns how many were deleted."""
    rows = await session.execute(
        select(Review.id, Review.path, Review.status)
        .where(Review.user_id == user_id)
        .order_by(Review.created_at_ms.desc(), Review.id.desc())
    )
    seen_paths: set[str] = set()
    doomed: list[str] = []
    for index, (review_id, path, status) in enumerate(rows):
        newest_of_file = path is not None and path not in seen_paths
        if path is not None:
            seen_paths.add(path)
        if index >= keep and not newest_of_file and status != "pending":
            doomed.append(review_id)
    for start in range(0, len(doomed), _DELETE_CHUNK):
        chunk = doomed[start : start + _DELETE_CHUNK]
        await session.execute(delete(Review).where(Review.id.in_(chunk)))
    return len(doomed)


def _stored(row: Review) -> StoredReview:
    return StoredReview(
        id=row.id,
        user_id=row.user_id,
        path=row.path,
        content=row.content,
        content_hash=row.content_hash,
        requested_by=row.requested_by,
        timeout_ms=row.timeout_ms,
        created_at_ms=row.created_at_ms,
        deadline_ms=row.deadline_ms,
        status=_status(row.status),
        verdict=_verdict(row.verdict),
        comments=row.comments,
        decided_at_ms=row.decided_at_ms,
        late=row.late,
        superseded_by=row.superseded_by,
    )


def _status(value: str) -> ReviewStatus:
    match value:
        case "pending" | "decided" | "timeout" | "superseded":
            return value
        case _:
            raise ValueError(f"unknown review status {value!r} in the reviews table")


def _verdict(value: str | None) -> Verdict | None:
    match value:
        case None:
            return None
        case "timeout" | "superseded":
            return value
        case _:
            return _decision(value)


def _decision(value: str) -> Decision:
    match value:
        case "approved" | "changes_requested" | "dismissed":
            return value
        case _:
            raise ValueError(f"unknown review verdict {value!r} in the reviews table")
