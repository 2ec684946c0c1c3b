"""Structural metadata of a document: front matter, headings, wikilinks, images, word count.

Owns what ``export_metadata`` reports, read from one parse of the document. It does not decide
syntax (the parser does), which headings count (``titles``) or what a word is (``text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quire.core.errors import InvalidArgument
from quire.markdown.frontmatter import JsonValue, parse_front_matter
from quire.markdown.parser import WIKILINK, parse, split_wikilink
from quire.markdown.text import export_text_from_tokens
from quire.markdown.titles import atx_headings

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from markdown_it.token import Token


@dataclass(frozen=True)
class Heading:
    """One ATX heading: its level (1 to 6) and its text without the ``#`` marks."""

    level: int
    text: str


@dataclass(frozen=True)
class WikilinkHeading:
    """The note and the heading in it that a ``[[target#heading]]`` link points to."""

    target: str
    heading: str


@dataclass(frozen=True)
class Metadata:
    """What ``export_metadata`` reports; the field names are the keys agents read.

    ``frontmatter`` is None when the document has no closed front matter block.
    """

    frontmatter: dict[str, JsonValue] | None
    headings: list[Heading]
    wikilinks: list[str]
    wikilink_headings: list[WikilinkHeading]
    embedded_image_count: int
    word_count: int


def export_metadata(source: str) -> Metadata:
    """Structural metadata of the Markdown ``source`` (a leading byte order mark ignored).

    - ``headings``: every ATX heading at the top level, as ``titles.atx_headings`` lists them.
    - ``wikilinks``: the distinct ``[[target]]`` targets, sorted, from the text the page
      renders (not code, code spans or math) and from front matter property values; the
      target is the note without its ``#heading`` or ``|alias``; ``[[#heading]]`` (this note)
      is not listed. A ``![[embed]]`` in the text is counted as an image, not listed here.
    - ``wikilink_headings``: the distinct (target, heading) of ``[[target#heading]]`` links,
      sorted by target then heading.
    - ``embedded_image_count``: ``![alt](destination)`` images and ``![[embed]]`` embeds the
      page renders (front matter is not rendered, so none are counted there).
    - ``word_count``: the number ``export_text`` gives.

    Raises InvalidArgument when ``source`` is not a ``str``.
    """
    if not isinstance(source, str):
        raise InvalidArgument(
            f"export_metadata reads text, not {type(source).__name__}: "
            "decode the document as UTF-8 and pass the string.",
            argument="source",
        )
    tokens = parse(source)
    frontmatter = None
    links: set[tuple[str, str | None]] = set()
    if tokens and tokens[0].type == "front_matter":
        frontmatter = parse_front_matter(tokens[0].content)
        links.update(_property_links(frontmatter))
    images = 0
    for child in _rendered_inline(tokens):
        if child.type == "image":
            images += 1
        elif child.type == "wikilink":
            if child.meta["embed"]:
                images += 1
            else:
                links.add((child.meta["target"], child.meta["heading"]))
    return Metadata(
        frontmatter=frontmatter,
        headings=[Heading(level=level, text=text) for level, text in atx_headings(tokens)],
        wikilinks=sorted({target for target, _ in links if target}),
        wikilink_headings=[
            WikilinkHeading(target=target, heading=heading)
            for target, heading in sorted(
                {(target, heading) for target, heading in links if target and heading}
            )
        ],
        embedded_image_count=images,
        word_count=export_text_from_tokens(tokens).word_count,
    )


def _rendered_inline(tokens: Sequence[Token]) -> Iterator[Token]:
    """The inline tokens a page renders, outside an image's alt text.

    Only an inline block holding a ``[`` can hold an image or a wikilink, so the others are
    not walked (the walk is most of this module's cost on a large document).
    """
    for token in tokens:
        if token.type == "inline" and token.children and "[" in token.content:
            yield from token.children


def _property_links(value: JsonValue) -> Iterator[tuple[str, str | None]]:
    """(target, heading) of each ``[[link]]`` written in a property value, at any depth."""
    if isinstance(value, str):
        for match in WIKILINK.finditer(value):
            if match[2].strip():
                target, heading, _ = split_wikilink(match[2])
                yield target, heading
    elif isinstance(value, list):
        for item in value:
            yield from _property_links(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _property_links(item)
