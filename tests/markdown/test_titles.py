"""Document titles (first top-level level 1 ATX heading) and plain-text previews."""

from __future__ import annotations

import pytest

from quire.core.errors import InvalidArgument
from quire.markdown.parser import parse_blocks
from quire.markdown.text import export_text
from quire.markdown.titles import (
    PREVIEW_WINDOW,
    TITLE_WINDOW,
    atx_headings,
    document_preview,
    document_title,
)


@pytest.mark.parametrize(
    ("source", "title"),
    [
        ("# Title\n\ntext", "Title"),
        ("intro\n\n# Later title", "Later title"),
        ("## Not level 1\n# Title", "Title"),
        ("   # Three spaces", "Three spaces"),
        ("#\tTab after", "Tab after"),
        ("# Closing hashes ##", "Closing hashes"),
        ("# Closing hashes #   ", "Closing hashes"),
        ("# Kept#", "Kept#"),
        ("# **Bold** title", "**Bold** title"),
        ("#\n# Real", "Real"),
        ("# #\n# Real", "Real"),
        ("\ufeff# After a BOM", "After a BOM"),
        ("---\ntitle: x\n---\n# After front matter", "After front matter"),
        ("---\n# Not front matter\n", "Not front matter"),
        ("paragraph\n# Interrupts it", "Interrupts it"),
        ("- x\n\n# Outside the list", "Outside the list"),
        ("> quote\n\n# After the quote", "After the quote"),
        ("```\ncode\n```\n# After code", "After code"),
        ("# First\n# Second", "First"),
        ("# Title\r\nbody", "Title"),
    ],
)
def test_the_title_is_the_first_top_level_level_1_atx_heading(source: str, title: str) -> None:
    assert document_title(source, "file.md") == title


@pytest.mark.parametrize(
    "source",
    [
        "",
        "no heading",
        "    # four spaces is code",
        "#No space",
        "#",
        "# ",
        "## Level 2",
        "Setext title\n===",
        "---\n# In front matter\n---\n",
        "```\n# In fenced code\n```",
        "~~~\n# In fenced code\n~~~",
        "```\n# In an unclosed fence",
        "> # In a blockquote",
        "> [!NOTE]\n> # In an alert",
        "- # In a list item",
        "1. # In an ordered item",
        "- x\n\n  # On the item's continuation line",
        "<div>\n# In an HTML block\n</div>",
        "text[^1]\n\n[^1]: # In a footnote",
        "\\# Escaped",
    ],
)
def test_without_a_title_the_file_name_without_its_extension_is_used(source: str) -> None:
    assert document_title(source, "My Notes.md") == "My Notes"


@pytest.mark.parametrize(
    ("file_name", "title"),
    [
        ("notes.md", "notes"),
        ("archive.v2.markdown", "archive.v2"),
        ("folder/notes.md", "notes"),
        ("no-extension", "no-extension"),
        (".md", ".md"),
        ("", ""),
    ],
)
def test_the_file_name_fallback_drops_only_the_last_extension(file_name: str, title: str) -> None:
    assert document_title("", file_name) == title


def test_a_title_far_into_a_long_document_is_found() -> None:
    filler = "word " * (TITLE_WINDOW // 5) + "\n\n"
    assert document_title(filler * 3 + "# Far title\n", "x.md") == "Far title"


def test_a_long_front_matter_does_not_hide_the_title_after_it() -> None:
    front = "---\n" + "".join(f"k{n}: # {n}\n" for n in range(TITLE_WINDOW // 8)) + "---\n"
    assert document_title(front + "# Title\n", "x.md") == "Title"


def test_a_table_header_row_at_the_window_edge_is_no_title() -> None:
    # The window ends on the `# a | bc` line: only the line after it shows it is a table.
    filler = "x" * (TITLE_WINDOW - 10) + "\n\n"
    source = filler + "# a | bc\n--|--\n\n# Title\n"
    assert source.index("\n", TITLE_WINDOW) == len(filler) + len("# a | bc")
    assert document_title(source, "x.md") == "Title"


@pytest.mark.parametrize(
    ("source", "headings"),
    [
        ("# One\n## Two\n###### Six\n####### Seven", [(1, "One"), (2, "Two"), (6, "Six")]),
        ("Setext\n===\n\nAlso\n---", []),
        ("# A\n\n> # B\n\n- # C\n\n# D", [(1, "A"), (1, "D")]),
    ],
)
def test_atx_headings_are_listed_in_order_at_the_top_level(
    source: str, headings: list[tuple[int, str]]
) -> None:
    assert list(atx_headings(parse_blocks(source))) == headings


@pytest.mark.parametrize(
    ("source", "limit", "preview"),
    [
        ("# Title\n\nSome **bold** text.", 200, "Title\n\nSome bold text."),
        ("---\ntitle: x\n---\nBody text", 200, "Body text"),
        ("abcdef", 3, "abc"),
        ("abcdef", 0, ""),
        ("", 200, ""),
        ("[[Plan|the plan]] and `code`", 200, "the plan and code"),
        ("é" * 300, 200, "é" * 200),
    ],
)
def test_the_preview_is_the_start_of_the_plain_text(source: str, limit: int, preview: str) -> None:
    assert document_preview(source, limit) == preview


def test_the_default_preview_is_200_characters() -> None:
    assert document_preview("word " * 100) == ("word " * 100)[:200]


def test_a_long_document_previews_the_same_as_its_whole_text() -> None:
    paragraph = "A *paragraph* with [a link](https://x.org) and `code`.\n\n"
    source = "# Title\n\n" + paragraph * (2 * PREVIEW_WINDOW // len(paragraph))
    assert document_preview(source, 500) == export_text(source).text[:500]


def test_a_long_document_with_little_text_up_front_reads_on() -> None:
    source = "<!--\n" + "hidden\n" * (PREVIEW_WINDOW // 4) + "-->\n\nVisible text.\n\n"
    assert document_preview(source) == "Visible text."


@pytest.mark.parametrize(("source", "file_name"), [(b"# T", "a.md"), ("# T", b"a.md"), (None, "")])
def test_a_title_is_read_only_from_text(source: object, file_name: object) -> None:
    with pytest.raises(InvalidArgument, match="must be text"):
        document_title(source, file_name)  # type: ignore[arg-type]


@pytest.mark.parametrize("source", [b"text", None])
def test_a_preview_is_read_only_from_text(source: object) -> None:
    with pytest.raises(InvalidArgument, match="must be text"):
        document_preview(source)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [-1, True, 2.5, "200", None])
def test_a_preview_length_that_is_not_a_whole_number_from_0_is_refused(limit: object) -> None:
    with pytest.raises(InvalidArgument, match="preview length"):
        document_preview("text", limit)  # type: ignore[arg-type]
