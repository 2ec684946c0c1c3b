"""export_metadata: front matter, headings, wikilinks, images and the word count."""

from __future__ import annotations

import pytest

from quire.core.errors import InvalidArgument
from quire.markdown.frontmatter import JsonValue
from quire.markdown.metadata import Heading, WikilinkHeading, export_metadata
from quire.markdown.text import export_text


@pytest.mark.parametrize(
    ("source", "frontmatter"),
    [
        ("---\ntitle: A\ntags: [a, b]\n---\nbody", {"title": "A", "tags": ["a", "b"]}),
        ("\ufeff---\ntitle: A\n---\n", {"title": "A"}),
        ("---\ntitle: A\n...\n", {"title": "A"}),
        ("---\n---\n", {}),
        ("---\ntitle: A\n", None),
        ("--- \ntitle: A\n---x\n", None),
        ("body only", None),
        ("", None),
    ],
)
def test_front_matter_is_read_from_a_closed_leading_block(
    source: str, frontmatter: dict[str, JsonValue] | None
) -> None:
    assert export_metadata(source).frontmatter == frontmatter


@pytest.mark.parametrize(
    ("source", "headings"),
    [
        ("# One\n## Two\n### Three ###", [(1, "One"), (2, "Two"), (3, "Three")]),
        ("#\n# \n## ##\n# Kept", [(1, "Kept")]),
        ("   # Three spaces\n    # Four is code", [(1, "Three spaces")]),
        ("#Tag\n#\tTab", [(1, "Tab")]),
        ("---\n# comment: x\n---\n# Real", [(1, "Real")]),
        (" ---\n# Visible\n---\n", [(1, "Visible")]),
        ("---\n# Visible\n--- x\n", [(1, "Visible")]),
        ("\ufeff---\n# comment\n---\n# Real", [(1, "Real")]),
        ("```\n# code\n~~~\n# still code\n```\n# After", [(1, "After")]),
        ("~~~\n# code\n```\n# still code\n~~~~\n# After", [(1, "After")]),
        ("````\n# code\n```\n# still code", []),
        ("> # Quote\n\n> [!TIP]\n> # Alert", []),
        ("- # Step\n1. # Ordered", []),
        ("- x\n\n  # Sub", []),
        ("- x\n\n# Outside", [(1, "Outside")]),
        ("Setext\n===\n\nTwo\n---", []),
        ("text[^1]\n\n[^1]: # Footnote", []),
        ("<div>\n# html\n</div>", []),
        ("# A [[Link]] and `code`", [(1, "A [[Link]] and `code`")]),
    ],
)
def test_headings_are_every_top_level_atx_heading(
    source: str, headings: list[tuple[int, str]]
) -> None:
    assert export_metadata(source).headings == [Heading(level, text) for level, text in headings]


@pytest.mark.parametrize(
    ("source", "wikilinks"),
    [
        ("[[Plan]] and [[Alpha]] and [[Plan]]", ["Alpha", "Plan"]),
        ("[[Plan#Goals]]", ["Plan"]),
        ("[[Plan|the plan]] [[Other#H|alias]]", ["Other", "Plan"]),
        ("[[ Spaced ]]", ["Spaced"]),
        ("[[#Goals]]", []),
        ("[[a]b]]", []),
        ("[[a\nb]]", []),
        ("[[open\n\n[[Real]]", ["Real"]),
        ("[[open\nand [[Real]]\nclosed]]", ["Real"]),
        ("[[]] [[ ]]", []),
        ("`[[code span]]`", []),
        ("```\n[[fenced]]\n```", []),
        ("~~~\n[[fenced]]\n```\n[[still fenced]]\n~~~", []),
        ("    [[indented code]]", []),
        ("$[[math]]$", []),
        ("[see [[Inner]]](https://x.org)", []),
        ("![[image.png]]", []),
        ("> [[Quoted]]\n- [[Listed]]", ["Listed", "Quoted"]),
        ("| [[Cell]] | b |\n|---|---|", ["Cell"]),
        ("# [[In heading]]", ["In heading"]),
        ("\\[[escaped]]", []),
        ('---\nrelated: "[[Plan]]"\n---\n', ["Plan"]),
        ('---\nrelated:\n  - "[[A#H]]"\n  - "[[B|b]]"\n---\n', ["A", "B"]),
        ("---\nup: '[[Up]] and [[#Here]]'\nnested:\n  x: \"[[Deep]]\"\n---\n", ["Deep", "Up"]),
        ("---\nrelated: [[Plan]]\n---\n", []),
        ('---\n"[[Key]]": x\n---\n', []),
        ("---\n# [[Comment]]\n---\n", []),
    ],
)
def test_wikilinks_are_the_distinct_sorted_targets_outside_code(
    source: str, wikilinks: list[str]
) -> None:
    assert export_metadata(source).wikilinks == wikilinks


@pytest.mark.parametrize(
    ("source", "pairs"),
    [
        ("[[Plan#Goals]] [[Plan#Aims]] [[Plan#Goals]]", [("Plan", "Aims"), ("Plan", "Goals")]),
        ("[[B#x]] [[A#y|alias]]", [("A", "y"), ("B", "x")]),
        ("[[Plan]] [[Plan#]] [[#Goals]]", []),
        ('---\nrel: "[[Doc#Part]]"\n---\n', [("Doc", "Part")]),
        ("`[[Code#H]]`", []),
    ],
)
def test_wikilink_headings_are_distinct_target_heading_pairs_sorted(
    source: str, pairs: list[tuple[str, str]]
) -> None:
    assert export_metadata(source).wikilink_headings == [
        WikilinkHeading(target, heading) for target, heading in pairs
    ]


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("![alt](a.png)", 1),
        ('![alt](<a b.png> "title")', 1),
        ("![a](b c)", 0),
        ("![alt]", 0),
        ("![alt][ref]\n\n[ref]: /x.png", 1),
        ("![[a.png]] ![[Note]]", 2),
        ("![[open\n]]", 0),
        ("[![badge](b.svg)](https://x.org)", 1),
        ("`![a](b.png)`", 0),
        ("```\n![a](b.png)\n```", 0),
        ("    ![a](b.png)", 0),
        ('---\nimage: "![a](b.png)"\ncover: "![[c.png]]"\n---\n', 0),
        ("> ![a](b.png)\n- ![[c.png]]", 2),
        ("$![a](b.png)$", 0),
    ],
)
def test_images_and_embeds_the_page_renders_are_counted(source: str, count: int) -> None:
    assert export_metadata(source).embedded_image_count == count


@pytest.mark.parametrize(
    "source",
    [
        "",
        "one two three",
        "---\ntitle: Not counted\n---\nOnly these four words",
        "# Title\n\n- [ ] a task\n\n```\ncode words here\n```\n\n[[Plan|the plan]]",
        "| a | b |\n|---|---|\n| c | d |",
    ],
)
def test_the_word_count_is_the_one_export_text_gives(source: str) -> None:
    assert export_metadata(source).word_count == export_text(source).word_count


def test_a_source_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="decode the document"):
        export_metadata(b"# bytes")  # type: ignore[arg-type]
