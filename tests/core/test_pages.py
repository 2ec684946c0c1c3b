"""Pages of a long text or list: cut at a line (or item) boundary, never over the budget."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.core.errors import InvalidArgument
from quire.core.pages import Page, items_within, line_count, page_of


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2), ("a\r\nb\r\n", 2), ("\u2028x", 1)],
)
def test_lines_are_counted_by_lf_with_an_unfinished_last_line(text: str, lines: int) -> None:
    assert line_count(text) == lines


def test_a_short_text_is_one_whole_page() -> None:
    page = page_of("a\nb\n")
    assert page == Page("a\nb\n", 1, 2, 2)
    assert page.is_whole and page.remaining == 0


def test_a_long_text_is_cut_after_a_line_break_within_the_budget() -> None:
    text = "".join(f"line {n:04}\n" for n in range(1, 1001))  # 10 characters a line
    page = page_of(text, budget=95)
    assert page.text == text[:90] and page.text.endswith("\n")
    assert (page.first, page.count, page.next_offset, page.remaining) == (1, 9, 10, 991)
    after = page_of(text, page.next_offset, budget=95)
    assert after.text.startswith("line 0010\n")


def test_limit_and_offset_pick_lines_and_the_last_page_has_nothing_left() -> None:
    text = "a\nb\nc\nd"
    assert page_of(text, 2, 2).text == "b\nc\n"
    last = page_of(text, 4)
    assert (last.text, last.remaining, last.is_whole) == ("d", 0, False)


def test_a_line_longer_than_the_budget_is_cut_and_named() -> None:
    page = page_of("x" * 50 + "\nnext\n", budget=20)
    assert (page.text, page.cut_line, page.next_offset, page.remaining) == ("x" * 20, 1, 2, 1)


@pytest.mark.parametrize("offset", [0, -1, 3, 10**9])
def test_an_offset_outside_the_text_is_refused_naming_the_range(offset: int) -> None:
    with pytest.raises(InvalidArgument, match="from 1 to 2") as raised:
        page_of("a\nb", offset)
    assert raised.value.argument == "offset"


def test_the_empty_text_has_one_empty_page() -> None:
    assert page_of("") == Page("", 1, 0, 0)


@given(st.text(alphabet="ab\n\r", max_size=300), st.integers(1, 60))
def test_pages_read_in_turn_give_back_the_text_and_stay_in_budget(text: str, budget: int) -> None:
    offset, parts = 1, []
    while True:
        page = page_of(text, offset, budget=budget)
        assert len(page.text) <= budget
        assert page.cut_line is not None or page.text.endswith("\n") or page.remaining == 0
        parts.append(page.text)
        if page.remaining == 0:
            break
        offset = page.next_offset
    if all(len(line) + 1 <= budget for line in text.split("\n")):
        assert "".join(parts) == text


def test_items_fit_the_budget_but_at_least_one_is_taken() -> None:
    assert items_within([10, 10, 10], 25) == 2
    assert items_within([100, 1], 25) == 1
    assert items_within([], 25) == 0
    assert items_within([5, 5], 10) == 2
