"""The error body every refused request answers: ``{"error": {"type", "message", …}}``.

``type`` names the error's class in Quire's one exception tree (``EditRefused``); the message
says what happened and what to do next. A client rebuilds the error from this body.
"""

from __future__ import annotations

from quire.api.base import Answer


class ErrorDetail(Answer):
    """What went wrong: the error's class, its message, and the argument or count at fault."""

    type: str
    message: str
    argument: str | None = None
    match_count: int | None = None


class ErrorBody(Answer):
    """The body of every error answer."""

    error: ErrorDetail

    def dump(self) -> dict[str, object]:
        """The wire form: optional details that are not set are left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
