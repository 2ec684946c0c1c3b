"""Task checkboxes: which lines of a document the page shows as a checkbox, and flipping one.

Owns reading tasks from the parser's list items and rewriting one box in the source. It does
not decide task syntax (the parser's GFM task lists do) and never changes other characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quire.core.errors import InvalidArgument
from quire.markdown.parser import BOM, parse_blocks

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from markdown_it.token import Token

_BOXES = frozenset({"[ ]", "[x]", "[X]"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What may come before an item's text on its first line: indentation, blockquote markers,
# footnote labels, list markers and the checkboxes of the items that open on the same line.
_LINE_LEAD = re.compile(
    r"[ \t>]+|\[\^[^\]\s]+\]:|[-*+](?=[ \t])|[0-9]{1,9}[.)](?=[ \t])|\[[ xX]\](?=[ \t])"
)


@dataclass(frozen=True)
class Task:
    """A checkbox the page shows: its 1-based line, its state and its item's text.

    ``text`` is the Markdown of the item's first paragraph (or heading) after the box, its
    lines joined by spaces; empty when the item holds nothing else on that line.
    """

    line: int
    checked: bool
    text: str


def extract_tasks(source: str) -> list[Task]:
    """Every task checkbox in ``source``, in document order.

    A task is a list item that starts with ``[ ]``, ``[x]`` or ``[X]`` and a space or tab
    (``- [ ] t``, ``1. [x] t``, ``> - [ ] t``), as the page shows it: not in code or front
    matter. ``- [x]`` with nothing after it on the line is text. Raises InvalidArgument when
    ``source`` is not a ``str``.
    """
    _require_text(source)
    tokens = parse_blocks(source)
    return [_task(tokens, index) for index in _task_indexes(tokens)]


def toggle_task(source: str, line: int, checked: bool) -> str:
    """``source`` with the checkbox of the task on ``line`` (1-based) set to ``checked``.

    Only the character inside the box changes (``x`` when checked, a space when not); a box
    already in that state is left as written. When two items open on one line (``- [ ] - [ ]
    t``), the outer one is set. Raises InvalidArgument when ``line`` holds no task.
    """
    _require_text(source)
    if isinstance(line, bool) or not isinstance(line, int):
        raise InvalidArgument(
            f"line must be a line number (1 for the first line), not {line!r}.", argument="line"
        )
    if not isinstance(checked, bool):
        raise InvalidArgument(
            f"checked must be true or false, not {checked!r}.", argument="checked"
        )
    tokens = parse_blocks(source)
    if line - 1 not in {_item_line(tokens[index]) for index in _task_indexes(tokens)}:
        raise InvalidArgument(
            f"Line {line} holds no task checkbox. Read the document's tasks for the lines "
            "that do, and pass one of those.",
            argument="line",
        )
    start, end = _line_span(source, line)
    box = _first_box(source, start, end)
    if box is None:  # the parser saw a task this scan cannot place: change nothing
        raise InvalidArgument(
            f"The checkbox on line {line} could not be located in the text; it was not changed.",
            argument="line",
        )
    mark = source[box + 1]
    if (mark != " ") == checked:
        return source
    return source[: box + 1] + ("x" if checked else " ") + source[box + 2 :]


def _require_text(source: object) -> None:
    if not isinstance(source, str):
        raise InvalidArgument(
            f"Tasks are read from text, not {type(source).__name__}: "
            "decode the document as UTF-8 and pass the string.",
            argument="source",
        )


def _task_indexes(tokens: Sequence[Token]) -> Iterator[int]:
    for index, token in enumerate(tokens):
        if token.type == "list_item_open" and token.meta and "checked" in token.meta:
            yield index


def _item_line(item: Token) -> int:
    """0-based line an item opens on (every block token the parser makes has a map)."""
    return item.map[0] if item.map is not None else -1


def _task(tokens: Sequence[Token], index: int) -> Task:
    item = tokens[index]
    line = _item_line(item)
    text = ""
    opener = tokens[index + 1] if index + 1 < len(tokens) else None
    if (
        opener is not None
        and opener.type in ("paragraph_open", "heading_open")
        and opener.map is not None
        and opener.map[0] == line
    ):
        text = " ".join(part.strip() for part in tokens[index + 2].content.split("\n"))
    return Task(line=line + 1, checked=bool(item.meta["checked"]), text=text.strip())


def _line_span(source: str, line: int) -> tuple[int, int]:
    """Start and end offsets of 1-based ``line`` in ``source`` (a leading BOM not in line 1)."""
    start = 1 if source.startswith(BOM) else 0
    if line > 1:
        for count, match in enumerate(_LINE_BREAK.finditer(source), start=2):
            if count == line:
                start = match.end()
                break
    end_match = _LINE_BREAK.search(source, start)
    return start, len(source) if end_match is None else end_match.start()


def _first_box(source: str, start: int, end: int) -> int | None:
    """Offset of the first checkbox among the markers that lead the line, if any."""
    position = start
    while (lead := _LINE_LEAD.match(source, position, end)) is not None:
        if lead.group() in _BOXES:
            return lead.start()
        position = lead.end()
    return None
