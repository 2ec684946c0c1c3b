"""A bounded, case-insensitive word search over Markdown files on disk (until the index lands).

Walks a folder with the one walker (``quire.fs.walk``: its rules and limits), searches at most
5,000 of its Markdown documents and reads each file through ``quire.fs``; files it cannot
read are reported, never skipped in silence. Blocking: call it off the loop.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from quire.core.errors import FileTooLarge, NotUtf8, PathRefused, QuireError
from quire.fs.documents import read_document
from quire.fs.folders import AllowedFolders
from quire.fs.sandbox import is_document_name
from quire.fs.walk import Unreadable, walk_tree
from quire.markdown.titles import document_title

MAX_FILES = 5000
"""The most files one search reads."""

MAX_TOTAL_BYTES = 512 * 1024 * 1024
"""The most text one search reads across all files."""
_LINES_SHOWN = 3
_LINE_CHARS = 200
_LEAD_CHARS = 60
_UNREAD_NAMED = 3
_BAD_BYTE = re.compile(r"byte \d+ \(0x[0-9A-F]{2}\) on line \d+")


@dataclass(frozen=True)
class MatchLine:
    """A line that holds the query: its 1-based number and its text (cut at 200 chars)."""

    line: int
    text: str


@dataclass(frozen=True)
class Hit:
    """A file that holds the query: how many lines match, and the first few of them."""

    path: str
    title: str
    matches: int
    lines: list[MatchLine]


@dataclass(frozen=True)
class Unread:
    """A file that was not searched, and why."""

    path: str
    reason: str


@dataclass
class Walk:
    """The documents to search under a folder (real paths, each once, by relative path), and
    what the walk left out: ``file_cap`` past ``MAX_FILES``, ``depth_cut`` and ``budget_cut``
    by the walker's limits (``max_depth`` levels, ``max_entries`` entries), folders it could
    not read."""

    files: list[Path] = field(default_factory=list)
    depth_cut: bool = False
    file_cap: bool = False
    budget_cut: bool = False
    max_depth: int = 0
    max_entries: int = 0
    unreadable: list[Unreadable] = field(default_factory=list)


@dataclass(frozen=True)
class GrepResult:
    """Every hit (best first), what could not be read, and what was left out and why."""

    hits: list[Hit]
    searched: int
    unread: list[Unread]
    bytes_cut: bool


def walk_folder(root: Path) -> Walk:
    """The Markdown documents under ``root`` to search, by the one walker's rules.

    A file link inside ``root`` is searched by the real file it names, once however many
    links name it; only the first ``MAX_FILES`` documents (by relative path) are kept.
    """
    found = walk_tree(root, keep=is_document_name)
    files = list(dict.fromkeys(item.target for item in found.files))
    return Walk(
        files=files[:MAX_FILES],
        depth_cut=found.depth_cut,
        file_cap=len(files) > MAX_FILES,
        budget_cut=found.budget_cut,
        max_depth=found.max_depth,
        max_entries=found.max_entries,
        unreadable=found.unreadable,
    )


def grep_files(
    paths: Iterable[Path],
    query: str,
    *,
    allowed: AllowedFolders,
    max_total_bytes: int = MAX_TOTAL_BYTES,
    around_match: bool = False,
) -> GrepResult:
    """Search ``paths`` for ``query``, ignoring case; best hits (most matching lines) first.

    A matching line longer than 200 characters is shown by its first 200, or, with
    ``around_match``, by the 200 around its first match (``…`` marks what was cut).
    """
    needle = query.casefold()
    hits: list[Hit] = []
    unread: list[Unread] = []
    searched = 0
    total = 0
    for path in paths:
        try:
            _found, source = read_document(allowed, path)
        except QuireError as exc:
            unread.append(Unread(str(path), unread_reason(exc)))
            continue
        total += len(source)
        if total > max_total_bytes:
            return GrepResult(_ranked(hits), searched, unread, bytes_cut=True)
        searched += 1
        hit = _search(path, source, needle, around_match=around_match)
        if hit is not None:
            hits.append(hit)
    return GrepResult(_ranked(hits), searched, unread, bytes_cut=False)


def unread_note(unread: list[Unread]) -> str | None:
    """The sentence that names the files not searched (the first three), or None."""
    if not unread:
        return None
    count = len(unread)
    named = "; ".join(f"{item.path} ({item.reason})" for item in unread[:_UNREAD_NAMED])
    more = count - _UNREAD_NAMED
    tail = f", and {more} more" if more > 0 else ""
    files = "1 file was" if count == 1 else f"{count} files were"
    return (
        f"{files} not searched because {'it' if count == 1 else 'they'} could not be read: "
        f"{named}{tail}. Convert a file that is not UTF-8 to UTF-8 to make it searchable."
    )


def _search(path: Path, source: str, needle: str, *, around_match: bool) -> Hit | None:
    count = 0
    shown: list[MatchLine] = []
    for number, line in enumerate(source.splitlines(), start=1):
        if needle in line.casefold():
            count += 1
            if len(shown) < _LINES_SHOWN:
                text = line.strip()
                cut = _around(text, needle) if around_match else text[:_LINE_CHARS]
                shown.append(MatchLine(number, cut))
    if count == 0:
        return None
    return Hit(str(path), document_title(source, path.name), count, shown)


def _around(text: str, needle: str) -> str:
    """At most 200 characters of ``text`` holding its first match of ``needle`` (casefolded)."""
    if len(text) <= _LINE_CHARS:
        return text
    folded = text.casefold()
    found = max(folded.find(needle), 0)
    at = found if len(folded) == len(text) else _unfolded_offset(text, found)
    start = min(max(0, at - _LEAD_CHARS), len(text) - _LINE_CHARS)
    end = start + _LINE_CHARS
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def _unfolded_offset(text: str, folded_offset: int) -> int:
    """The index in ``text`` of the character whose casefolding holds ``folded_offset``
    (casefolding can lengthen a character: ß becomes ss)."""
    length = 0
    for index, char in enumerate(text):
        length += len(char.casefold())
        if length > folded_offset:
            return index
    return len(text) - 1


def _ranked(hits: list[Hit]) -> list[Hit]:
    return sorted(hits, key=lambda hit: (-hit.matches, hit.path))


def unread_reason(error: QuireError) -> str:
    """Why a file could not be searched, in a few words (the first byte that is not UTF-8)."""
    if isinstance(error, NotUtf8):
        where = _BAD_BYTE.search(str(error))
        return f"not UTF-8 text ({where.group(0)})" if where else "UTF-16 text, not UTF-8"
    if isinstance(error, FileTooLarge):
        return "larger than 16 MiB"
    if isinstance(error, PathRefused):
        if "not inside an allowed folder" in str(error):
            return "outside the allowed folders"
        if "hidden folder" in str(error):
            return "inside a hidden folder"
        return "not a regular Markdown document"
    return str(error).split(". ", 1)[0]
