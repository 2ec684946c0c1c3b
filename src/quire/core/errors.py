"""The one exception tree of Quire; every message is user interface.

Messages are read verbatim by people and by agents, so each says what happened and what to
do next. Transports (CLI, HTTP, MCP) map the classes below to exit codes, statuses and
``isError`` results; nothing here knows about them.

    QuireError
    ├── InvalidArgument      a caller's argument breaks a rule (empty, out of range, wrong shape)
    ├── PathRefused          a path breaks the path rules (not Markdown, dotfile, outside, FIFO…)
    ├── FileMissing          the path names nothing on disk
    ├── FileTooLarge         a file or a request is over its size limit
    ├── NotUtf8              a file's bytes are not UTF-8 text
    ├── EditRefused          a find/replace could not be applied (not found, not unique, …)
    ├── DocumentInvalid      a file's content is not what the operation needs (a broken canvas)
    ├── StorageFailed        a read or write failed at the operating system (disk full, EACCES…)
    ├── NotOpen              no document (or no tab of that document) is open in the window
    ├── ReviewNotFound       a review id names no review the caller can see
    └── ReviewRefused        a review cannot take that action now (it was already decided)
"""

from __future__ import annotations


class QuireError(Exception):
    """Base of every error Quire raises on purpose. ``str(err)`` is the message to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidArgument(QuireError):
    """An argument breaks a rule; ``argument`` names it when there is one."""

    def __init__(self, message: str, *, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


class PathRefused(QuireError):
    """A path breaks the path rules; nothing was read or written."""


class FileMissing(QuireError):
    """The path names no file."""


class FileTooLarge(QuireError):
    """A file or request is larger than its limit; it was not read whole."""


class NotUtf8(QuireError):
    """A file's bytes are not UTF-8 text."""


class EditRefused(QuireError):
    """A find/replace was refused; the document is unchanged.

    ``match_count`` is how many times ``find`` occurs, when the refusal came from searching.
    """

    def __init__(self, message: str, *, match_count: int | None = None) -> None:
        super().__init__(message)
        self.match_count = match_count


class DocumentInvalid(QuireError):
    """A document's content has the wrong shape for the operation; it was left unchanged."""


class StorageFailed(QuireError):
    """The operating system refused a read or a write; nothing was half-written."""


class NotOpen(QuireError):
    """The operation needs an open document (or tab) and there is none; nothing changed."""


class ReviewNotFound(QuireError):
    """A review id names no review this user can see (never made, or no longer kept)."""


class ReviewRefused(QuireError):
    """A review cannot take this action in its current state (it was already decided)."""
