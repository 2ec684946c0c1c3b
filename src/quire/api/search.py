"""The search answers: a page of hits (``GET /api/search``), backlinks, quick-open titles.

Models only: the server dumps them, the client parses them, MCP output schemas come from them.

A snippet is plain text (never HTML): each match in it is wrapped in the control characters
``MARK_START`` (U+0002) and ``MARK_END`` (U+0003), which a note's own text never holds in a
snippet (they are removed from it first). A UI HTML-escapes the snippet, then turns the two
marks into ``<mark>`` and ``</mark>``; an agent may strip them.
"""

from __future__ import annotations

from typing import Literal, get_args

from quire.api.base import Answer

SearchMode = Literal["grep", "words", "semantic"]
"""``grep``: case-insensitive substring, the files in index order; ``words``: every word of the
query in any order, ranked best first (bm25, the title weighing more); ``semantic``: the words
ranking and the notes nearest the query in meaning, fused (the ``semantic`` extra; without it,
the words ranking and a note saying how to add it)."""

SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
"""Every mode, in the order above."""

MARK_START = "\u0002"
"""Opens a match in a snippet."""

MARK_END = "\u0003"
"""Closes a match in a snippet."""


class Unreadable(Answer):
    """A file that is not searchable, and why (not UTF-8 text, larger than 16 MiB, …)."""

    path: str
    reason: str


class SearchHit(Answer):
    """One file that matches: its absolute path, the served folder holding it, its path there,
    its title, the 1-based line of its first match, a snippet around that match (the match
    wrapped in ``MARK_START`` … ``MARK_END``) and how many times the query occurs in it (None
    when not counted: in words mode, and for quick open)."""

    path: str
    workspace: str
    rel_path: str
    title: str
    line: int
    snippet: str
    matches: int | None = None


class SearchPage(Answer):
    """One page of a search: the query as read, its mode, the hits (one per file), whether more
    match (``truncated``; pass ``next_cursor`` back as ``cursor`` for the next page), a ``note``
    saying what the answer may lack and why (the index still being built, semantic search not
    installed), how many files the index holds, and the files that could not be indexed."""

    query: str
    mode: SearchMode
    hits: list[SearchHit]
    truncated: bool
    next_cursor: str | None = None
    note: str | None = None
    indexed: int
    unreadable: list[Unreadable]


class Backlink(Answer):
    """A note that links to the document: its path, title and the 1-based line of the link."""

    path: str
    title: str
    line: int


class Backlinks(Answer):
    """The notes linking to ``path`` (wikilinks and Markdown links), each once, by path."""

    path: str
    links: list[Backlink]


class Titles(Answer):
    """Quick open's answer: the documents whose title or path fits the query, best first."""

    query: str
    hits: list[SearchHit]


class Reindexed(Answer):
    """What a rebuild of the index did: how many files it indexed, how many it could not."""

    indexed: int
    unreadable: int
