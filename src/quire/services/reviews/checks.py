"""The checks a review's arguments pass: inline content, comments, the requester's name, and a
resumed wait that must not change what was requested; plus the content hash a review is tied to.

Pure functions that raise InvalidArgument naming the argument; they hold and read no state.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from quire.core.errors import InvalidArgument
from quire.core.views import REVIEW_TIMEOUT_MS, whole_number
from quire.db.reviews import StoredReview
from quire.markdown.edits import check_request_size

MAX_REQUESTED_BY = 200


def content_hash(text: str) -> str:
    """The SHA-256 (hex) of a text as UTF-8: what a review of it is tied to."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_request(
    user: str,
    path: Path | None,
    content: str | None,
    timeout_ms: int | None,
    requested_by: str | None,
) -> tuple[int, str]:
    """A review request's window (``timeout_ms``: 5,000 to 600,000, default 300,000) and who
    asks (``requested_by``, else ``user``), after checking that exactly one of ``path`` and
    ``content`` is given and that ``content`` is storable text."""
    low, high, default = REVIEW_TIMEOUT_MS
    window_ms = default if timeout_ms is None else whole_number(timeout_ms, "timeout_ms", low, high)
    by = user if requested_by is None else requester(requested_by)
    if (path is None) == (content is None):
        raise InvalidArgument(
            "Pass either `path` (a file to review) or `content` (inline Markdown to "
            "review), not both and not neither.",
            argument="path" if path is not None else "content",
        )
    if content is not None:
        check_content(content)
    return window_ms, by


def check_resume(
    review: StoredReview, resolved_path: Path | None, content: str | None, timeout_ms: int | None
) -> None:
    """Refuse a resumed wait whose resent ``path`` (resolved), ``content`` or ``timeout_ms``
    differs from what ``review`` was requested with."""
    refusal = (
        "A resumed review cannot change: resend it unchanged or leave it out, or request a new "
        "review (without review_id) for the new text."
    )
    if timeout_ms is not None and timeout_ms != review.timeout_ms:
        raise InvalidArgument(
            f"`timeout_ms` {timeout_ms!r} differs from the {review.timeout_ms} that review "
            f"{review.id} was requested with. {refusal}",
            argument="timeout_ms",
        )
    if resolved_path is not None and str(resolved_path) != review.path:
        what = "inline content" if review.path is None else f"'{review.path}'"
        raise InvalidArgument(
            f"`path` '{resolved_path}' differs from what review {review.id} was requested for "
            f"({what}). {refusal}",
            argument="path",
        )
    if content is not None and content != review.content:
        what = "a file" if review.content is None else "other content"
        raise InvalidArgument(
            f"`content` differs from what review {review.id} was requested for ({what}). {refusal}",
            argument="content",
        )


def check_content(content: str) -> None:
    """Refuse inline content that is empty, only whitespace, or not storable text."""
    if not isinstance(content, str) or not content.strip():
        raise InvalidArgument(
            "`content` must not be empty or only whitespace: pass the Markdown to review, or "
            "a path instead.",
            argument="content",
        )
    check_storable(content, "content")


def check_storable(value: str, argument: str) -> None:
    """Refuse a value the database cannot hold as text: not a string, over the request size
    limit (FileTooLarge), a NUL, a lone surrogate."""
    if not isinstance(value, str):
        raise InvalidArgument(
            f"`{argument}` must be text (a string), got {type(value).__name__}.",
            argument=argument,
        )
    check_request_size(value)
    if "\0" in value:
        raise InvalidArgument(
            f"`{argument}` contains a NUL character (\\0), which text cannot hold. Send it "
            "without the NUL.",
            argument=argument,
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidArgument(
            f"`{argument}` holds an unpaired surrogate (character {err.start + 1}), which is "
            "not text. Send valid Unicode text.",
            argument=argument,
        ) from None


def requester(requested_by: str) -> str:
    """The name of who asks for a review, trimmed: 1 to MAX_REQUESTED_BY characters."""
    check_storable(requested_by, "requested_by")
    name = requested_by.strip()
    if not name or len(name) > MAX_REQUESTED_BY:
        raise InvalidArgument(
            f"`requested_by` must be a name of 1 to {MAX_REQUESTED_BY} characters (who asks "
            f"for the review), got {requested_by!r}.",
            argument="requested_by",
        )
    return name
