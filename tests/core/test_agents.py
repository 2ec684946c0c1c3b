"""An agent's name as a label: what is dropped, how long it may be, and its trip in a header."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.core.agents import (
    MAX_AGENT_NAME,
    agent_from_header,
    agent_header_value,
    clean_agent_name,
)

BIDI_AND_ZERO_WIDTH = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("claude-code", "claude-code"),
        ("  Codex CLI  ", "Codex CLI"),
        ("bad\0name", "badname"),
        ("two\nlines\tand\r\ntabs", "two lines and tabs"),
        ("a\u2028b\u2029c", "a b c"),
        (f"evil{BIDI_AND_ZERO_WIDTH}name", "evilname"),
        ("zero\u200bwidth\ufeff", "zerowidth"),
        ("\x1b[31mred\x1b[0m", "[31mred[0m"),
        ("private\ue000use", "privateuse"),
        ("lone\ud800surrogate", "lonesurrogate"),
        ("Ünïcödé agent ✓", "Ünïcödé agent ✓"),
        ("エージェント", "エージェント"),
        ("wide\u3000space\u00a0nbsp", "wide space nbsp"),
        ("x" * 300, "x" * MAX_AGENT_NAME),
        ("y" * (MAX_AGENT_NAME - 1) + " z", "y" * (MAX_AGENT_NAME - 1)),
        ("", None),
        ("   \t\n ", None),
        ("\0\x01\u202e\u200b", None),
    ],
)
def test_a_name_is_cleaned_for_a_label(raw: str, cleaned: str | None) -> None:
    assert clean_agent_name(raw) == cleaned


def test_a_huge_name_is_cleaned_without_reading_all_of_it() -> None:
    assert clean_agent_name("n" * 10_000_000) == "n" * MAX_AGENT_NAME


@pytest.mark.parametrize("name", ["test-agent", "Ünïcödé ✓", "a/b?c=d&e%20f", "エージェント"])
def test_a_name_survives_its_trip_through_the_header(name: str) -> None:
    value = agent_header_value(name)
    assert value.isascii()
    assert agent_from_header(value) == name


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, None),
        ("", None),
        ("%00%E2%80%AE", None),
        ("%ZZ", "%ZZ"),
        ("%FF%FEbytes", "bytes"),
        ("plain words", "plain words"),
        ("%E2%80%AEevil", "evil"),
        ("%41" * 10_000, "A" * MAX_AGENT_NAME),
    ],
)
def test_the_server_reads_any_header_value_as_a_clean_name_or_none(
    value: str | None, name: str | None
) -> None:
    assert agent_from_header(value) == name


@given(st.text())
def test_a_cleaned_name_is_short_printable_and_stable(raw: str) -> None:
    cleaned = clean_agent_name(raw)
    if cleaned is None:
        return
    assert 0 < len(cleaned) <= MAX_AGENT_NAME
    assert cleaned == cleaned.strip()
    assert all(char == " " or unicodedata.category(char)[0] not in "CZ" for char in cleaned), (
        cleaned
    )
    assert clean_agent_name(cleaned) == cleaned
    assert agent_from_header(agent_header_value(raw)) == cleaned
