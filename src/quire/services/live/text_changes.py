"""Turning one text into another inside a live Y Text as the smallest set of inserts and deletes.

Owns the diff (common ends, then line blocks, then characters) and the translation of Python
string offsets into the UTF-8 offsets pycrdt counts in. It never reads files or the database.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from pycrdt import Text

from quire.core.errors import InvalidArgument
from quire.markdown.blocks import common_prefix, common_suffix

_CHARACTER_DIFF_LIMIT = 250_000
"""Changed line blocks up to this size (old length times new length) are diffed by character."""


@dataclass(frozen=True)
class TextChange:
    """Replace ``old[start:end]`` with ``insert``; offsets are Python string indices in ``old``."""

    start: int
    end: int
    insert: str


def text_changes(old: str, new: str) -> list[TextChange]:
    """The changes that turn ``old`` into ``new``, in ascending order and never overlapping.

    Common leading and trailing text is never touched; the rest is matched line by line, and
    each changed block is matched character by character (a large one is only trimmed to the
    characters that differ at its ends), so text the two share keeps its identity and a
    remote cursor in it stays where it was.
    """
    prefix = common_prefix(old, new)
    suffix = common_suffix(old, new, prefix)
    old_mid = old[prefix : len(old) - suffix]
    new_mid = new[prefix : len(new) - suffix]
    if not old_mid and not new_mid:
        return []
    if not old_mid or not new_mid or ("\n" not in old_mid and "\n" not in new_mid):
        return [TextChange(prefix, prefix + len(old_mid), new_mid)]
    old_lines = old_mid.splitlines(keepends=True)
    new_lines = new_mid.splitlines(keepends=True)
    old_starts = _line_starts(old_lines, prefix)
    new_starts = _line_starts(new_lines, 0)
    changes: list[TextChange] = []
    matcher = SequenceMatcher(None, old_lines, new_lines)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = old_starts[i1], old_starts[i2]
        block = new_mid[new_starts[j1] : new_starts[j2]]
        if tag == "replace" and (end - start) * len(block) <= _CHARACTER_DIFF_LIMIT:
            changes.extend(_character_changes(old, start, end, block))
        else:
            changes.extend(_trimmed(old, start, end, block))
    return changes


def changed_text(old: str, changes: Sequence[TextChange]) -> str:
    """``old`` with ``changes`` (in order, not overlapping) made."""
    parts: list[str] = []
    at = 0
    for change in changes:
        parts.append(old[at : change.start])
        parts.append(change.insert)
        at = change.end
    parts.append(old[at:])
    return "".join(parts)


def replacement_changes(old: str, start: int, end: int, insert: str) -> list[TextChange]:
    """The one change replacing ``old[start:end]`` with ``insert``, trimmed to what differs."""
    return list(_trimmed(old, start, end, insert))


def apply_changes(text: Text, old: str, changes: Sequence[TextChange], *, origin: Hashable) -> None:
    """Apply ``changes`` (computed against ``old``, which must be ``text``'s content) to ``text``.

    All of them land in one transaction tagged with ``origin``, so observers see one update.
    Raises InvalidArgument, before changing anything, when an inserted text holds an unpaired
    surrogate, which UTF-8 (and so the live document) cannot carry.
    """
    if not changes:
        return
    located: list[tuple[int, int, str]] = []
    offset = 0
    position = 0
    for change in changes:
        offset += _utf8_length(old[position : change.start])
        removed = _utf8_length(old[change.start : change.end])
        _check_encodable(change.insert)
        located.append((offset, removed, change.insert))
        offset += removed
        position = change.end
    with text.doc.transaction(origin=origin):
        # Back to front, so the byte offsets computed against ``old`` stay valid.
        for byte_start, removed, insert in reversed(located):
            if removed:
                del text[byte_start : byte_start + removed]
            if insert:
                text.insert(byte_start, insert)


def set_text(text: Text, new: str, *, origin: Hashable) -> list[TextChange]:
    """Make ``text`` hold exactly ``new`` with the smallest change; returns what was changed."""
    old = str(text)
    changes = text_changes(old, new)
    apply_changes(text, old, changes, origin=origin)
    return changes


def utf16_length(value: str) -> int:
    """How many UTF-16 code units ``value`` takes: the offsets a browser's editor counts in."""
    return len(value) + sum(1 for char in value if ord(char) > 0xFFFF)


def _character_changes(old: str, start: int, end: int, block: str) -> list[TextChange]:
    """The changes inside one small block of changed lines, character by character."""
    matcher = SequenceMatcher(None, old[start:end], block, autojunk=False)
    return [
        TextChange(start + i1, start + i2, block[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _trimmed(old: str, start: int, end: int, insert: str) -> list[TextChange]:
    removed = old[start:end]
    head = common_prefix(removed, insert)
    tail = common_suffix(removed, insert, head)
    if head == len(removed) and head == len(insert):
        return []
    return [TextChange(start + head, end - tail, insert[head : len(insert) - tail])]


def _line_starts(lines: list[str], base: int) -> list[int]:
    starts = [base]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _utf8_length(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def _check_encodable(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(
            f"The new text has an unpaired surrogate at character {exc.start + 1}, which a "
            "document cannot hold (it is not valid UTF-8). Remove it and try again."
        ) from None
