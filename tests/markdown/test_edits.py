import json
from typing import Any, cast

import pytest

from quire.core.errors import EditRefused, FileTooLarge, InvalidArgument
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.markdown.diff import unified_diff
from quire.markdown.edits import (
    Candidate,
    EditPreview,
    Replacement,
    apply_content,
    check_request_size,
    find_spans,
    line_break_at,
    preview_edit,
    replace_occurrence,
    replace_unique,
)
from tests.markdown.test_diff import apply_unified_diff

BOM = "\ufeff"
MIB = 1024 * 1024


# find_spans


@pytest.mark.parametrize(
    ("document", "find", "spans"),
    [
        ("hello world", "world", [(6, 11)]),
        ("aaaa", "aa", [(0, 2), (2, 4)]),
        ("aaa", "aa", [(0, 2)]),
        ("Word word WORD", "word", [(5, 9)]),
        ("a  b a b", "a b", [(5, 8)]),
        ("tab\there", "tab here", []),
        ("x.*y x..y", ".*", [(1, 3)]),
        ("(a|b) a", "(a|b)", [(0, 5)]),
        ("\\d 1", "\\d", [(0, 2)]),
        ("end$ end", "end$", [(0, 4)]),
        ("a\x00b", "\x00", [(1, 2)]),
        ("🎉 party 🎉", "🎉", [(0, 1), (8, 9)]),
        ("e\u0301 é", "é", [(3, 4)]),
        (BOM + "# T", BOM + "#", [(0, 2)]),
        (BOM + "# T", "# T", [(1, 4)]),
        ("line one\nline two", "one\nline", [(5, 13)]),
        ("line one\r\nline two", "one\nline", [(5, 14)]),
        ("line one\nline two", "one\r\nline", [(5, 13)]),
        ("a\r\nb\nc", "\n", [(1, 3), (4, 5)]),
        ("a\r\nb\nc", "a\nb\nc", [(0, 6)]),
        ("a\r\nb\nc", "a\r\nb\r\nc", [(0, 6)]),
        ("a\rb", "a\rb", [(0, 3)]),
        ("a\rb", "a\nb", []),
        ("a\r\nb", "a\r", []),
        ("a\rb\r\n", "\r", [(1, 2)]),
        ("x\r\r\ny", "x\r\ny", []),
        ("x\r\r\ny", "x\r\n", []),
        ("x\r\r\ny", "x\r\r\ny", [(0, 5)]),
        ("x\r\r\ny", "x\r\ry", []),
        ("\r\n", "\r\r\n", []),
        ("a\r\nb", "a\r\r\nb", []),
        ("a\r\r\nb", "a\r\nb", []),
        ("x\r\r\ny", "x\r", [(0, 2)]),
    ],
)
def test_find_matches_exactly_except_that_line_breaks_match_lf_or_crlf(
    document: str, find: str, spans: list[tuple[int, int]]
) -> None:
    assert find_spans(document, find) == spans


def test_an_empty_find_is_refused_before_searching() -> None:
    with pytest.raises(InvalidArgument) as caught:
        find_spans("anything", "")
    assert caught.value.argument == "find"
    assert "`find` must not be empty" in str(caught.value)


