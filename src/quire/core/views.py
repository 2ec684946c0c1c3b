"""Window and review values shared by every layer: views, verdicts, the owner, document ids.

Pure values and rules; no I/O (a document id is computed from a path the caller resolved).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final, Literal, get_args

from quire.core.errors import InvalidArgument

View = Literal["read", "edit", "source"]
"""How a tab shows its document: rendered (read), rich editing (edit) or Markdown (source)."""

VIEWS: Final[tuple[View, ...]] = get_args(View)

OpenMode = Literal["read", "edit"]
"""The views an opening may ask for; source view is the person's own choice."""

OPEN_MODES: Final[tuple[OpenMode, ...]] = get_args(OpenMode)

Verdict = Literal["approved", "changes_requested", "dismissed", "timeout", "superseded"]
"""How a review ended: the person's three answers, its window closing, or a newer review."""

VERDICTS: Final[tuple[Verdict, ...]] = get_args(Verdict)

Decision = Literal["approved", "changes_requested", "dismissed"]
"""The verdicts a person gives; timeout and superseded are never chosen."""

DECISIONS: Final[tuple[Decision, ...]] = get_args(Decision)

ReviewStatus = Literal["pending", "decided", "timeout", "superseded"]
"""Where a stored review stands."""

REVIEW_STATUSES: Final[tuple[ReviewStatus, ...]] = get_args(ReviewStatus)

OWNER: Final = "owner"
"""The one user of single-user mode."""

DOC_ID_LENGTH: Final = 24

REVIEW_TIMEOUT_MS: Final = (5_000, 600_000, 300_000)
"""A review's window: the least, the most and the default, in milliseconds."""

REVIEW_WAIT_MS: Final = (1_000, 600_000, 50_000)
"""How long one wait for a verdict may block: least, most and default, in milliseconds."""

RECENT_LIMIT: Final = (1, 200, 10)
"""How many recent documents one listing may return: least, most and default."""

REVIEWS_KEPT: Final = 256
"""How many reviews are kept per user (besides the newest review of each file)."""


def document_id(path: Path) -> str:
    """The id of the live document of ``path``, which the caller has resolved through symlinks.

    The same file always gets the same id (24 hex digits of the SHA-256 of its path), so the
    server, the browser and the database agree on it without a lookup.
    """
    if not path.is_absolute():
        raise ValueError(f"document_id needs an absolute, resolved path, got {path!r}")
    return hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:DOC_ID_LENGTH]


def whole_number(value: object, argument: str, low: int, high: int) -> int:
    """``value`` when it is a whole number from ``low`` to ``high``; the error names the range.

    A bool is not a number here, nor is ``5.0`` or ``"5"``: callers check types strictly.
    Raises ``InvalidArgument`` naming ``argument``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(
            f"`{argument}` must be a whole number from {low:,} to {high:,}, got {value!r}.",
            argument=argument,
        )
    return value
