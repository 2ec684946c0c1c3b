"""What a review tells its callers: a wait's outcome, annotations, and their API answers.

Owns the words of review results (messages included) and turns them into the ``quire.api``
models the routes send; it decides nothing about a review's state (the reviews service does)
and reads nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import MISSING

from quire.api.reviews import (
    CheckedReview,
    FileAnnotations,
    ReviewOutcome,
    ReviewRecord,
    TaskItem,
)
from quire.core.views import Verdict
from quire.db.reviews import StoredReview
from quire.markdown.tasks import Task


@dataclass(frozen=True)
class StillPending:
    """A wait that ended before the person decided and before the review's window closed."""

    review_id: str


@dataclass(frozen=True)
class Ended:
    """A review that has its verdict: the record, whether the file changed since it was
    requested (``stale``), and a message for the verdicts that need one."""

    review: StoredReview
    verdict: Verdict
    stale: bool
    message: str | None


WaitOutcome = StillPending | Ended

STALE_NOTE = (
    "The file changed since this review was requested (or could not be read to compare), so "
    "its verdict is about an earlier version, not the file as it is now. Request a review "
    "again to ask about the current text."
)


@dataclass(frozen=True)
class Annotations:
    """What the person left on a file: its newest review (None when none was requested),
    whether that review is stale, and the file's tasks (``tasks_note`` says why none were
    read when the file could not be)."""

    path: Path
    review: StoredReview | None
    stale: bool | None
    tasks: list[Task]
    tasks_note: str | None


def ended_message(review: StoredReview) -> str | None:
    """The words that go with an ended review's verdict (None for an on-time decision)."""
    if review.late:
        return (
            "The person decided after this review had already ended (its window closed, or a "
            "newer review replaced it), so an earlier call may have reported that; this "
            "verdict was recorded late."
        )
    if review.verdict == "superseded":
        return (
            f"A newer review ({review.superseded_by}) replaced this one in the review panel "
            "before the person decided. Request a review again if this still needs sign-off."
        )
    if review.verdict == "timeout":
        return (
            f"The person did not decide within the review's window of "
            f"{review.timeout_ms / 1000:g} seconds. Request a review again if this still needs "
            "sign-off."
        )
    return None


def review_record(review: StoredReview) -> ReviewRecord:
    """The review record as the API says it (``GET /api/reviews/{id}``, decisions, events)."""
    return ReviewRecord(
        review_id=review.id,
        status=review.status,
        verdict=review.verdict,
        comments=review.comments,
        late=review.late,
        superseded_by=review.superseded_by,
        path=review.path,
        content=review.content,
        content_hash=review.content_hash,
        requested_by=review.requested_by,
        timeout_ms=review.timeout_ms,
        created_at=review.created_at_ms,
        deadline=review.deadline_ms,
        decided_at=review.decided_at_ms,
    )


def checked_review(review: StoredReview, *, stale: bool) -> CheckedReview:
    """The review record with whether the file changed since it was requested."""
    return CheckedReview(**dict(review_record(review)), stale=stale)


def requested_outcome(review: StoredReview) -> ReviewOutcome:
    """A review just requested: pending, with its deadline."""
    return ReviewOutcome(status="pending", review_id=review.id, deadline=review.deadline_ms)


def wait_outcome(outcome: WaitOutcome) -> ReviewOutcome:
    """A wait's outcome as the agent reads it: ``{status: "pending", reviewId}``, or the
    verdict with its comments, and ``late``, ``supersededBy``, ``stale`` and ``message`` when
    they apply."""
    match outcome:
        case StillPending(review_id=review_id):
            return ReviewOutcome(status="pending", review_id=review_id)
        case Ended(review=review, verdict=verdict, stale=stale, message=message):
            return ReviewOutcome(
                verdict=verdict,
                review_id=review.id,
                comments=review.comments,
                late=True if review.late else MISSING,
                superseded_by=MISSING if review.superseded_by is None else review.superseded_by,
                stale=True if stale else MISSING,
                message=MISSING if message is None else message,
            )


def file_annotations(annotations: Annotations) -> FileAnnotations:
    """Annotations as the API says them: verdict and comments are None with no review."""
    tasks = tuple(
        TaskItem(line=task.line, checked=task.checked, text=task.text) for task in annotations.tasks
    )
    note = MISSING if annotations.tasks_note is None else annotations.tasks_note
    review = annotations.review
    if review is None:
        return FileAnnotations(
            path=str(annotations.path),
            verdict=None,
            comments=None,
            late=False,
            tasks=tasks,
            tasks_note=note,
        )
    message = ended_message(review)
    return FileAnnotations(
        path=str(annotations.path),
        verdict=review.verdict,
        comments=review.comments,
        late=review.late,
        tasks=tasks,
        tasks_note=note,
        review_id=review.id,
        status=review.status,
        reviewed_at=review.created_at_ms,
        superseded_by=MISSING if review.superseded_by is None else review.superseded_by,
        stale=bool(annotations.stale),
        message=MISSING if message is None else message,
        note=STALE_NOTE if annotations.stale else MISSING,
    )
