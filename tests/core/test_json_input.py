"""The JSON reader's limits: depth scanned before parsing, numbers checked as parsed."""

from __future__ import annotations

import json

import pytest

from quire.core.errors import InvalidArgument
from quire.core.json_input import MAX_JSON_DEPTH, loads, nesting_depth


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["[[[[", "{{{{"]', 1),
        ('["\\"[[[", "\\\\", []]', 2),
        ("[" * 5000 + "]" * 5000, 5000),
        ("[] " * 10_000, 1),
        ('"unterminated [[[', 3),  # over-counted, and not JSON anyway
    ],
)
def test_the_depth_skips_brackets_inside_strings(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_the_deepest_allowed_nesting_parses() -> None:
    text = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert nesting_depth(text) == MAX_JSON_DEPTH
    assert loads(text, what="The body") is not None


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "at most 64 levels"),
        ("[" * 5000, "5,000 levels deep"),
        ('{"a":' * 100_000, "at most 64 levels"),
        ("7" * 5000, "integer of 5,000 digits"),
        ("-" + "7" * 20, "must fit in 64 bits"),
        ("9223372036854775808", "must fit in 64 bits"),
        ("-9223372036854775808", "must fit in 64 bits"),
        ("1e400", "too large for a 64-bit"),
        ("-1e400", "too large for a 64-bit"),
        ("0." + "0" * 100 + "1", "at most 40 characters"),
        ("1" * 50 + ".5", "at most 40 characters"),
        ("NaN", "not a JSON number"),
        ("[Infinity]", "not a JSON number"),
    ],
)
def test_over_limit_text_is_refused_naming_the_limit(text: str, limit: str) -> None:
    with pytest.raises(InvalidArgument, match=limit):
        loads(text, what="The body")


@pytest.mark.parametrize(
    "text",
    ["9223372036854775807", "-9223372036854775807", "1e308", "-0", "0.5e-320", "1.5", '"\\ud800"'],
)
def test_numbers_within_the_limits_parse_as_the_stdlib_would(text: str) -> None:
    assert loads(text, what="The body") == json.loads(text)


@pytest.mark.parametrize("text", ["{", "[1,]", "'a'", "", "[1] 2"])
def test_text_that_is_not_json_is_a_decode_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        loads(text, what="The body")
