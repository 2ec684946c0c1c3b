"""Where a long document's first part ends: at a heading outside fences, math and front
matter, so the part renders as the same blocks as the start of the whole document."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.markdown.head import HEAD_CHARS, head_end
from quire.markdown.render import render

FILLER = "Some words to fill the document up.\n\n"


def doc(*parts: str) -> str:
    return "".join(parts)


def small(text: str) -> int | None:
    """head_end with tiny thresholds, so the cases stay readable."""
    return head_end(text, at_least=10, long=20)


@pytest.mark.parametrize(
    ("text", "cut_before"),
    [
        (doc("# Title\n\n", FILLER, "## Next\n\nbody\n"), "## Next"),
        (doc("# Title\n\n", FILLER, "###### Six\n"), "###### Six"),
        (doc("# Title\n\n", FILLER, "#\n\nempty heading\n"), "#\n\nempty"),
        (doc("# Title\r\n\r\n", FILLER, "## Crlf\r\nbody\r\n"), "## Crlf"),
        (doc("# Title\n\n", FILLER, "```\n\n## in code\n```\n\n## After code\n"), "## After code"),
        (doc("# T\n\n", FILLER, "````md\n```\n\n## x\n```\n````\n\n## After\n"), "## After"),
        (doc("# T\n\n", FILLER, "~~~\n\n## x\n```\n~~~\n\n## After tilde\n"), "## After tilde"),
        (doc("# T\n\n", FILLER, "$$\n\n## not a heading\n$$\n\n## After math\n"), "## After math"),
        (doc("# T\n\n", FILLER, "$$ x = 1 $$\n\n## Right after\n"), "## Right after"),
        (doc("# T\n\n", FILLER, "<!--\n\n## hidden\n-->\n\n## Shown\n"), "## Shown"),
        (doc("# T\n\n", FILLER, "<PRE>\n\n## raw\n</pre>\n\n## Next\n"), "## Next"),
        (doc("# T\n\n", FILLER, "<!-- one line -->\n\n## Next\n"), "## Next"),
        (doc("---\ntitle: x\n\n# in front\n---\n", FILLER, "## Body\n"), "## Body"),
        (doc("\ufeff---\na: b\n...\n", FILLER, "## After dots\n"), "## After dots"),
        (doc("- item\n", FILLER, "- item\n  continued\n\n# Ends the list\n"), "# Ends the list"),
    ],
)
def test_the_cut_is_the_first_heading_past_the_least_size(text: str, cut_before: str) -> None:
    assert small(text) == text.index(cut_before, 10)


@pytest.mark.parametrize(
    "text",
    [
        doc("# Title\n\n", FILLER, "no heading follows\n"),
        doc("# Title\n\n", FILLER, "```\n## inside a fence that never closes\n"),
        doc("# Title\n\n", FILLER, "    ## indented code\n"),
        doc("# Title\n\n", FILLER, "#hashtag is not a heading\n"),
        doc("# Title\n\n", FILLER, "####### seven is not a heading\n"),
        doc("# Title\n\n", FILLER, "text ## mid-line\n"),
        doc("# Title\n\n", FILLER, "right after text\n## Heading\n"),
        doc("# Title\n\n", FILLER, "<div>\n## in a html block\n</div>\n"),
        doc("# Title\n\n", FILLER, "<!--\n\n## in a comment that never closes\n"),
        doc("# Title\n\n", FILLER, "<script>\n\n## in a script\n"),
        doc("# Title\n\n", FILLER, "> ## quoted\n"),
        doc("# Title\n\n", FILLER, "$$\n## inside math that never closes\n"),
        doc("---\n", FILLER, "## inside front matter\n---\n"),
        "",
        "# Short\n",
    ],
)
def test_no_cut_without_a_heading_outside_blocks(text: str) -> None:
    assert small(text) is None


def test_a_heading_before_the_least_size_is_not_a_cut() -> None:
    text = "# One\n\n## Two\n\n" + FILLER * 3 + "## Three\n"
    assert small(text) == text.index("## Three")


def test_short_documents_are_never_cut() -> None:
    text = "# A\n\n" + FILLER * 10 + "## B\n"
    assert head_end(text, at_least=10, long=len(text) + 1) is None
    assert head_end(text, at_least=10, long=len(text)) == text.index("## B")


def test_a_heading_too_far_past_the_least_size_is_not_looked_for() -> None:
    text = "# A\n\n" + "x" * (300 * 1024) + "\n\n## Far\n"
    assert head_end(text, at_least=10, long=20) is None


def test_a_megabyte_document_is_cut_near_the_default_size() -> None:
    section = "## Part\n\n" + FILLER * 20
    text = "# Big\n\n" + section * (1024 * 1024 // len(section))
    cut = head_end(text)
    assert cut is not None
    assert HEAD_CHARS <= cut < HEAD_CHARS + len(section)


BLOCKS = st.sampled_from(
    [
        "# Heading\n",
        "## Sub heading\n",
        "A paragraph with **bold** and `code`.\n",
        "- item\n- item two\n",
        "1. first\n2. second\n",
        "> quoted\n",
        "```python\n# comment\nx = 1\n```\n",
        "~~~\n## fenced\n~~~\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        "- [ ] task\n",
        "$$\nx^2\n$$\n",
        "---\n",
        "    indented code\n",
        "text\n# heading right after text\n",
        "<div>\n# in html\n</div>\n",
        "<!--\n\n# in a comment\n-->\n",
        "<pre>\n\n# in pre\n</pre>\n",
        "[ref]: https://example.com\n",
    ]
)


@given(st.lists(BLOCKS, min_size=1, max_size=40), st.integers(min_value=0, max_value=400))
def test_the_part_renders_as_the_start_of_the_whole(blocks: list[str], at_least: int) -> None:
    text = "\n".join(blocks)
    cut = head_end(text, at_least=at_least, long=0)
    if cut is None:
        return
    assert render(text).html.startswith(render(text[:cut]).html)
