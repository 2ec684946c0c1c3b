"""Chat values and rules: author labels, mentions, time stamps and the message value."""

from __future__ import annotations

import dataclasses
import unicodedata
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.core.chat import (
    BIDI_CONTROLS,
    MAX_LABEL_CHARS,
    MAX_MESSAGE_BYTES,
    ChatMessage,
    clean_line,
    mentions,
    mentions_reader,
    sanitize_label,
    utc_stamp,
)
from quire.core.errors import InvalidArgument


def test_the_limits_are_64_kb_per_message_and_60_characters_per_label() -> None:
    assert MAX_MESSAGE_BYTES == 65536
    assert MAX_LABEL_CHARS == 60


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("codxu", "codxu"),
        ("  qa-1  ", "qa-1"),
        ("Lead QA", "Lead QA"),
        ("lead\t\n  qa", "lead qa"),
        ("web (agent)", "web agent"),
        ("claude-api (via ahsan)", "claude-api via ahsan"),
        ("a·b", "a b"),
        ("a\u0387b", "a b"),
        ("a · 2026-10-02T14:03:05Z", "a 2026-10-02T14:03:05Z"),
        ("bo\x00b", "bob"),
        ("bo\x1b[31mb", "bo[31mb"),
        ("\x7fbob\x9b", "bob"),
        ("evil\u202etxt.exe", "eviltxt.exe"),
        ("\u2066bob\u2069\u200e\u200f\u061c", "bob"),
        ("bob\u2028smith", "bob smith"),
        ("bob\rsmith", "bob smith"),
        ("bob\ud800", "bob"),
        ("Ünïcödé 🎉", "Ünïcödé 🎉"),
        ("#### x", "#### x"),
        ("x" * 61, "x" * 60),
        ("a" * 59 + " b", "a" * 59),
        ("é" * 100, "é" * 60),
    ],
)
def test_a_label_keeps_only_one_line_of_visible_characters(name: str, label: str) -> None:
    assert sanitize_label(name) == label


@pytest.mark.parametrize(
    "name", ["", "   ", "\n\t", "()", "·", "\x00\x01", "\u202e\u2066", "( · )"]
)
def test_a_label_with_nothing_visible_is_refused_naming_the_as_argument(name: str) -> None:
    with pytest.raises(InvalidArgument, match="name to post as is empty") as caught:
        sanitize_label(name)
    assert caught.value.argument == "as"


def test_a_label_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidArgument) as caught:
        sanitize_label(42)  # type: ignore[arg-type]
    assert caught.value.argument == "as"


