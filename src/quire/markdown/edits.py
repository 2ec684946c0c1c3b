"""Find/replace on a document's text: exact matching, unique and indexed replacement, previews.

Owns the text rules of an edit (what matches, which line breaks a replacement takes, what a
preview shows). It does not know where the text lives: callers read and write documents.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import islice

from quire.core.errors import EditRefused, FileTooLarge, InvalidArgument
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.markdown.diff import change_diff
from quire.markdown.matching import Occurrences

BOM = "\ufeff"
MAX_MATCH_INDEX = 4294967295
"""The largest ``match_index`` accepted (a 32-bit count, as the edit tools declare it)."""
MAX_PREVIEW_LINES = 20
"""The most context lines a preview shows around a change."""


@dataclass(frozen=True)
class Replacement:
    """An applied replacement: the new ``text``, where the replaced span now sits
    (``start``..``end`` in ``text``) and the 1-based ``line`` where the match started."""

    text: str
    start: int
    end: int
    line: int


@dataclass(frozen=True)
class Candidate:
    """One occurrence of a previewed edit: its 0-based index, the line it starts on, the diff
    of replacing it alone, and its ``rank`` (1 is the one to prefer). Field names are the
    JSON keys agents read, hence camelCase."""

    matchIndex: int
    startLine: int
    diff: str
    rank: int


@dataclass(frozen=True)
class EditPreview:
    """What a find/replace would change: the diff of the first occurrence, every candidate when
    there is more than one (None for exactly one), and how many occurrences there are."""

    diff: str
    candidates: list[Candidate] | None
    matchCount: int


def find_spans(document: str, find: str) -> list[tuple[int, int]]:
    """Every non-overlapping occurrence of ``find`` in ``document`` as (start, end) offsets.

    Matching is exact except for line breaks: a ``\\n`` or ``\\r\\n`` in ``find`` matches either
    in the document. A CRLF in the document is always one line break: a CR in ``find`` that is
    not part of a line break never matches its CR, so a match never starts or ends inside a
    CRLF and a replacement cannot leave half a line break behind. An empty ``find`` raises
    InvalidArgument.
    """
    return list(Occurrences(document, find).spans())


def replace_unique(document: str, find: str, replace: str) -> Replacement:
    """Replace the one occurrence of ``find`` with ``replace``.

    Raises EditRefused (with ``match_count``) when ``find`` is not found or matches more than
    once. ``replace`` takes the line breaks of the line the match starts on (see
    ``line_break_at``); a byte order mark and all text around the match are kept as they are.
    """
    _check_text(replace, "replace")
    occurrences = Occurrences(document, find)
    found = list(islice(occurrences.spans(), 2))
    if not found:
        raise _not_found()
    if len(found) > 1:
        count = occurrences.count()
        raise EditRefused(
            f"`find` is not unique ({count} matches): include more surrounding context, "
            "copied exactly from the document, so that it matches only the text to change.",
            match_count=count,
        )
    start, end = found[0]
    return _apply(document, start, end, replace)


def replace_occurrence(document: str, find: str, replace: str, match_index: int) -> Replacement:
    """Replace occurrence number ``match_index`` (0-based, in document order) of ``find``.

    Raises InvalidArgument for a ``match_index`` that is not a whole number from 0 to
    4294967295, and EditRefused (with ``match_count``) when ``find`` is not found or the
    document has no occurrence with that index.
    """
    _check_text(replace, "replace")
    _check_whole(match_index, "match_index", MAX_MATCH_INDEX)
    occurrences = Occurrences(document, find)
    count = occurrences.count()
    if count == 0:
        raise _not_found()
    if count <= match_index:
        raise EditRefused(
            f"`match_index` {match_index} is out of range: the document has {count} "
            f"occurrence(s) of `find`. Use a match_index from 0 to {count - 1}, or call "
            "stream_edit again to see the candidates.",
            match_count=count,
        )
    start, end = next(islice(occurrences.spans(), match_index, None))
    return _apply(document, start, end, replace)


def preview_edit(
    document: str, find: str, replace: str, *, preview_lines: int = 5, label: str = "document"
) -> EditPreview:
    """Preview replacing ``find`` with ``replace`` as unified diffs, without changing anything.

    ``diff`` shows the first occurrence with ``preview_lines`` lines of context (0 to 20).
    With more than one occurrence, ``candidates`` holds one entry per occurrence in document
    order, ranked in that order: nothing in the text says one is meant more than another, and
    the first is the one applied when no ``match_index`` is given. Each diff covers only the
    lines around its occurrence, so a large document with many occurrences stays cheap; both
    header lines carry ``label``. Raises EditRefused when ``find`` is not found.
    """
    _check_text(replace, "replace")
    _check_text(label, "label")
    _check_whole(preview_lines, "preview_lines", MAX_PREVIEW_LINES)
    spans = find_spans(document, find)
    if not spans:
        raise _not_found()
    candidates: list[Candidate] = []
    line = 1
    previous = 0
    for index, (start, end) in enumerate(spans):
        line += document.count("\n", previous, start)
        previous = start
        diff = _window(document, start, end, replace, line, preview_lines, label)
        candidates.append(Candidate(matchIndex=index, startLine=line, diff=diff, rank=index + 1))
    return EditPreview(
        diff=candidates[0].diff,
        candidates=candidates if len(candidates) > 1 else None,
        matchCount=len(candidates),
    )


def line_break_at(document: str, offset: int) -> str | None:
    """The line break ``replace`` takes for a match starting at ``offset``.

    It is the break that ends the line ``offset`` is on. The last line has none, so it takes
    the document's dominant break (the more common of CRLF and LF; on a tie, the break just
    before it). A document without any line break gives None: ``replace`` is kept as written.
    """
    end_of_line = document.find("\n", offset)
    if end_of_line != -1:
        return "\r\n" if end_of_line > 0 and document[end_of_line - 1] == "\r" else "\n"
    crlf = document.count("\r\n")
    lf = document.count("\n") - crlf
    if crlf == lf == 0:
        return None
    if crlf != lf:
        return "\r\n" if crlf > lf else "\n"
    last = document.rfind("\n")
    return "\r\n" if last > 0 and document[last - 1] == "\r" else "\n"


def apply_content(current: str, new: str) -> str:
    """The text a whole-content replacement writes, given the document's ``current`` text.

    In a CRLF document (one with ``\\r\\n`` and no lone ``\\n``), a ``new`` with no ``\\r`` takes
    CRLF line breaks; a document that starts with a byte order mark keeps it when ``new`` does
    not start with one. Anything else is written as given.
    """
    _check_text(current, "current")
    _check_text(new, "new")
    crlf = current.count("\r\n")
    if crlf and crlf == current.count("\n") and "\r" not in new:
        new = new.replace("\n", "\r\n")
    if current.startswith(BOM) and not new.startswith(BOM):
        new = BOM + new
    return new


def check_request_size(*parts: str, limit: int = MAX_DOCUMENT_BYTES) -> None:
    """Refuse a request whose text parts would be larger than ``limit`` bytes once sent.

    Each part is measured as a JSON string in UTF-8 (quotes and escapes included, non-ASCII
    text unescaped, a lone surrogate as its 6-character escape), the way a compact JSON body
    carries it. Raises FileTooLarge saying how to send less.
    """
    total = 0
    for index, part in enumerate(parts):
        _check_text(part, f"part {index + 1}")
        encoded = json.dumps(part, ensure_ascii=False)
        total += len(encoded.encode("utf-8", errors="backslashreplace"))
    if total > limit:
        raise FileTooLarge(
            f"This request is too large to send: its text takes {total:,} bytes once encoded, "
            f"and one request may carry at most {limit:,} bytes ({_size(limit)}). Change only "
            "part of the document with edit_document instead of sending all of it, split a "
            "large edit into smaller ones, or pass a review's text as a file path instead of "
            "inline content."
        )


def _apply(document: str, start: int, end: int, replace: str) -> Replacement:
    text = _with_line_breaks(replace, line_break_at(document, start))
    return Replacement(
        text=document[:start] + text + document[end:],
        start=start,
        end=start + len(text),
        line=document.count("\n", 0, start) + 1,
    )


def _with_line_breaks(replace: str, line_break: str | None) -> str:
    if line_break == "\r\n":
        return replace.replace("\r\n", "\n").replace("\n", "\r\n")
    if line_break == "\n":
        return replace.replace("\r\n", "\n")
    return replace


def _window(
    document: str, start: int, end: int, replace: str, line: int, context: int, label: str
) -> str:
    """The diff of replacing document[start:end], built from the lines around it only."""
    core_start = document.rfind("\n", 0, start) + 1
    head_start = core_start
    for _ in range(context):
        if head_start == 0:
            break
        head_start = document.rfind("\n", 0, head_start - 1) + 1
    # The line holding the first character after the match changes too when the replacement
    # joins it to the match's last line, so the changed lines run to the end of that line.
    core_end = _next_line(document, end)
    tail_end = core_end
    for _ in range(context):
        tail_end = _next_line(document, tail_end)
    text = _with_line_breaks(replace, line_break_at(document, start))
    return change_diff(
        document[head_start:core_start],
        document[core_start:core_end],
        document[core_start:start] + text + document[end:core_end],
        document[core_end:tail_end],
        first_line=line - document.count("\n", head_start, core_start),
        label=label,
        context_lines=context,
    ).diff


def _next_line(document: str, offset: int) -> int:
    """The offset just past the line break that ends the line at ``offset`` (or the end)."""
    line_break = document.find("\n", offset)
    return len(document) if line_break == -1 else line_break + 1


def _not_found() -> EditRefused:
    return EditRefused(
        "`find` was not found in the document. It must match the text exactly, whitespace "
        "included (a line break matches LF or CRLF). Copy the text to change from the current "
        "content (get_current_content) and try again.",
        match_count=0,
    )


def _check_text(value: object, name: str) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"`{name}` must be text (a string), got {type(value).__name__}.", argument=name
        )


def _check_whole(value: object, name: str, maximum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise InvalidArgument(
            f"`{name}` must be a whole number from 0 to {maximum}, got {value!r}.",
            argument=name,
        )


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):g} MiB"
