"""Properties of find/replace, previews and unified diffs over generated texts."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from quire.core.errors import EditRefused, QuireError
from quire.markdown.diff import unified_diff
from quire.markdown.edits import (
    find_spans,
    preview_edit,
    replace_occurrence,
    replace_unique,
)
from tests.markdown.test_diff import apply_unified_diff

# Pieces that stress the rules: line breaks of both styles, a lone CR, a BOM, NUL, combining
# and astral characters, Markdown syntax and repeated words (so finds are often not unique).
PIECES = st.sampled_from(
    ["a", "b", "ab", " ", "\t", "\n", "\r\n", "\r", "\ufeff", "\x00", "é", "e\u0301", "🎉", "# ",
     "- [ ] ", "```", "|", "word", "Word"]
)  # fmt: skip
TEXT = st.lists(PIECES, max_size=20).map("".join)
LINE = st.lists(st.sampled_from(["a", "b", " ", "\r", "é", "\x00", "word", "🎉"]), max_size=5).map(
    "".join
)
# Replacement texts whose CRs only come as part of CRLF, so a CR never pairs with a following LF.
REPLACE = st.lists(st.sampled_from(["x", "a", " ", "\n", "\r\n", "é", "word"]), max_size=8).map(
    "".join
)


@st.composite
def uniform_documents(draw: st.DrawFn) -> str:
    """A document whose line breaks are all LF or all CRLF."""
    lines = draw(st.lists(LINE.filter(lambda line: not line.endswith("\r")), max_size=8))
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines)


@st.composite
def document_and_span(draw: st.DrawFn, documents: st.SearchStrategy[str]) -> tuple[str, str]:
    """A document and a non-empty piece of it to find."""
    document = draw(documents)
    assume(document)
    start = draw(st.integers(0, len(document) - 1))
    end = draw(st.integers(start + 1, len(document)))
    return document, document[start:end]


def _regex_spans(document: str, find: str) -> list[tuple[int, int]]:
    """The matching rule written as a regex: each line break is ``\\r?\\n``, and every other
    character matches itself, except that a CR outside a line break may not be followed by an
    LF (that pair is a CRLF line break in the document)."""
    pieces = re.split(r"\r?\n", find)
    source = r"\r?\n".join(
        "".join(r"\r(?!\n)" if char == "\r" else re.escape(char) for char in piece)
        for piece in pieces
    )
    return [match.span() for match in re.finditer(source, document)]


@settings(max_examples=1000)
@given(TEXT, TEXT.filter(bool))
def test_find_agrees_with_the_rule_written_as_a_regex(document: str, find: str) -> None:
    assert find_spans(document, find) == _regex_spans(document, find)


@settings(max_examples=500)
@given(document_and_span(TEXT))
def test_a_piece_of_the_document_is_found_unless_it_splits_a_crlf(pair: tuple[str, str]) -> None:
    document, find = pair
    assert find_spans(document, find) == _regex_spans(document, find)


@given(document_and_span(uniform_documents()), REPLACE)
def test_replacing_and_replacing_back_restores_the_document(
    pair: tuple[str, str], replace: str
) -> None:
    document, find = pair
    spans = find_spans(document, find)
    assume(len(spans) == 1)
    start, end = spans[0]
    forward = replace_unique(document, find, replace)
    inserted = forward.text[forward.start : forward.end]
    assume(inserted and find_spans(forward.text, inserted) == [(forward.start, forward.end)])
    back = replace_unique(forward.text, inserted, document[start:end])
    assert back.text == document


ANY_TEXT = st.one_of(TEXT, st.text())


@given(ANY_TEXT, ANY_TEXT, ANY_TEXT, st.integers(-2, 25), st.integers(-2, 6))
def test_edits_raise_only_quire_errors(
    document: str, find: str, replace: str, lines: int, index: int
) -> None:
    for call in (
        lambda: find_spans(document, find),
        lambda: replace_unique(document, find, replace),
        lambda: replace_occurrence(document, find, replace, index),
        lambda: preview_edit(document, find, replace, preview_lines=lines),
    ):
        with contextlib.suppress(QuireError):
            call()


@st.composite
def crlf_documents(draw: st.DrawFn) -> str:
    """A document with CRLF line breaks and no lone LF (a lone CR may appear in a line)."""
    lines = draw(st.lists(LINE, min_size=2, max_size=8))
    return "\r\n".join(lines)


def _only_crlf(text: str) -> bool:
    return text.count("\n") == text.count("\r\n")


@given(crlf_documents(), TEXT, TEXT, st.integers(0, 3), st.booleans())
def test_a_crlf_document_keeps_only_crlf_line_breaks_after_any_replace(
    document: str, find: str, replace: str, index: int, use_span: bool
) -> None:
    if use_span and len(document) > 1:
        find = document[len(document) // 3 : 2 * len(document) // 3] or find
    try:
        unique = replace_unique(document, find, replace)
        assert _only_crlf(unique.text)
    except QuireError:
        pass
    try:
        chosen = replace_occurrence(document, find, replace, index)
        assert _only_crlf(chosen.text)
    except QuireError:
        pass


@given(TEXT, st.integers(0, 12))
def test_a_text_diffed_against_itself_is_empty(text: str, context: int) -> None:
    result = unified_diff(text, text, label_a="a", label_b="b", context_lines=context)
    assert (result.diff, result.hunks, result.added, result.removed) == ("", 0, 0, 0)


LINES = st.lists(
    st.sampled_from(["a\n", "b\n", "c\n", "a\r\n", "\n", "a", "b\r", "é\n"]), max_size=14
)


@given(LINES, LINES, st.integers(0, 4))
def test_applying_the_hunks_of_a_diff_reproduces_the_second_text(
    a: list[str], b: list[str], context: int
) -> None:
    text_a, text_b = "".join(a), "".join(b)
    result = unified_diff(text_a, text_b, label_a="a", label_b="b", context_lines=context)
    assert apply_unified_diff(text_a, result.diff) == text_b
    body = result.diff.split("\n")[2:]
    assert result.hunks == sum(1 for line in body if line.startswith("@@"))
    assert result.added == sum(1 for line in body if line.startswith("+"))
    assert result.removed == sum(1 for line in body if line.startswith("-"))


@given(document_and_span(st.lists(PIECES, max_size=30).map("".join)), REPLACE, st.integers(0, 4))
def test_each_preview_diff_applies_to_give_its_occurrence_replaced(
    pair: tuple[str, str], replace: str, lines: int
) -> None:
    document, find = pair
    try:
        preview = preview_edit(document, find, replace, preview_lines=lines)
    except EditRefused:
        return  # the piece spans half of a CRLF, which a find never matches
    diffs = [preview.diff] if preview.candidates is None else [c.diff for c in preview.candidates]
    assert len(diffs) == preview.matchCount
    for index, diff in enumerate(diffs):
        expected = replace_occurrence(document, find, replace, index).text
        assert apply_unified_diff(document, diff) == expected


def _system_counts(a: str, b: str) -> tuple[int, int]:
    with TemporaryDirectory() as folder:
        path_a, path_b = Path(folder, "a"), Path(folder, "b")
        path_a.write_bytes(a.encode("utf-8"))
        path_b.write_bytes(b.encode("utf-8"))
        output = subprocess.run(
            ["diff", "-a", "-U0", str(path_a), str(path_b)], capture_output=True, check=False
        ).stdout.decode("utf-8")
    body = output.split("\n")[2:]
    return (
        sum(1 for line in body if line.startswith("+")),
        sum(1 for line in body if line.startswith("-")),
    )


@pytest.mark.skipif(shutil.which("diff") is None, reason="the system `diff` is not installed")
@settings(max_examples=60)
@given(LINES, LINES)
def test_the_added_and_removed_counts_match_the_system_diff(a: list[str], b: list[str]) -> None:
    text_a, text_b = "".join(a), "".join(b)
    result = unified_diff(text_a, text_b, label_a="a", label_b="b", context_lines=0)
    assert (result.added, result.removed) == _system_counts(text_a, text_b)
