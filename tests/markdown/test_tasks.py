"""Task checkboxes: read where the page shows one, and flipped in the source."""

from __future__ import annotations

import pytest

from quire.core.errors import InvalidArgument
from quire.markdown.tasks import Task, extract_tasks, toggle_task


@pytest.mark.parametrize(
    ("source", "tasks"),
    [
        ("- [ ] t", [Task(1, False, "t")]),
        ("* [x] t", [Task(1, True, "t")]),
        ("+ [X] t", [Task(1, True, "t")]),
        ("> - [ ] t", [Task(1, False, "t")]),
        ("1. [ ] t", [Task(1, False, "t")]),
        ("3) [x] t", [Task(1, True, "t")]),
        ("-\t[ ]\tt", [Task(1, False, "t")]),
        ("   - [ ] indented three", [Task(1, False, "indented three")]),
        ("> > 1. [x] deep", [Task(1, True, "deep")]),
        ("- [ ] **bold** `code`", [Task(1, False, "**bold** `code`")]),
        ("- [ ] two\n  lines", [Task(1, False, "two lines")]),
        ("- [ ] lazy\ncontinuation", [Task(1, False, "lazy continuation")]),
        ("- [ ] # heading", [Task(1, False, "heading")]),
        ("- a\n  - [x] nested", [Task(2, True, "nested")]),
        ("- - [ ] inner", [Task(1, False, "inner")]),
        ("- [ ] - [x] both", [Task(1, False, ""), Task(1, True, "both")]),
        ("- [x] ", [Task(1, True, "")]),
        ("text[^1]\n\n[^1]: note\n    - [ ] in a footnote", [Task(4, False, "in a footnote")]),
        ("\ufeff- [ ] after a BOM", [Task(1, False, "after a BOM")]),
        ("- a\r\n- [ ] crlf\r\n", [Task(2, False, "crlf")]),
        ("- a\r- [ ] cr", [Task(2, False, "cr")]),
        ("a\u2028b\n- [ ] t", [Task(2, False, "t")]),
        (
            "- [ ] a\n- [x] b\n\n1. [X] c",
            [Task(1, False, "a"), Task(2, True, "b"), Task(4, True, "c")],
        ),
    ],
)
def test_a_list_item_starting_with_a_box_is_a_task(source: str, tasks: list[Task]) -> None:
    assert extract_tasks(source) == tasks


@pytest.mark.parametrize(
    "source",
    [
        "",
        "- [x]",
        "- [ ]",
        "- [x]\n- [ ]",
        "[ ] not in a list",
        "- [y] other mark",
        "- [  ] two spaces",
        "- [x]no space",
        "- [ x ] spaced",
        "-[ ] no space after the dash",
        "```\n- [ ] fenced\n```",
        "~~~\n- [ ] fenced\n~~~",
        "```\n- [ ] unclosed fence runs to the end",
        "    - [ ] indented code",
        "-     [ ] code in an item",
        "---\n- [ ] front matter\n---\n",
        "<div>\n- [ ] html block\n</div>",
        "`- [ ] code span`",
        "$$\n- [ ] math\n$$",
        "a paragraph\n[ ] continued",
    ],
)
def test_a_line_the_page_shows_without_a_checkbox_is_no_task(source: str) -> None:
    assert extract_tasks(source) == []


def test_a_thematic_break_that_opens_no_front_matter_hides_no_tasks() -> None:
    assert extract_tasks("---\n- [ ] t\n") == [Task(2, False, "t")]


@pytest.mark.parametrize(
    ("source", "line", "checked", "result"),
    [
        ("- [ ] t", 1, True, "- [x] t"),
        ("- [x] t", 1, False, "- [ ] t"),
        ("- [X] t", 1, False, "- [ ] t"),
        ("- [X] t", 1, True, "- [X] t"),
        ("- [ ] t", 1, False, "- [ ] t"),
        ("a\n\n> - [ ] q", 3, True, "a\n\n> - [x] q"),
        ("1. [ ] [ ] t", 1, True, "1. [x] [ ] t"),
        ("- - [ ] inner", 1, True, "- - [x] inner"),
        ("- [ ] - [ ] t", 1, True, "- [x] - [ ] t"),
        ("x[^1]\n\n[^1]: - [ ] t", 3, True, "x[^1]\n\n[^1]: - [x] t"),
        ("x[^a]\n\n> [^a]: 1. [ ] t", 3, True, "x[^a]\n\n> [^a]: 1. [x] t"),
        ("\ufeff- [ ] t", 1, True, "\ufeff- [x] t"),
        ("- a\r\n- [ ] t\r\n", 2, True, "- a\r\n- [x] t\r\n"),
        ("- a\r- [x] t", 2, False, "- a\r- [ ] t"),
        ("-\t[ ]\tt  ", 1, True, "-\t[x]\tt  "),
        ("- [ ] a\n- [ ] b\n- [ ] c", 2, True, "- [ ] a\n- [x] b\n- [ ] c"),
    ],
)
def test_toggling_changes_only_the_box_character(
    source: str, line: int, checked: bool, result: str
) -> None:
    assert toggle_task(source, line, checked) == result


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("- [ ] t", 0),
        ("- [ ] t", -1),
        ("- [ ] t", 2),
        ("- [ ] t", 10**30),
        ("text", 1),
        ("", 1),
        ("- [x]", 1),
        ("- [ ] a\n  b", 2),
        ("```\n- [ ] code\n```", 2),
        ("---\n- [ ] fm\n---", 2),
    ],
)
def test_toggling_a_line_without_a_task_is_refused(source: str, line: int) -> None:
    with pytest.raises(InvalidArgument, match=f"Line {line} holds no task checkbox"):
        toggle_task(source, line, True)


@pytest.mark.parametrize("source", [None, b"- [ ] t", 1])
def test_tasks_are_read_only_from_text(source: object) -> None:
    with pytest.raises(InvalidArgument, match="decode the document"):
        extract_tasks(source)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="decode the document"):
        toggle_task(source, 1, True)  # type: ignore[arg-type]


@pytest.mark.parametrize(("line", "checked"), [("1", True), (1.0, True), (True, True), (1, "x")])
def test_toggling_with_arguments_of_the_wrong_type_is_refused(
    line: object, checked: object
) -> None:
    with pytest.raises(InvalidArgument):
        toggle_task("- [ ] t", line, checked)  # type: ignore[arg-type]
