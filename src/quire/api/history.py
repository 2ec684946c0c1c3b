"""History requests and answers: a note's commits, a version, a diff, blame, restore and the
workspace timeline.

Models only: the server dumps them, the client parses them, MCP output schemas come from them.
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer, StrictBody, omitted_when_none


class RestoreBody(StrictBody):
    """Make the note ``path`` (absolute) hold its text at the commit ``rev`` again."""

    path: str
    rev: str


class HistoryEntry(Answer):
    """One commit: its id (and the first seven characters), who made it (``agent`` is set
    when an agent did, through the person ``account``), when (ms since the epoch), its
    message, and the path it touched (absolute) and how: ``A`` added, ``M`` modified,
    ``D`` deleted, ``R`` renamed from ``oldPath``."""

    commit: str
    short: str
    author: str
    email: str
    agent: str | None = omitted_when_none()
    account: str
    time_ms: int
    message: str
    path: str | None = omitted_when_none()
    status: Literal["A", "M", "D", "R", "C", "T", "U", "X"]
    old_path: str | None = omitted_when_none()


class HistoryPage(Answer):
    """A page of commits, newest first; ``nextCursor`` asks for the next (absent on the
    last). ``path`` is the note's (absent for the workspace timeline)."""

    path: str | None = omitted_when_none()
    entries: tuple[HistoryEntry, ...]
    next_cursor: str | None = omitted_when_none()


class Version(Answer):
    """The note ``path`` as it was at the commit ``rev`` (a full id): its text, byte for
    byte, and its size in bytes."""

    path: str
    rev: str
    content: str
    size: int


class VersionDiff(Answer):
    """A unified diff from the note at ``fromRev`` to it at ``toRev`` and its counts."""

    path: str
    from_rev: str
    to_rev: str
    diff: str
    added: int
    removed: int


class BlameLine(Answer):
    """A line (1-based) and the commit, author (and agent) that last changed it."""

    line: int
    text: str
    commit: str
    author: str
    agent: str | None = omitted_when_none()
    time_ms: int


class Blame(Answer):
    """Each line of the note ``path`` at ``rev`` with its last author."""

    path: str
    rev: str
    lines: tuple[BlameLine, ...]


class Restored(Answer):
    """The note ``path`` holds its text at ``rev`` again; ``commit`` is the restore's own
    commit (absent when the text was that version already), ``live`` whether an open
    document took it (editors merged it)."""

    path: str
    rev: str
    commit: str | None = omitted_when_none()
    live: bool
