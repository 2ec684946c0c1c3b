"""The review loop's requests and answers: requests, waits, decisions, annotations.

Models only: the server reads and dumps them, the client builds and parses them. A field typed
`... | MISSING` is left out of the answer when it does not apply (the keys agents have always
been given), never sent as null.
"""

from __future__ import annotations

from typing import Literal

from pydantic import MISSING, Field, ValidationInfo, field_validator

from quire.api.base import Answer, StrictBody
from quire.core.views import Decision, ReviewStatus, Verdict


class RequestBody(StrictBody):
    path: str | None = None
    content: str | None = None
    timeout_ms: int | None = None
    requested_by: str | None = None
    wait_ms: int | None = None


class WaitBody(StrictBody):
    wait_ms: int | None = None
    path: str | None = None
    content: str | None = None
    timeout_ms: int | None = None


class DecisionBody(StrictBody):
    verdict: Decision
    comments: str | None = None


class ReviewRecord(Answer):
    """A review as stored: what was asked (a file's `path` or inline `content`), by whom,
    its window (`timeoutMs`, `deadline`), and the verdict once there is one. Times are
    milliseconds since the epoch. Also the `review` of the review events."""

    review_id: str
    status: ReviewStatus
    verdict: Verdict | None
    comments: str | None
    late: bool
    superseded_by: str | None
    path: str | None
    content: str | None
    content_hash: str
    requested_by: str
    timeout_ms: int
    created_at: int
    deadline: int
    decided_at: int | None


class CheckedReview(ReviewRecord):
    """A review's record read back, with `stale`: the file changed since the review was
    requested (or could not be read to compare)."""

    stale: bool


class ActiveReview(Answer):
    """The review the panel shows (the newest pending one within its window), or null."""

    review: ReviewRecord | None


class ReviewOutcome(Answer):
    """What a request or a wait says: `{status: "pending", reviewId}` (with the `deadline`
    when the review was just requested) while the person has not decided, or the
    `verdict` with its `comments`, and `late`, `supersededBy`, `stale` and
    `message` when they apply."""

    status: Literal["pending"] | MISSING = MISSING
    verdict: Verdict | MISSING = Field(default=MISSING, validate_default=True)
    review_id: str
    comments: str | MISSING | None = Field(default=MISSING, validate_default=True)
    deadline: int | MISSING = MISSING
    late: bool | MISSING = MISSING
    superseded_by: str | MISSING = MISSING
    stale: bool | MISSING = MISSING
    message: str | MISSING = MISSING

    @field_validator("verdict", "comments")
    @classmethod
    def _pending_or_decided(cls, value: object, info: ValidationInfo) -> object:
        # ``status`` comes first, so it is validated (and in ``info.data``) by now.
        pending = info.data.get("status") == "pending"
        if pending and value is not MISSING:
            raise ValueError(f"a pending outcome has no `{info.field_name}`")
        if not pending and value is MISSING:
            raise ValueError("required in an outcome without `status: pending`")
        return value

    @property
    def is_pending(self) -> bool:
        """Whether the person has not decided yet (call again with the review's id)."""
        return self.status == "pending"


class TaskItem(Answer):
    """One task checkbox of a file: its 1-based line, whether it is ticked, its text."""

    line: int
    checked: bool
    text: str


class FileAnnotations(Answer):
    """What the person left on a file: its newest review's verdict and comments (null with no
    review; `reviewId`, `status`, `reviewedAt`, `stale` and the rest only with one)
    and its task checkboxes (`tasksNote` says why none were read)."""

    path: str
    verdict: Verdict | None
    comments: str | None
    late: bool
    tasks: tuple[TaskItem, ...]
    tasks_note: str | MISSING = MISSING
    review_id: str | MISSING = MISSING
    status: ReviewStatus | MISSING = MISSING
    reviewed_at: int | MISSING = MISSING
    superseded_by: str | MISSING = MISSING
    stale: bool | MISSING = MISSING
    message: str | MISSING = MISSING
    note: str | MISSING = MISSING
