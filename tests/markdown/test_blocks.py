"""The block split: exactly the renderer's top-level blocks, and the same after an edit when
only a window around the change is parsed again."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quire.markdown.blocks import (
    Block,
    common_prefix,
    common_suffix,
    line_starts,
    normalize,
    resplit,
    split,
)

# Pieces of Markdown whose meaning depends on what is around them: setext underlines, lazy
# continuation, fences and raw HTML left open, list items across blank lines, front matter.
PIECES = st.sampled_from(
    [
        "\n", "\n\n", "para text", "# Heading\n", "## Heading\n", "Title\n===\n", "---\n",
        "- item\n", "  continued\n", "1. one\n", "- [ ] task\n", "- [x] done\n", "> quote\n",
        "lazy line\n", "```python\nx = 1\n", "```\n", "~~~\n", "    indented code\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n", "<div>\n", "</div>\n", "<details>\n",
        "</details>\n", "<!-- note\n", "-->\n", "$$\nx^2\n$$\n", "[^1]\n", "[^1]: note\n",
        "[ref]: /url\n", "[ref]\n", "<b>bold", "</b>", "**strong**", "$x$", "[[Wiki]]",
        "---\ntitle: x\n---\n", "> [!NOTE]\n> alert\n", "***\n", "\t- tab item\n", "\r\n",
    ]
)  # fmt: skip

DOCUMENTS = st.lists(PIECES, max_size=30).map("".join)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str]:
    """A document and the same document with a few pieces inserted, deleted or replaced."""
    text = draw(DOCUMENTS)
    edited = text
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(edited)))
        end = draw(st.integers(start, min(len(edited), start + 20)))
        edited = edited[:start] + draw(st.one_of(st.just(""), PIECES)) + edited[end:]
    return text, edited


def test_a_document_splits_into_its_top_level_blocks() -> None:
    text = "---\ntitle: x\n---\n# A\n\npara\nlazy\n\n- one\n\n  two\n- three\n\n```\nx\n\ny\n```\n"
    blocks = split(text).blocks
    assert [(block.start, block.end) for block in blocks] == [(0, 3), (3, 4), (5, 7), (8, 13),
                                                              (13, 18)]  # fmt: skip
    assert blocks[2] == Block(5, 7, "para\nlazy\n")
    assert split(text).independent


def test_references_and_footnotes_tie_blocks_together() -> None:
    assert not split("[a]\n\n[a]: /u\n").independent
    assert not split("a[^1]\n\n[^1]: b\n").independent
    assert split("a [link](/u) and [^not a footnote\n").independent


def test_an_edit_that_opens_a_fence_reparses_to_the_end() -> None:
    old = split("# A\n\npara\n\n# B\n\ntext\n")
    new = resplit(old, "# A\n\n```\npara\n\n# B\n\ntext\n")
    assert [(block.start, block.end) for block in new.blocks] == [(0, 1), (2, 8)]


def test_an_edit_inside_one_block_parses_only_a_window() -> None:
    text = "".join(f"# H{number}\n\npara {number}\n\n" for number in range(200))
    old = split(text)
    new = resplit(old.bare(), text.replace("para 100", "para one hundred"))
    assert len(new.fresh) < 6
    assert new.blocks == split(new.text).blocks


def test_line_starts_end_with_the_length() -> None:
    assert line_starts("") == (0,)
    assert line_starts("a\nb") == (0, 2, 3)
    assert line_starts("a\nb\n") == (0, 2, 4)


@given(
    st.text(alphabet="ab\n", max_size=40),
    st.text(alphabet="ab\n", max_size=40),
    st.integers(0, 9000),
    st.integers(0, 9000),
)
def test_common_prefix_and_suffix_are_exact(a: str, b: str, head: int, tail: int) -> None:
    # Shared runs longer than a compared chunk (4096) reach the chunked path.
    a, b = "a" * head + a + "b" * tail, "a" * head + b + "b" * tail
    prefix = common_prefix(a, b)
    assert a[:prefix] == b[:prefix]
    assert prefix == min(len(a), len(b)) or a[prefix] != b[prefix]
    limit = min(len(a), len(b)) - prefix
    suffix = common_suffix(a, b, prefix)
    assert suffix <= limit
    assert a[len(a) - suffix :] == b[len(b) - suffix :]
    assert suffix == limit or a[len(a) - suffix - 1] != b[len(b) - suffix - 1]


@given(edits())
def test_resplitting_after_an_edit_gives_the_blocks_of_a_whole_split(pair: tuple[str, str]) -> None:
    before, after = (normalize(text) for text in pair)
    old = split(before)
    new = resplit(old.bare(), after)
    whole = split(after)
    assert new.independent == whole.independent
    if whole.independent:
        assert new.blocks == whole.blocks