@given(st.text())
def test_a_sanitized_label_is_one_short_line_without_hidden_or_header_characters(
    name: str,
) -> None:
    try:
        label = sanitize_label(name)
    except InvalidArgument:
        return
    assert 0 < len(label) <= MAX_LABEL_CHARS
    assert label == label.strip()
    assert not set(label) & (set("()\u00b7\u0387") | BIDI_CONTROLS)
    assert not any(unicodedata.category(char) in ("Cc", "Cs") for char in label)
    assert label == " ".join(label.split())
    assert sanitize_label(label) == label


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Test the\nlogin page", "Test the login page"),
        ("  a\r\n\tb  ", "a b"),
        ("a\x00b\u202e", "ab"),
        ("(keep) · these", "(keep) · these"),
        ("", ""),
    ],
)
def test_a_clean_line_drops_hidden_characters_and_keeps_the_rest(text: str, line: str) -> None:
    assert clean_line(text) == line


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("@bob please look", {"bob"}),
        ("Hi @Bob and @ALICE", {"bob", "alice"}),
        ("@all hands", {"all"}),
        ("@Everyone: stand up", {"everyone"}),
        ("thanks @bob.", {"bob"}),
        ("thanks @bob...", {"bob"}),
        ("ask @bob.smith now", {"bob.smith"}),
        ("@bob-suffix", {"bob-suffix"}),
        ("@lead_qa, @qa-1 and @coder.2", {"lead_qa", "qa-1", "coder.2"}),
        ("(@bob) [@carol] *@dave* _@erin", {"bob", "carol", "dave", "erin"}),
        ("@bob\n@carol", {"bob", "carol"}),
        ("@José and @日本", {"josé", "日本"}),
        ("mail bob@example.com", set()),
        ("mail bob.smith+tag@example.com", set()),
        ("a-@bob", set()),
        ("see https://social.example/@bob", set()),
        ("@bob@example.com", set()),
        ("@", set()),
        ("@ bob", set()),
        ("@-bob", set()),
        ("@.bob", set()),
        ("email@", set()),
        ("", set()),
        ("`@bob` is code", set()),
        ("``@bob ` still code``", set()),
        ("`@bob`@carol", {"carol"}),
        ("`unclosed @bob", {"bob"}),
        ("\\`@bob`", {"bob"}),
        ("`a\n@bob` spans lines", set()),
        ("`a\n\n@bob` does not cross a blank line", {"bob"}),
        ("```\n@bob\n```\n@carol", {"carol"}),
        ("~~~python\n@bob\n~~~", set()),
        ("````\n```\n@bob\n````\n@carol", {"carol"}),
        ("```\n@bob", set()),
        ("> ```\n> @bob\n> ```\n@carol", {"carol"}),
        ("``` info `x`\n@bob", {"bob"}),
        ("```\r\n@bob\r\n```\r\n@carol", {"carol"}),
    ],
)
def test_mentions_are_the_names_after_an_at_sign_outside_code(body: str, names: set[str]) -> None:
    assert mentions(body) == frozenset(names)


@pytest.mark.parametrize(
    ("body", "reader", "mentioned"),
    [
        ("@bob hi", "bob", True),
        ("@BOB hi", "Bob", True),
        ("@bob hi", " bob ", True),
        ("@all hi", "bob", True),
        ("@everyone hi", "bob", True),
        ("@bob-suffix hi", "bob", False),
        ("bob@example.com", "bob", False),
        ("@carol hi", "bob", False),
        ("`@bob`", "bob", False),
        ("no mention", "bob", False),
    ],
)
def test_a_reader_is_mentioned_by_name_or_by_all_or_everyone(
    body: str, reader: str, mentioned: bool
) -> None:
    assert mentions_reader(body, reader) is mentioned


def test_mentions_of_a_huge_body_full_of_backticks_finish() -> None:
    body = "".join("`" * (n % 50 + 1) + " @x " for n in range(20_000))
    assert isinstance(mentions(body), frozenset)


@given(st.text(alphabet="`@ab.-\n \\~>", max_size=80))
def test_mentions_are_lower_cased_names_without_a_trailing_dot(body: str) -> None:
    for name in mentions(body):
        assert name == name.lower()
        assert name and not name.endswith(".")


@pytest.mark.parametrize(
    ("when", "stamp"),
    [
        (datetime(2026, 10, 2, 14, 3, 5, tzinfo=UTC), "2026-10-02T14:03:05Z"),
        (datetime(2026, 10, 2, 14, 3, 5, 999_999, tzinfo=UTC), "2026-10-02T14:03:05Z"),
        (
            datetime(2026, 10, 2, 16, 3, 5, tzinfo=timezone(timedelta(hours=2))),
            "2026-10-02T14:03:05Z",
        ),
        (datetime(2027, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=-1))), "2027-01-01T01:30:00Z"),
        (datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC), "0999-01-02T03:04:05Z"),
    ],
)
def test_a_stamp_is_the_utc_time_to_the_second(when: datetime, stamp: str) -> None:
    assert utc_stamp(when) == stamp


def test_a_naive_time_cannot_be_stamped() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        utc_stamp(datetime(2026, 10, 2, 14, 3, 5))  # noqa: DTZ001


def test_a_message_is_a_frozen_value() -> None:
    message = ChatMessage(number=1, author="bob", time="2026-10-02T14:03Z", body="hi", offset=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.body = "changed"  # type: ignore[misc]
