"""Minimal changes to a live Y Text: exact results, small changes, and merges with remote edits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pycrdt import Doc, Text

from quire.core.errors import InvalidArgument
from quire.services.live.text_changes import (
    TextChange,
    apply_changes,
    replacement_changes,
    set_text,
    text_changes,
    utf16_length,
)

ORIGIN = "test"

# Line-heavy text with multi-byte characters, CRLF and emoji, so byte offsets get exercised.
pieces = st.sampled_from(["a", "b", "é", "😀", "\n", "\r\n", " ", "中", "#", "- [ ] "])
texts = st.lists(pieces, max_size=40).map("".join)


def live_text(value: str) -> Text:
    doc: Doc[Text] = Doc()
    text = doc.get("content", type=Text)
    text += value
    return text


@given(old=st.text(), new=st.text())
def test_applying_a_new_text_yields_exactly_that_text(old: str, new: str) -> None:
    text = live_text(old)
    set_text(text, new, origin=ORIGIN)
    assert str(text) == new


@given(old=texts, new=texts)
def test_applying_a_new_line_text_yields_exactly_that_text(old: str, new: str) -> None:
    text = live_text(old)
    set_text(text, new, origin=ORIGIN)
    assert str(text) == new


@given(old=st.text(), new=st.text())
def test_changes_are_ascending_and_never_overlap(old: str, new: str) -> None:
    changes = text_changes(old, new)
    position = 0
    for change in changes:
        assert position <= change.start <= change.end <= len(old)
        position = change.end


@given(old=texts, new=texts, where=st.integers(min_value=0), typed=st.text("xyz", min_size=1))
def test_a_remote_keystroke_survives_a_minimal_change(
    old: str, new: str, where: int, typed: str
) -> None:
    server: Doc[Text] = Doc()
    server_text = server.get("content", type=Text)
    server_text += old
    browser: Doc[Text] = Doc()
    browser.apply_update(server.get_update())
    browser_text = browser.get("content", type=Text)
    index = where % (len(old) + 1)
    browser_text.insert(len(old[:index].encode()), typed)

    set_text(server_text, new, origin=ORIGIN)
    server_state, browser_state = server.get_state(), browser.get_state()
    server.apply_update(browser.get_update(server_state))
    browser.apply_update(server.get_update(browser_state))

    merged = str(server_text)
    assert merged == str(browser_text)
    assert any(
        merged[k : k + len(typed)] == typed and merged[:k] + merged[k + len(typed) :] == new
        for k in range(len(merged) - len(typed) + 1)
    )


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("same", "same", []),
        ("", "", []),
        ("", "new", [TextChange(0, 0, "new")]),
        ("old", "", [TextChange(0, 3, "")]),
        ("hello world", "hello there world", [TextChange(6, 6, "there ")]),
        ("a\nb\nc\n", "a\nB\nc\n", [TextChange(2, 3, "B")]),
        ("one\ntwo\nthree\n", "one\nthree\n", [TextChange(5, 9, "")]),
        (
            "# T\n\nfirst line\nsecond\n\nlast\n",
            "# T\n\nfirst lane\nsecond\n\nlast!\n",
            [TextChange(12, 13, "a"), TextChange(28, 28, "!")],
        ),
        ("x\r\ny\r\n", "x\ny\n", [TextChange(1, 2, ""), TextChange(4, 5, "")]),
        (
            "hello\nworld\n",
            "help\nwords\n",
            [TextChange(3, 5, "p"), TextChange(9, 10, ""), TextChange(11, 11, "s")],
        ),
    ],
)
def test_changes_touch_only_what_differs(old: str, new: str, expected: list[TextChange]) -> None:
    assert text_changes(old, new) == expected


def test_a_long_text_with_a_change_in_the_middle_changes_only_that_part() -> None:
    old = "line\n" * 50_000
    new = old[:100_000] + "new line\n" + old[100_000:]
    assert text_changes(old, new) == [TextChange(100_000, 100_000, "new line\n")]


@pytest.mark.parametrize(
    ("old", "start", "end", "insert", "expected"),
    [
        ("foo bar", 0, 7, "foo baz", [TextChange(6, 7, "z")]),
        ("foo bar", 4, 7, "bar", []),
        ("foo bar", 4, 4, "big ", [TextChange(4, 4, "big ")]),
        ("aaa", 0, 3, "", [TextChange(0, 3, "")]),
    ],
)
def test_a_replacement_is_trimmed_to_what_differs(
    old: str, start: int, end: int, insert: str, expected: list[TextChange]
) -> None:
    assert replacement_changes(old, start, end, insert) == expected


def test_all_changes_land_in_one_transaction() -> None:
    text = live_text("a\nb\nc\n")
    updates: list[bytes] = []
    text.doc.observe(lambda event: updates.append(event.update))
    changes = set_text(text, "A\nb\nC\n", origin=ORIGIN)
    assert len(changes) == 2
    assert len(updates) == 1


def test_an_unpaired_surrogate_is_refused_and_nothing_changes() -> None:
    text = live_text("keep me")
    with pytest.raises(InvalidArgument, match="unpaired surrogate"):
        apply_changes(
            text,
            "keep me",
            [TextChange(0, 1, "K"), TextChange(4, 4, "\ud800")],
            origin=ORIGIN,
        )
    assert str(text) == "keep me"


@pytest.mark.parametrize(
    ("value", "length"), [("", 0), ("abc", 3), ("é", 1), ("😀", 2), ("a😀b😀", 6)]
)
def test_utf16_length_counts_what_a_browser_counts(value: str, length: int) -> None:
    assert utf16_length(value) == length
