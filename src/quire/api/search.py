"""The window's search answer (``GET /api/search``): the files that hold a phrase.

Models only: the server dumps it, the client and the browser read it.
"""

from __future__ import annotations

from quire.api.base import Answer, omitted_when_none


class SearchLine(Answer):
    """A matching line: its 1-based number and the text around the match."""

    line: int
    text: str


class SearchResult(Answer):
    """A file holding the phrase: how many of its lines match, and the first few of them."""

    path: str
    title: str
    matches: int
    lines: tuple[SearchLine, ...]


class UnreadFile(Answer):
    """A file that was not searched, and why."""

    path: str
    reason: str


class SearchAnswer(Answer):
    """What a search found: the best ``results`` (at most the limit), how many files matched
    (``total``) and were read (``searched``), the first unreadable files and how many there
    were, and whether (``truncated``) and why (``note``) not everything was searched."""

    query: str
    results: tuple[SearchResult, ...]
    total: int
    searched: int
    truncated: bool
    unread: tuple[UnreadFile, ...]
    unread_count: int
    note: str | None = omitted_when_none()
