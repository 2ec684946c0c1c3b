"""Bounded results: the ``offset``/``limit`` arguments, the ``more`` object and its schema,
shared by every tool and resource whose result grows with a document or a chat.

The cut itself is ``quire.core.pages``'; the ``more`` model lives here (only MCP results
carry it).
"""

from __future__ import annotations

from typing import Any

from quire.api.base import Answer, omitted_when_none
from quire.core.pages import BUDGET_CHARS, MAX_LINES, Page, items_within, page_of
from quire.mcp import schemas as s

OFFSET = s.integer("The line to start at, from 1 (see more).", 1, MAX_LINES, 1)
LIMIT = s.integer("The most lines to return.", 1, MAX_LINES)
PAGE_ARGUMENTS: dict[str, Any] = {"offset": OFFSET, "limit": LIMIT}
"""The input schema properties of a tool that reads a text in pages."""


class NextCall(Answer):
    """A call to make as written: a tool's name and its arguments, or ``resources/read``
    with the ``uri`` to read."""

    name: str
    arguments: dict[str, Any]


class More(Answer):
    """What a cut result left out: ``remaining`` lines (or messages, or candidates: the
    tool says which) from ``next_offset`` on, and ``call``, which reads them (left out when
    nothing follows).
    ``cut_line`` names a line longer than a whole page, of which only the start was shown."""

    next_offset: int
    remaining: int
    call: NextCall | None = omitted_when_none()
    cut_line: int | None = omitted_when_none()


MORE: dict[str, Any] = {
    "type": "object",
    "description": "Present when the result was cut: nextOffset, remaining, call (the next "
    "call: name, arguments) and cutLine.",
}
"""The output schema of ``more`` (kept short: it appears in several tools' schemas)."""

PAGED = " Over ~20,000 tokens it is cut at a line; more reads on."
"""What a paged tool's description adds."""

PAGED_MESSAGES = " Over ~20,000 tokens, more reads the rest."
"""What a chat tool's description adds."""


def kept(args: dict[str, Any], *names: str) -> dict[str, Any]:
    """The arguments ``names`` that the call gave: what the call that reads on repeats."""
    return {name: args[name] for name in names if name in args}


def text_page(text: str, args: dict[str, Any], budget: int = BUDGET_CHARS) -> Page:
    """The page of ``text`` the ``offset`` and ``limit`` arguments ask for."""
    limit = args.get("limit")
    return page_of(text, int(args.get("offset", 1)), None if limit is None else int(limit), budget)


def more_lines(
    page: Page, name: str, arguments: dict[str, Any], key: str = "offset"
) -> dict[str, Any] | None:
    """The ``more`` of a page (None when nothing follows it): call ``name`` with
    ``arguments`` and the next offset as ``key`` (a ``limit`` given is kept)."""
    if page.remaining == 0 and page.cut_line is None:
        return None
    call = None
    if page.remaining:
        call = NextCall(name=name, arguments={**arguments, key: page.next_offset})
    return More(
        next_offset=page.next_offset,
        remaining=page.remaining,
        call=call,
        cut_line=page.cut_line,
    ).dump()


def paged(
    result: dict[str, Any], field: str, page: Page, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """``result`` with ``field`` holding the page's text and ``more`` when text follows."""
    result[field] = page.text
    more = more_lines(page, name, arguments)
    if more is not None:
        result["more"] = more
    return result


def message_count(bodies: list[int], budget: int = BUDGET_CHARS) -> int:
    """How many leading messages (of these sizes in characters) one result holds."""
    return items_within(bodies, budget)


def more_candidates(
    next_index: int, remaining: int, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """The ``more`` of a cut list of candidates: list on from candidate ``next_index``."""
    return More(
        next_offset=next_index,
        remaining=remaining,
        call=NextCall(name=name, arguments={**arguments, "offset": next_index}),
    ).dump()


def more_messages(
    last: int, remaining: int, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """The ``more`` of a cut list of messages: read on after message ``last``."""
    return More(
        next_offset=last,
        remaining=remaining,
        call=NextCall(name=name, arguments={**arguments, "after": last}),
    ).dump()