@pytest.mark.parametrize(
    ("document", "find", "name"),
    [(None, "a", "document"), ("a", None, "find"), (b"a", "a", "document"), ("a", 1, "find")],
)
def test_a_document_or_find_that_is_not_a_string_is_refused(
    document: object, find: object, name: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        find_spans(cast(Any, document), cast(Any, find))
    assert caught.value.argument == name


def test_find_locates_text_at_the_end_of_a_16_mib_crlf_document() -> None:
    document = "filler line\r\n" * (16 * MIB // 13) + "the end\r\nfor real"
    start = len(document) - len("end\r\nfor real")
    assert find_spans(document, "end\nfor real") == [(start, len(document))]
    assert find_spans(document, "for real") == [(len(document) - 8, len(document))]


# replace_unique


def test_a_unique_find_is_replaced_and_the_result_says_where() -> None:
    document = "# Title\n\nSome text here.\n"
    result = replace_unique(document, "text", "words")
    assert result == Replacement(text="# Title\n\nSome words here.\n", start=14, end=19, line=3)
    assert result.text[result.start : result.end] == "words"


def test_a_find_that_is_not_found_is_refused_with_how_to_copy_it() -> None:
    with pytest.raises(EditRefused) as caught:
        replace_unique("a b c", "a  b", "x")
    message = str(caught.value)
    assert caught.value.match_count == 0
    for needed in ("not found", "exactly", "whitespace", "LF or CRLF", "get_current_content"):
        assert needed in message


@pytest.mark.parametrize(
    ("document", "find"),
    [
        ("trailing space ", "trailing space  "),
        ("tab\tseparated", "tab    separated"),
        ("Case", "case"),
        ("non\u00a0breaking", "non breaking"),
        ("a\rb", "a\nb"),
        ("curly \u2019quote\u2019", "curly 'quote'"),
    ],
)
def test_near_misses_are_not_found(document: str, find: str) -> None:
    with pytest.raises(EditRefused) as caught:
        replace_unique(document, find, "x")
    assert caught.value.match_count == 0


@pytest.mark.parametrize(("document", "count"), [("ab ab", 2), ("ab\nab\nab", 3), ("ab" * 50, 50)])
def test_a_find_that_is_not_unique_is_refused_with_the_count(document: str, count: int) -> None:
    with pytest.raises(EditRefused) as caught:
        replace_unique(document, "ab", "x")
    assert caught.value.match_count == count
    assert f"not unique ({count} matches)" in str(caught.value)
    assert "surrounding context" in str(caught.value)


def test_matches_of_a_line_break_find_are_counted_across_styles() -> None:
    with pytest.raises(EditRefused) as caught:
        replace_unique("a\r\nb\nc\r\nd", "\n", "")
    assert caught.value.match_count == 3


@pytest.mark.parametrize(
    ("name", "document", "find", "replace", "expected"),
    [
        ("lf find in a crlf document", "a\r\nb\r\nc\r\n", "a\nb", "x\ny", "x\r\ny\r\nc\r\n"),
        ("crlf replace in an lf document", "a\nb\nc\n", "b", "1\r\n2", "a\n1\n2\nc\n"),
        ("crlf part of a mixed document", "a\r\nb\r\nc\nd\n", "b", "1\n2", "a\r\n1\r\n2\r\nc\nd\n"),
        ("lf part of a mixed document", "a\r\nb\r\nc\nd\n", "c", "1\r\n2", "a\r\nb\r\n1\n2\nd\n"),
        ("match spans both styles", "a\r\nb\nc\n", "a\nb", "1\n2\n3", "1\r\n2\r\n3\nc\n"),
        ("last line, mostly crlf", "a\r\nb\r\nc\nend", "end", "1\n2", "a\r\nb\r\nc\n1\r\n2"),
        ("last line, mostly lf", "a\nb\nc\r\nend", "end", "1\r\n2", "a\nb\nc\r\n1\n2"),
        ("last line, tie takes the break before", "a\nb\r\nend", "end", "1\n2", "a\nb\r\n1\r\n2"),
        ("no line break at all", "one line", "one", "1\r\n2\n3", "1\r\n2\n3 line"),
        ("lone carriage return kept", "a\r\nb\r\n", "b", "x\ry", "a\r\nx\ry\r\n"),
        ("crlf kept when replace has it", "a\r\nb\r\n", "b", "1\r\n2", "a\r\n1\r\n2\r\n"),
        ("byte order mark kept", BOM + "a\nb", "b", "c", BOM + "a\nc"),
        ("match right after the mark", BOM + "a\nb", "a", "z", BOM + "z\nb"),
        ("text around kept byte for byte", " x\t\x00y \r\n", "\x00", "-", " x\t-y \r\n"),
        ("deletion", "keep drop keep", " drop", "", "keep keep"),
        ("same text", "same", "same", "same", "same"),
        ("find starting with a break", "a\r\nb\r\nc", "\nb", "\nB", "a\r\nB\r\nc"),
        ("find ending with a break", "a\r\nb\r\nc", "a\n", "A\n", "A\r\nb\r\nc"),
        ("line break joins lines", "a\r\nb\r\n", "a\n", "", "b\r\n"),
        ("find with a trailing lone cr", "a\rb\r\n", "a\r", "z\n", "z\r\nb\r\n"),
    ],
)
def test_replace_takes_the_line_breaks_of_the_line_the_match_starts_on(
    name: str, document: str, find: str, replace: str, expected: str
) -> None:
    assert replace_unique(document, find, replace).text == expected, name


@pytest.mark.parametrize(
    ("document", "find", "line"),
    [
        ("x", "x", 1),
        ("a\nb\nc", "c", 3),
        ("a\r\nb\r\nc", "c", 3),
        ("a\nb\nc", "\nc", 2),
        ("a\r\nb\r\nc", "\nc", 2),
        ("a\rb\nc", "b", 1),
        ("\n\n\nz", "z", 4),
    ],
)
def test_the_line_is_where_the_match_starts_counting_line_feeds(
    document: str, find: str, line: int
) -> None:
    assert replace_unique(document, find, "?").line == line


def test_a_replace_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(InvalidArgument) as caught:
        replace_unique("a", "a", cast(Any, None))
    assert caught.value.argument == "replace"


def test_a_unique_find_is_replaced_in_a_16_mib_document() -> None:
    document = "a line of text\n" * (16 * MIB // 15) + "the last one\n"
    result = replace_unique(document, "the last one", "the final one")
    assert result.text.endswith("a line of text\nthe final one\n")
    assert result.line == 16 * MIB // 15 + 1


def test_a_1_mib_lf_find_replaces_its_text_in_a_crlf_document() -> None:
    lines = [f"line {n} of the document" for n in range(700_000)]
    document = "\r\n".join(lines)
    find = "\n".join(lines[300_000:340_000])
    assert len(find) > MIB
    result = replace_unique(document, find, "one\ntwo")
    assert result.text == "\r\n".join([*lines[:300_000], "one", "two", *lines[340_000:]])
    assert result.line == 300_001


# line_break_at


@pytest.mark.parametrize(
    ("document", "offset", "expected"),
    [
        ("a\nb", 0, "\n"),
        ("a\r\nb", 0, "\r\n"),
        ("a\r\nb", 1, "\r\n"),
        ("a\nb\r\nc", 2, "\r\n"),
        ("a\r\nb\r\nc\nd", 7, "\n"),
        ("a\r\nb\r\nc\nd", 8, "\r\n"),
        ("a\nb\nc\r\nd", 7, "\n"),
        ("a\r\nb\nc", 5, "\n"),
        ("abc", 1, None),
        ("", 0, None),
    ],
)
def test_the_line_break_is_the_lines_own_or_the_documents_dominant_one(
    document: str, offset: int, expected: str | None
) -> None:
    assert line_break_at(document, offset) == expected


# replace_occurrence


@pytest.mark.parametrize(
    ("index", "expected"), [(0, "X b a b a"), (1, "a b X b a"), (2, "a b a b X")]
)
def test_the_chosen_occurrence_is_replaced_in_document_order(index: int, expected: str) -> None:
    assert replace_occurrence("a b a b a", "a", "X", index).text == expected


def test_an_occurrence_index_past_the_last_is_refused_with_the_valid_range() -> None:
    with pytest.raises(EditRefused) as caught:
        replace_occurrence("one two one", "one", "1", 3)
    message = str(caught.value)
    assert caught.value.match_count == 2
    for needed in ("3", "2 occurrence(s)", "from 0 to 1", "stream_edit"):
        assert needed in message


def test_the_largest_occurrence_index_is_accepted_and_found_out_of_range() -> None:
    with pytest.raises(EditRefused) as caught:
        replace_occurrence("a", "a", "b", 4294967295)
    assert caught.value.match_count == 1


def test_an_occurrence_of_a_find_that_is_not_found_is_refused_as_not_found() -> None:
    with pytest.raises(EditRefused) as caught:
        replace_occurrence("abc", "zzz", "y", 0)
    assert caught.value.match_count == 0
    assert "get_current_content" in str(caught.value)


@pytest.mark.parametrize("index", [-1, 4294967296, 2**70, True, 1.0, "1", None])
def test_an_occurrence_index_that_is_not_a_32_bit_whole_number_is_refused(index: object) -> None:
    with pytest.raises(InvalidArgument) as caught:
        replace_occurrence("a a", "a", "b", cast(Any, index))
    assert caught.value.argument == "match_index"
    assert "4294967295" in str(caught.value)


def test_an_occurrence_keeps_the_line_breaks_of_its_own_line() -> None:
    document = "item\r\nitem\nitem"
    assert replace_occurrence(document, "item", "a\nb", 0).text == "a\r\nb\r\nitem\nitem"
    assert replace_occurrence(document, "item", "a\r\nb", 1).text == "item\r\na\nb\nitem"


# preview_edit


def test_a_single_match_previews_as_one_diff_without_candidates() -> None:
    document = "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
    preview = preview_edit(document, "5", "five", preview_lines=2, label="plan.md")
    assert preview == EditPreview(
        diff="--- plan.md\n+++ plan.md\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n",
        candidates=None,
        matchCount=1,
    )


def test_every_occurrence_is_a_candidate_in_document_order_with_its_own_diff() -> None:
    document = "todo: a\nmiddle\ntodo: b\nmore\nend\ntodo: c"
    preview = preview_edit(document, "todo", "done", preview_lines=0)
    assert preview.matchCount == 3
    assert preview.candidates == [
        Candidate(0, 1, "--- document\n+++ document\n@@ -1 +1 @@\n-todo: a\n+done: a\n", 1),
        Candidate(1, 3, "--- document\n+++ document\n@@ -3 +3 @@\n-todo: b\n+done: b\n", 2),
        Candidate(
            2,
            6,
            "--- document\n+++ document\n@@ -6 +6 @@\n-todo: c\n\\ No newline at end of file\n"
            "+done: c\n\\ No newline at end of file\n",
            3,
        ),
    ]
    assert preview.diff == preview.candidates[0].diff


@pytest.mark.parametrize(
    ("document", "find", "replace"),
    [
        ("a\nb\nc\nd\ne\nf\ng\nb\nh\n", "b", "B\nextra"),
        ("a\r\nb\r\nc\r\nb\r\nd", "b\nc", "x"),
        ("one\ntwo\none\ntwo\n", "one\n", ""),
        ("x\ny\nx\ny\nx\ny", "y", "y\nnew"),
        ("same same same", "same", "same"),
        ("p\n\np\n\np\n", "\n\np", "\n\nq\n"),
    ],
)
@pytest.mark.parametrize("context", [0, 1, 5, 20])
def test_each_candidate_diff_applies_to_give_that_occurrence_replaced(
    document: str, find: str, replace: str, context: int
) -> None:
    preview = preview_edit(document, find, replace, preview_lines=context)
    if preview.candidates is None:
        diffs = [preview.diff]
    else:
        diffs = [candidate.diff for candidate in preview.candidates]
        assert [c.matchIndex for c in preview.candidates] == list(range(len(diffs)))
    assert len(diffs) == preview.matchCount == len(find_spans(document, find))
    for index, diff in enumerate(diffs):
        expected = replace_occurrence(document, find, replace, index).text
        assert apply_unified_diff(document, diff) == expected


def test_a_candidate_diff_equals_the_full_document_diff_for_that_occurrence() -> None:
    document = "".join(f"line {n}\n" for n in range(100))
    document = document.replace("line 20\n", "target\n").replace("line 70\n", "target\n")
    preview = preview_edit(document, "target\nline", "changed\nand more\nline")
    assert preview.candidates is not None
    assert [c.startLine for c in preview.candidates] == [21, 71]
    for candidate in preview.candidates:
        new = replace_occurrence(
            document, "target\nline", "changed\nand more\nline", candidate.matchIndex
        )
        full = unified_diff(
            document, new.text, label_a="document", label_b="document", context_lines=5
        )
        assert candidate.diff == full.diff


def test_a_crlf_preview_keeps_its_carriage_returns_visible() -> None:
    preview = preview_edit("a\r\nb\r\nc\r\n", "b", "x\ny", preview_lines=1)
    assert (
        preview.diff
        == "--- document\n+++ document\n@@ -1,3 +1,4 @@\n a\r\n-b\r\n+x\r\n+y\r\n c\r\n"
    )


def test_a_preview_that_joins_the_next_line_shows_context_after_it() -> None:
    document = "1\n2\n3\n4\n5\n6\n"
    preview = preview_edit(document, "2\n", "two ", preview_lines=2)
    assert preview.diff == (
        "--- document\n+++ document\n@@ -1,5 +1,4 @@\n 1\n-2\n-3\n+two 3\n 4\n 5\n"
    )


@pytest.mark.parametrize("lines", [0, 20])
def test_preview_lines_from_0_to_20_are_accepted(lines: int) -> None:
    assert preview_edit("a\nb\n", "a", "c", preview_lines=lines).matchCount == 1


@pytest.mark.parametrize("lines", [-1, 21, 10000, True, 2.0, "5", None])
def test_preview_lines_outside_0_to_20_are_refused(lines: object) -> None:
    with pytest.raises(InvalidArgument) as caught:
        preview_edit("a", "a", "b", preview_lines=cast(Any, lines))
    assert caught.value.argument == "preview_lines"
    assert "0 to 20" in str(caught.value)


def test_a_preview_of_a_find_that_is_not_found_is_refused() -> None:
    with pytest.raises(EditRefused) as caught:
        preview_edit("abc", "abd", "x")
    assert caught.value.match_count == 0
    assert "whitespace included" in str(caught.value)


def test_a_preview_with_an_empty_find_is_refused() -> None:
    with pytest.raises(InvalidArgument) as caught:
        preview_edit("abc", "", "x")
    assert caught.value.argument == "find"


def test_a_preview_of_many_matches_in_a_16_mib_document_diffs_only_around_each() -> None:
    block = "## Section\n\nSome text with a marker in it.\n\n" + "filler line\n" * 50
    document = block * (16 * MIB // len(block))
    preview = preview_edit(document, "marker", "flag", preview_lines=3)
    candidates = preview.candidates or []
    assert preview.matchCount == len(candidates) == 16 * MIB // len(block)
    assert max(len(candidate.diff) for candidate in candidates) < 300
    assert [c.startLine for c in candidates[:3]] == [3, 57, 111]
    assert [c.rank for c in candidates[:3]] == [1, 2, 3]
    last = candidates[-1]
    assert f"@@ -{last.startLine - 3},7 +{last.startLine - 3},7 @@" in last.diff


# apply_content


@pytest.mark.parametrize(
    ("name", "current", "new", "expected"),
    [
        ("crlf document takes crlf", "a\r\nb\r\n", "x\ny\n", "x\r\ny\r\n"),
        ("new with a cr is kept", "a\r\nb\r\n", "x\r\ny\nz", "x\r\ny\nz"),
        ("new with a lone cr is kept", "a\r\nb\r\n", "x\ry\n", "x\ry\n"),
        ("mixed document keeps new as given", "a\r\nb\n", "x\ny\n", "x\ny\n"),
        ("lf document keeps new as given", "a\nb\n", "x\r\ny\n", "x\r\ny\n"),
        ("document without breaks keeps new", "a", "x\ny", "x\ny"),
        ("empty document keeps new", "", "x\ny", "x\ny"),
        ("empty new stays empty", "a\r\n", "", ""),
        ("bom kept", BOM + "a\n", "x\n", BOM + "x\n"),
        ("bom not doubled", BOM + "a\n", BOM + "x\n", BOM + "x\n"),
        ("bom of new kept as given", "a\n", BOM + "x\n", BOM + "x\n"),
        ("bom inside new is not a bom", BOM + "a", "x" + BOM, BOM + "x" + BOM),
        ("bom and crlf together", BOM + "a\r\nb\r\n", "x\ny", BOM + "x\r\ny"),
        ("bom kept on empty new", BOM + "a", "", BOM),
    ],
)
def test_whole_content_keeps_crlf_and_the_byte_order_mark(
    name: str, current: str, new: str, expected: str
) -> None:
    assert apply_content(current, new) == expected, name


@pytest.mark.parametrize(("current", "new"), [(None, "a"), ("a", None), ("a", b"b")])
def test_whole_content_that_is_not_a_string_is_refused(current: object, new: object) -> None:
    with pytest.raises(InvalidArgument):
        apply_content(cast(Any, current), cast(Any, new))


# check_request_size


def _sent_size(*parts: str) -> int:
    return sum(len(json.dumps(part, ensure_ascii=False).encode("utf-8")) for part in parts)


@pytest.mark.parametrize(
    ("parts", "size"),
    [
        (("plain",), 7),
        (('a"b',), 6),
        (("line\n",), 8),
        (("é",), 4),
        (("日本",), 8),
        (("\x00",), 8),
        (("🎉",), 6),
        (("\ud800",), 8),
        (("find", "replace"), 15),
        (("",), 2),
    ],
)
def test_request_size_counts_each_part_as_an_escaped_json_string(
    parts: tuple[str, ...], size: int
) -> None:
    check_request_size(*parts, limit=size)
    with pytest.raises(FileTooLarge):
        check_request_size(*parts, limit=size - 1)


def test_a_request_over_16_mib_is_refused_with_what_to_do_instead() -> None:
    document = "x" * (MAX_DOCUMENT_BYTES - 2)
    check_request_size(document)
    with pytest.raises(FileTooLarge) as caught:
        check_request_size(document + "x")
    message = str(caught.value)
    for needed in ("16 MiB", "edit_document", "split", "file path"):
        assert needed in message


def test_escapes_can_push_a_request_under_16_mib_of_text_over_the_limit() -> None:
    text = "\n" * (MAX_DOCUMENT_BYTES // 2)
    assert _sent_size(text) > MAX_DOCUMENT_BYTES
    with pytest.raises(FileTooLarge):
        check_request_size(text)


def test_find_and_replace_are_counted_together() -> None:
    half = "y" * (MAX_DOCUMENT_BYTES // 2)
    check_request_size(half[:-2], half[:-2])
    with pytest.raises(FileTooLarge):
        check_request_size(half, half)


def test_a_request_part_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(InvalidArgument):
        check_request_size("a", cast(Any, 3))
