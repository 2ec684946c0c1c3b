"""Chat values and rules: a message, the limits, author labels, mentions and time stamps.

Pure text rules with no Markdown parser and no I/O; where a message sits in a note is the
business of ``quire.markdown.chat``.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NewType

from quire.core.errors import InvalidArgument

MAX_MESSAGE_BYTES = 64 * 1024
"""The most UTF-8 bytes one message body may hold."""
MAX_LABEL_CHARS = 60
"""The most characters an author label keeps."""
MAX_ROLE_CHARS = 300
"""The most characters an agent's role keeps."""
STOPS_TO_RELEASE = 3
"""The keepalive's stop rule: this many stops of an agent within two minutes let it stop (the
server then raises its "stopped" notice)."""

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Characters that reorder the text around them, so a name could show as someone else's."""
# U+0387 is canonically equal to the middle dot: a normalising editor would turn it into one.
_LABEL_REMOVED = frozenset("()\u00b7\u0387")
_BROADCAST = frozenset({"all", "everyone"})

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FENCE = re.compile(r"[ \t>]*(`{3,}|~{3,})(.*)")
_BACKTICKS = re.compile(r"`+")
# A mention's @ follows no letter, digit or address character, so `bob@example.com` is none.
_MENTION = re.compile(r"(?<![^\W_])(?<![.+\-/@])@(\w[\w.-]*)")


Label = NewType("Label", str)
"""An author label as ``sanitize_label`` made it: what a message header and a role key hold.
Only ``sanitize_label`` makes one, so code that takes a Label need not check it again."""


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat note.

    ``number`` is its 1-based position, ``time`` the stamp as written in its header,
    ``body`` the unescaped Markdown without leading or trailing blank lines (``\\n`` line
    breaks), and ``offset`` the character offset of its header line in the note text.
    """

    number: int
    author: str
    time: str
    body: str
    offset: int


def sanitize_label(name: str) -> Label:
    """``name`` as an author label: one line of at most 60 visible characters.

    Control and bidi characters are removed, ``( ) ·`` become spaces, whitespace runs become
    one space, and the ends are trimmed. Raises InvalidArgument (argument ``as``) when nothing
    is left.
    """
    if not isinstance(name, str):
        raise InvalidArgument("The name to post as must be text.", argument="as")
    kept = "".join(" " if char in _LABEL_REMOVED else char for char in clean_line(name))
    label = " ".join(kept.split())[:MAX_LABEL_CHARS].rstrip()
    if not label:
        raise InvalidArgument(
            "The name to post as is empty once control characters, bidi marks and ( ) · are "
            "removed. Give a name with letters or digits, such as `reviewer` or `qa-1`.",
            argument="as",
        )
    return Label(label)


def clean_line(text: str) -> str:
    """``text`` on one line: control and bidi characters removed, whitespace runs collapsed."""
    kept = "".join(char for char in " ".join(text.split()) if not _is_hidden(char))
    return " ".join(kept.split())


def _is_hidden(char: str) -> bool:
    return char in BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Cs")


def mentions(body: str) -> frozenset[str]:
    """The lower-cased names a message mentions with ``@name`` (``all`` and ``everyone`` too).

    A name holds letters, digits, ``-``, ``_`` and ``.``; a trailing ``.`` is punctuation.
    E-mail addresses are not mentions, ``@name-suffix`` mentions ``name-suffix`` only, and
    ``@name`` inside inline code or a fenced code block is no mention.
    """
    found: set[str] = set()
    for match in _MENTION.finditer(_prose(body)):
        if match.string.startswith("@", match.end()):
            continue  # `@bob@example.com` is an address, not a mention of bob
        name = match.group(1).rstrip(".")
        if name:
            found.add(name.lower())
    return frozenset(found)


def mentions_reader(body: str, reader: str) -> bool:
    """Whether ``body`` mentions ``reader`` by name, ``@all`` or ``@everyone`` (any case)."""
    names = mentions(body)
    return bool(names & _BROADCAST) or reader.strip().lower() in names


def utc_stamp(when: datetime) -> str:
    """``when`` as a header time stamp, ``YYYY-MM-DDTHH:MM:SSZ`` in UTC (seconds truncated).

    Raises ValueError for a naive datetime, whose zone cannot be known.
    """
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("utc_stamp needs a timezone-aware datetime")
    moment = when.astimezone(UTC)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}Z"
    )


def _prose(body: str) -> str:
    """``body`` with fenced code lines dropped and inline code spans blanked out."""
    paragraphs: list[str] = []
    lines: list[str] = []
    fence: tuple[str, int] | None = None
    for line in _LINE_BREAK.split(body):
        opened = _FENCE.fullmatch(line)
        if fence is not None:
            if opened is not None and _closes(opened, fence):
                fence = None
            continue
        if opened is not None and not (opened[1][0] == "`" and "`" in opened[2]):
            fence = (opened[1][0], len(opened[1]))
        elif line.strip(" \t"):
            lines.append(line)
            continue
        paragraphs.append(_without_code_spans("\n".join(lines)))
        lines = []
    paragraphs.append(_without_code_spans("\n".join(lines)))
    return "\n\n".join(paragraphs)


def _closes(line: re.Match[str], fence: tuple[str, int]) -> bool:
    marks, rest = line[1], line[2]
    return marks[0] == fence[0] and len(marks) >= fence[1] and not rest.strip(" \t")


def _without_code_spans(text: str) -> str:
    """``text`` (one paragraph) with each code span replaced by spaces, as CommonMark pairs them:
    a run of n backticks opens a span closed by the next run of exactly n backticks."""
    if "`" not in text:
        return text
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    pieces: list[str] = []
    cursor = 0
    index = 0
    while index < len(runs):
        start, end = runs[index]
        if _escaped(text, start):
            start += 1  # `\`` is a literal backtick: the run opens with the rest
        same = by_length.get(end - start, [])
        position = bisect_right(same, index)
        if start == end or position == len(same):
            index += 1
            continue
        closer = same[position]
        pieces += [text[cursor:start], " " * (runs[closer][1] - start)]
        cursor = runs[closer][1]
        index = closer + 1
    pieces.append(text[cursor:])
    return "".join(pieces)


def _escaped(text: str, start: int) -> bool:
    count = 0
    while start - count > 0 and text[start - count - 1] == "\\":
        count += 1
    return count % 2 == 1
