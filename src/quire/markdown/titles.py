"""A document's headings as an outline lists them, its title and its short preview.

Owns which headings count (ATX headings at the top level of the document) and how a title
and a preview are chosen. It reads tokens from ``quire.markdown.parser``, never the syntax.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import TYPE_CHECKING

from quire.core.errors import InvalidArgument
from quire.markdown.frontmatter import front_matter_span
from quire.markdown.parser import parse_blocks
from quire.markdown.text import export_text

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from markdown_it.token import Token

TITLE_WINDOW = 64 * 1024
"""Characters read first when looking for a title; the rest only when they hold none."""

PREVIEW_WINDOW = 64 * 1024
"""Characters a preview is read from, at least (see ``document_preview``)."""

_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


def atx_headings(tokens: Sequence[Token]) -> Iterator[tuple[int, str]]:
    """(level, text) of each ATX heading at the top level of the document, in order.

    Top level leaves out headings in front matter, code, blockquotes (alerts too), list items
    and footnote definitions, as an outline does. Setext headings (a line underlined with
    ``===`` or ``---``) are not listed. The text is the heading's Markdown source without its
    ``#`` marks and closing ``#`` sequence; a heading with no text is left out.
    """
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.markup.startswith("#"):
            text = tokens[index + 1].content
            if text:
                yield len(token.markup), text


def document_title(source: str, file_name: str) -> str:
    """The text of the document's first level 1 ATX heading, else the file's name without its
    extension (and without any folder ``file_name`` names).

    The heading is one ``atx_headings`` lists: at most three spaces before its ``#``, a space,
    a tab or the end of the line after it, outside front matter, code, blockquotes and list
    items, with its closing ``#`` sequence dropped.
    """
    _require_text(source, "source")
    _require_text(file_name, "file_name")
    title = _first_title(source, TITLE_WINDOW)
    return title if title is not None else PurePath(file_name).stem


def document_preview(source: str, limit: int = 200) -> str:
    """The first ``limit`` characters of the document's plain text, as ``export_text`` reads it
    (front matter and Markdown syntax left out, line breaks kept).

    A long document (past ``PREVIEW_WINDOW`` characters, or 16 per character asked for) is
    read up to the first blank line past that point, so a preview of a large file costs about
    as much as one of a small file: a link definition or footnote written further down is not
    looked up for it. When that part holds too little text, the whole document is read.
    """
    _require_text(source, "source")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidArgument(
            f"The preview length must be a whole number of characters, 0 or more (got {limit!r}).",
            argument="limit",
        )
    prefix = _prefix(source, max(PREVIEW_WINDOW, 16 * limit), paragraph=True)
    if prefix is not None:
        text = export_text(prefix).text
        if len(text) > limit:
            return text[:limit]
    return export_text(source).text[:limit]


def _require_text(value: object, argument: str) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"{argument} must be text, not {type(value).__name__}: "
            "decode the document as UTF-8 and pass the string.",
            argument=argument,
        )


def _first_title(source: str, window: int) -> str | None:
    """The first title, reading the first ``window`` characters and, if need be, the rest.

    Block structure is read top-down: whether a line is a top-level ATX heading depends on the
    lines before it and on the one after it (a table's header row), so a heading found with a
    line after it in the prefix is the one the whole document has.
    """
    prefix = _prefix(source, window, paragraph=False)
    if prefix is not None:
        lines_read = prefix.count("\n")
        tokens = parse_blocks(prefix)
        for token_index, token in enumerate(tokens):
            if token.map is not None and token.map[0] + 1 >= lines_read:
                break
            heading = _title_at(tokens, token_index)
            if heading is not None:
                return heading
    return next((text for level, text in atx_headings(parse_blocks(source)) if level == 1), None)


def _title_at(tokens: Sequence[Token], index: int) -> str | None:
    token = tokens[index]
    if token.type == "heading_open" and token.level == 0 and token.markup == "#":
        return tokens[index + 1].content or None
    return None


def _prefix(source: str, window: int, *, paragraph: bool) -> str | None:
    """``source`` up to a line break at least ``window`` characters in, past any front matter.

    With ``paragraph`` the cut is at a blank line when there is one. None when the cut would
    keep the whole document.
    """
    span = front_matter_span(source)
    start = max(window, span[1] if span is not None else 0)
    if start >= len(source):
        return None
    blank = _BLANK_LINE.search(source, start) if paragraph else None
    cut = source.find("\n", start) if blank is None else blank.end() - 1
    if cut < 0 or cut + 1 >= len(source):
        return None
    return source[: cut + 1]
