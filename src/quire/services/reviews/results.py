"""What a review tells its callers: a wait's outcome, annotations, and their JSON-ready shapes.

Owns the words and shapes of review results (messages included); it decides nothing about a
review's state (the reviews service does) and reads nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


def review_data(review: StoredReview, *, stale: bool | None = None) -> dict[str, object]:
    """The review record as JSON-ready data (``GET /api/reviews/{id}`` and review events)."""
    data: dict[str, object] = {
        "reviewId": review.id,
        "status": review.status,
        "verdict": review.verdict,
        "comments": review.comments,
        "late": review.late,
        "supersededBy": review.superseded_by,
        "path": review.path,
        "content": review.content,
        "contentHash": review.content_hash,
        "requestedBy": review.requested_by,
        "timeoutMs": review.timeout_ms,
        "createdAt": review.created_at_ms,
        "deadline": review.deadline_ms,
        "decidedAt": review.decided_at_ms,
    }
    if stale is not None:
        data["stale"] = stale
    return data


def outcome_data(outcome: WaitOutcome) -> dict[str, object]:
    """A wait's outcome as the agent reads it: ``{status: "pending", reviewId}``, or the
    verdict with its comments, and ``late``, ``supersededBy``, ``stale`` and ``message`` when
    they apply."""
    match outcome:
        case StillPending(review_id=review_id):
            return {"status": "pending", "reviewId": review_id}
        case Ended(review=review, verdict=verdict, stale=stale, message=message):
            data: dict[str, object] = {
                "verdict": verdict,
                "reviewId": review.id,
                "comments": review.comments,
            }
            if review.late:
                data["late"] = True
            if review.superseded_by is not None:
                data["supersededBy"] = review.superseded_by
            if stale:
                data["stale"] = True
            if message is not None:
                data["message"] = message
            return data


def annotations_data(annotations: Annotations) -> dict[str, object]:
    """Annotations as JSON-ready data: verdict and comments are None with no review."""
    review = annotations.review
    data: dict[str, object] = {
        "path": str(annotations.path),
        "verdict": None if review is None else review.verdict,
        "comments": None if review is None else review.comments,
        "late": False if review is None else review.late,
        "tasks": [
            {"line": task.line, "checked": task.checked, "text": task.text}
            for task in annotations.tasks
        ],
    }
    if annotations.tasks_note is not None:
        data["tasksNote"] = annotations.tasks_note
    if review is not None:
        data["reviewId"] = review.id
        data["status"] = review.status
        data["reviewedAt"] = review.created_at_ms
        if review.superseded_by is not None:
            data["supersededBy"] = review.superseded_by
        data["stale"] = bool(annotations.stale)
        message = ended_message(review)
        if message is not None:
            data["message"] = message
        if annotations.stale:
            data["note"] = STALE_NOTE
    return data
