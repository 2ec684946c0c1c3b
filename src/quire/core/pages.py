"""Pages of a long result: a text cut at a line boundary, or a list cut at an item boundary,
so a tool answers at most a budget of characters and says where to read on.

Pure rules (no I/O); the MCP layer turns a page into its ``more`` object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from quire.core.errors import InvalidArgument

BUDGET_CHARS: Final = 80_000
"""The most a page holds, in characters: about 20,000 tokens at four characters a token."""

MAX_LINES: Final = 100_000_000
"""The largest offset or limit a caller may ask for, in lines."""


@dataclass(frozen=True)
class Page:
    """Lines ``first`` to ``first + count - 1`` (1-based) of a text of ``total`` lines.

    ``cut_line`` is set when a single line was longer than the budget: only its first
    characters are in ``text``, and the next page starts on the line after it.
    """

    text: str
    first: int
    count: int
    total: int
    cut_line: int | None = None

    @property
    def next_offset(self) -> int:
        """The line the next page starts on."""
        return self.first + self.count

    @property
    def remaining(self) -> int:
        """How many lines follow this page."""
        return self.total - (self.first - 1) - self.count

    @property
    def is_whole(self) -> bool:
        """Whether the page is the whole text, nothing left out on either side."""
        return self.first == 1 and self.remaining == 0 and self.cut_line is None


def line_count(text: str) -> int:
    """How many lines ``text`` has: LF ends a line; a last line without one still counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def page_of(
    text: str, offset: int = 1, limit: int | None = None, budget: int = BUDGET_CHARS
) -> Page:
    """The lines of ``text`` from line ``offset`` (1-based), at most ``limit`` of them and at
    most ``budget`` characters, cut after a line break. An offset past the end is refused."""
    total = line_count(text)
    if offset < 1 or offset > max(total, 1):
        raise InvalidArgument(
            f"offset {offset} is past the end: the text has {total} lines, so offset runs "
            f"from 1 to {max(total, 1)}.",
            argument="offset",
        )
    start = _line_start(text, offset)
    most = limit if limit is not None else total
    end, count = start, 0
    while count < most and end < len(text):
        newline = text.find("\n", end)
        line_end = len(text) if newline < 0 else newline + 1
        if line_end - start > budget:
            if count == 0:
                return Page(text[start : start + budget], offset, 1, total, cut_line=offset)
            break
        end, count = line_end, count + 1
    return Page(text[start:end], offset, count, total)


def _line_start(text: str, line: int) -> int:
    position = 0
    for _ in range(line - 1):
        position = text.index("\n", position) + 1
    return position


def items_within(sizes: Sequence[int], budget: int = BUDGET_CHARS) -> int:
    """How many of the leading items (of these sizes, in characters) fit in ``budget``;
    always at least one when there is any, so a reader moves on."""
    used = 0
    for index, size in enumerate(sizes):
        used += size
        if used > budget:
            return max(index, 1)
    return len(sizes)
