"""Slash posts: `/status`, `/context` and `/role` messages that set state instead of being stored.

Owns recognising them in a post's body and reading their argument; what each one changes is
the chat service's. Pure text rules, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from quire.api.chats import ContextUse
from quire.core.chat import MAX_ROLE_CHARS, clean_line
from quire.core.errors import InvalidArgument

SlashKind = Literal["status", "context", "role"]

MAX_STATUS_CHARS = 200
"""The most characters a /status keeps."""

_SLASH = re.compile(r"/(status|context|role)(?:\s+(.*))?", re.DOTALL)
_PERCENT = re.compile(r"(\d{1,3}(?:\.\d+)?)\s*%")
_TOKENS = re.compile(r"(\d{1,9}(?:\.\d+)?)\s*([kKmM]?)\s*/\s*(\d{1,9}(?:\.\d+)?)\s*([kKmM]?)")
_SCALE = {"": 1, "k": 1_000, "m": 1_000_000}
_CONTEXT_FORMS = (
    "`/context` takes how much of your context window you have used: a percentage "
    "(`/context 42%`) or tokens used of the window (`/context 87k/200k`)"
)


@dataclass(frozen=True)
class SlashPost:
    """A post that sets state: its kind and its argument on one line ("" clears)."""

    kind: SlashKind
    text: str


def slash_post(body: str) -> SlashPost | None:
    """The slash post ``body`` is (``/status …``, ``/context …``, ``/role …``), or None when it
    is an ordinary message. ``/statusbar`` and ``/status`` mid-text are ordinary messages."""
    match = _SLASH.fullmatch(body.strip())
    if match is None:
        return None
    kind: SlashKind
    match match.group(1):
        case "status" | "context" | "role" as named:
            kind = named
        case _:
            return None
    text = clean_line(match.group(2) or "")
    if kind == "status":
        text = text[:MAX_STATUS_CHARS].rstrip()
    elif kind == "role":
        text = text[:MAX_ROLE_CHARS].rstrip()
    return SlashPost(kind, text)


def context_report(text: str) -> ContextUse | None:
    """The report a /context argument gives (None for an empty one, which clears it).

    Raises InvalidArgument naming the two forms for anything else, or for more than 100% or
    more tokens used than the window holds.
    """
    spaced = text.strip()
    if not spaced:
        return None
    percent = _PERCENT.fullmatch(spaced)
    if percent is not None:
        value = float(percent.group(1))
        if value > 100:
            raise _refused(spaced, "a context window cannot be more than 100% full")
        return ContextUse(text=f"{percent.group(1)}%", percent=_whole_percent(value))
    tokens = _TOKENS.fullmatch(spaced)
    if tokens is not None:
        used = float(tokens.group(1)) * _SCALE[tokens.group(2).lower()]
        size = float(tokens.group(3)) * _SCALE[tokens.group(4).lower()]
        if size <= 0:
            raise _refused(spaced, "the window size must be more than 0")
        if used > size:
            raise _refused(spaced, "more tokens are used than the window holds")
        shown = (
            f"{tokens.group(1)}{tokens.group(2).lower()}/{tokens.group(3)}{tokens.group(4).lower()}"
        )
        return ContextUse(text=shown, percent=_whole_percent(used / size * 100))
    raise _refused(spaced, None)


def _whole_percent(value: float) -> int:
    return min(100, int(value + 0.5))


def _refused(text: str, why: str | None) -> InvalidArgument:
    reason = f" ({why})" if why else ""
    return InvalidArgument(
        f"{_CONTEXT_FORMS}; got {text!r}{reason}. An empty `/context` clears your report.",
        argument="body",
    )
