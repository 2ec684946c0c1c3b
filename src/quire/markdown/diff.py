"""Unified diffs of two texts, line by line, in the format ``diff -u`` and ``git diff`` print.

Owns line splitting, the line alignment and the hunk text; it does not read files or decide
labels (callers pass them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from quire.core.errors import InvalidArgument
from quire.markdown.alignment import Block, align

MAX_CONTEXT_LINES = 10000
"""The most context lines a caller may ask for around each change."""

NO_NEWLINE_MARKER = "\\ No newline at end of file\n"

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Diff:
    """A unified diff and its counts; identical inputs give an empty ``diff`` and zeros."""

    diff: str
    hunks: int
    added: int
    removed: int


_EMPTY = Diff(diff="", hunks=0, added=0, removed=0)


def unified_diff(a: str, b: str, *, label_a: str, label_b: str, context_lines: int = 3) -> Diff:
    """Diff ``a`` against ``b`` with ``context_lines`` lines of context around each change.

    Lines are compared with their line endings, so CRLF and LF lines differ and a ``\\r`` stays
    in the output; a last line without a line break is followed by the
    ``\\ No newline at end of file`` marker. ``context_lines`` is a whole number from 0 to
    10000; anything else raises InvalidArgument. The alignment is a shortest one (the counts
    ``diff`` gives), except on large, heavily changed stretches where a faster one may count
    more lines; where several shortest alignments exist, the one chosen may differ from
    another tool's.
    """
    _check_context(context_lines)
    for value, name in ((a, "a"), (b, "b"), (label_a, "label_a"), (label_b, "label_b")):
        _check_text(value, name)
    if a == b:
        return _EMPTY
    a_lines = split_lines(a)
    b_lines = split_lines(b)
    blocks = align(a_lines, b_lines)
    return _render(a_lines, b_lines, blocks, (label_a, label_b), context_lines, 0)


def change_diff(
    head: str, old: str, new: str, tail: str, *, first_line: int, label: str, context_lines: int
) -> Diff:
    """Diff ``head + old + tail`` against ``head + new + tail``, looking for changes only
    between ``old`` and ``new``.

    ``head`` and ``tail`` are whole lines cut from around a change in a larger document: the
    context the hunks show. ``first_line`` is the 1-based document line ``head`` starts on, so
    the hunk headers carry the document's line numbers.
    """
    _check_context(context_lines)
    if old == new:
        return _EMPTY
    head_lines = split_lines(head)
    tail_lines = split_lines(tail)
    old_lines = split_lines(old)
    new_lines = split_lines(new)
    shift = len(head_lines)
    blocks = [
        Block(x.a1 + shift, x.a2 + shift, x.b1 + shift, x.b2 + shift)
        for x in align(old_lines, new_lines)
    ]
    return _render(
        head_lines + old_lines + tail_lines,
        head_lines + new_lines + tail_lines,
        blocks,
        (label, label),
        context_lines,
        first_line - 1,
    )


def split_lines(text: str) -> list[str]:
    """Split ``text`` after each ``\\n``, keeping the endings (a lone ``\\r`` does not split)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _check_context(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CONTEXT_LINES:
        raise InvalidArgument(
            f"`context_lines` must be a whole number from 0 to {MAX_CONTEXT_LINES}, got {value!r}.",
            argument="context_lines",
        )


def _check_text(value: object, name: str) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"`{name}` must be text (a string), got {type(value).__name__}.", argument=name
        )


def _render(
    a: list[str],
    b: list[str],
    blocks: list[Block],
    labels: tuple[str, str],
    context: int,
    line_offset: int,
) -> Diff:
    out = [f"--- {_quote_label(labels[0])}\n", f"+++ {_quote_label(labels[1])}\n"]
    groups = _group(blocks, context)
    for group in groups:
        _write_hunk(out, group, a, b, context, line_offset)
    return Diff(
        diff="".join(out),
        hunks=len(groups),
        added=sum(block.b2 - block.b1 for block in blocks),
        removed=sum(block.a2 - block.a1 for block in blocks),
    )


def _group(blocks: list[Block], context: int) -> list[list[Block]]:
    """Blocks closer than twice the context share a hunk, as diff -u joins them."""
    groups: list[list[Block]] = []
    for block in blocks:
        if groups and block.a1 - groups[-1][-1].a2 <= 2 * context:
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def _write_hunk(
    out: list[str],
    group: list[Block],
    a: list[str],
    b: list[str],
    context: int,
    line_offset: int,
) -> None:
    first, last = group[0], group[-1]
    a_start = max(0, first.a1 - context)
    a_end = min(len(a), last.a2 + context)
    b_start = first.b1 - (first.a1 - a_start)
    b_end = last.b2 + (a_end - last.a2)
    old = _range(a_start + line_offset, a_end - a_start)
    new = _range(b_start + line_offset, b_end - b_start)
    out.append(f"@@ -{old} +{new} @@\n")
    position = a_start
    for block in group:
        _write_lines(out, " ", a[position : block.a1])
        _write_lines(out, "-", a[block.a1 : block.a2])
        _write_lines(out, "+", b[block.b1 : block.b2])
        position = block.a2
    _write_lines(out, " ", a[position:a_end])


def _range(start: int, length: int) -> str:
    """A hunk range as diff -u writes it: ``5`` for one line, ``4,0`` after line 4 for none."""
    if length == 1:
        return str(start + 1)
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def _write_lines(out: list[str], prefix: str, lines: list[str]) -> None:
    for line in lines:
        out.append(prefix + line)
        if not line.endswith("\n"):
            out.append("\n" + NO_NEWLINE_MARKER)


def _quote_label(label: str) -> str:
    """A label with a control character (a tab or line break would break the header) is quoted
    and escaped the way git quotes such paths; any other label is written as given."""
    if not _CONTROL.search(label):
        return label
    escapes = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    body = "".join(
        escapes.get(ch, f"\\{ord(ch):03o}" if _CONTROL.match(ch) else ch) for ch in label
    )
    return f'"{body}"'
