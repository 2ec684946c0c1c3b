"""Reading JSON text a caller sent, under limits: nesting depth and number size.

The stdlib parser recurses once per nested array or object (5,000 levels is a RecursionError)
and turns a 5,000-digit integer into a ValueError or a huge int that breaks later; here the
depth is scanned before parsing and every number is checked as it is parsed, so an over-limit
text is a refusal that names the limit. Pure: no I/O; the HTTP body reader and the MCP stdio
reader both call it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Final

from quire.core.errors import InvalidArgument

MAX_JSON_DEPTH: Final = 64
"""The deepest nesting of arrays and objects a request may have."""

MAX_INTEGER: Final = 2**63 - 1
"""Integers must fit in 64 bits (a signed 64-bit integer, as databases store them)."""

MAX_NUMBER_CHARS: Final = 40
"""The most characters one number may be written with (``-1.2345e-300`` is 12)."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (brackets inside strings do not count).

    Scans with the strings cut out first, all in C and without recursion.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(0, max(accumulate(map(_STEP.__getitem__, brackets)), default=0))


def _too_deep(text: str) -> int | None:
    # Counting brackets answers for most texts at once: fewer brackets than the limit
    # cannot nest deeper than it.
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return None
    depth = nesting_depth(text)
    return depth if depth > MAX_JSON_DEPTH else None


def loads(
    text: str,
    *,
    what: str,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """``text`` parsed as JSON; ``what`` names it in refusals ("The request body").
    ``object_pairs_hook`` builds each object from its key/value pairs (to refuse duplicates).

    Raises InvalidArgument naming the limit (depth, number size), and json.JSONDecodeError
    for text that is not JSON (callers word that one themselves).
    """
    depth = _too_deep(text)
    if depth is not None:
        raise InvalidArgument(
            f"{what} nests arrays and objects {depth:,} levels deep; at most "
            f"{MAX_JSON_DEPTH} levels are allowed. Send a flatter value."
        )

    def integer(raw: str) -> int:
        digits = raw.lstrip("-")
        if len(digits) > 19 or abs(int(raw)) > MAX_INTEGER:
            raise InvalidArgument(
                f"{what} holds an integer of {len(digits):,} digits ({_clip(raw)}); integers "
                f"must fit in 64 bits (at most {MAX_INTEGER:,}). Send a smaller number."
            )
        return int(raw)

    def real(raw: str) -> float:
        value = float(raw) if len(raw) <= MAX_NUMBER_CHARS else math.inf
        if len(raw) > MAX_NUMBER_CHARS:
            raise InvalidArgument(
                f"{what} holds a number written with {len(raw):,} characters ({_clip(raw)}); "
                f"a number may have at most {MAX_NUMBER_CHARS} characters. Send a shorter number."
            )
        if not math.isfinite(value):
            raise InvalidArgument(
                f"{what} holds the number {_clip(raw)}, which is too large for a 64-bit "
                "floating-point number (the largest is about 1.8e308). Send a smaller number."
            )
        return value

    def constant(raw: str) -> float:
        raise InvalidArgument(
            f"{what} holds {raw}, which is not a JSON number. Send a finite number or null."
        )

    return json.loads(
        text,
        parse_int=integer,
        parse_float=real,
        parse_constant=constant,
        object_pairs_hook=object_pairs_hook,
    )


def _clip(raw: str) -> str:
    return raw if len(raw) <= 24 else f"{raw[:10]}…{raw[-10:]}"
