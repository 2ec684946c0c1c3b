"""Plain text of a Markdown document (the words a reader sees, syntax stripped) and word counts.

Walks tokens from ``quire.markdown.parser``; it never parses Markdown syntax itself.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from markdown_it.common.html_re import HTML_TAG_RE

from quire.core.errors import InvalidArgument
from quire.markdown.parser import parse

if TYPE_CHECKING:
    from collections.abc import Sequence

    from markdown_it.token import Token

__all__ = ["PlainText", "count_words", "export_text", "export_text_from_tokens"]

# Layout of the text, by the block a separator falls between (the innermost container the two
# blocks share decides it):
# - blocks (paragraphs, headings, code, tables, quotes, footnotes) are separated by one blank line;
# - in a tight list, items and the blocks inside an item are one per line; a loose list (blank
#   lines between its items, as the author wrote it) keeps the blank line;
# - a paragraph keeps the author's lines (soft and hard breaks both end a line);
# - a table row is one line of tab-separated cells, the header row included;
# - footnotes come last, numbered by first reference, as on the page.
_BLANK_LINE = "\n\n"
_LINE = "\n"

_LIST_OPEN = frozenset({"bullet_list_open", "ordered_list_open"})
_LIST_CLOSE = frozenset({"bullet_list_close", "ordered_list_close"})
_GROUP_OPEN = frozenset({"blockquote_open", "alert_open", "footnote_block_open"})
_GROUP_CLOSE = frozenset({"blockquote_close", "alert_close", "footnote_block_close"})
_CODE = frozenset({"fence", "code_block"})
_MATH_BLOCK = frozenset({"math_block", "math_block_label"})
_CONTENT_INLINE = frozenset({"code_inline", "math_inline", "math_inline_double", "text_special"})

# What a browser shows nothing of in raw HTML: comments (an unclosed one runs to the end, as the
# block does), script and style elements, and every tag.
_HTML_HIDDEN = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style)\b.*?(?:</\1\s*>|\Z)|" + HTML_TAG_RE.pattern,
    re.DOTALL | re.IGNORECASE,
)


@dataclass(frozen=True)
class PlainText:
    """A document's plain text, its word count and its length in Unicode code points."""

    text: str
    word_count: int
    char_count: int


def count_words(text: str) -> int:
    """Number of whitespace-separated words in ``text``."""
    return len(text.split())


def export_text(source: str) -> PlainText:
    """Plain text of the Markdown ``source`` (a leading byte order mark ignored).

    Raises InvalidArgument when ``source`` is not a ``str`` (bytes must be decoded first).
    """
    if not isinstance(source, str):
        raise InvalidArgument(
            f"export_text reads text, not {type(source).__name__}: "
            "decode the document as UTF-8 and pass the string.",
            argument="source",
        )
    return export_text_from_tokens(parse(source))


def export_text_from_tokens(tokens: list[Token]) -> PlainText:
    """Plain text of tokens from ``quire.markdown.parser.parse``, which are left unchanged."""
    text = _trim(_Writer().walk(tokens))
    return PlainText(text=text, word_count=count_words(text), char_count=len(text))


class _Frame:
    """A container whose blocks share a separator; a list's is decided once its tightness is."""

    __slots__ = ("level", "loose", "slots")

    def __init__(self, level: int, slots: list[int] | None) -> None:
        self.level = level
        self.loose: bool | None = None
        self.slots = slots


class _Writer:
    """Appends each block's text to one list of strings, joined once at the end."""

    __slots__ = ("cells", "frames", "low", "out", "prefix", "rows")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.frames: list[_Frame] = [_Frame(0, None)]
        # The shallowest depth the frame stack reached since the last block: the frame at that
        # depth is the innermost container the last block and the next one share.
        self.low = 1
        self.prefix = ""
        # The rows of the table being read (None outside a table) and the current row's cells.
        self.rows: list[str] | None = None
        self.cells: list[str] = []

    def walk(self, tokens: Sequence[Token]) -> str:
        for token in tokens:
            kind = token.type
            if kind == "inline":
                text = _inline_text(token.children or ())
                if self.rows is None:
                    self.block(text)
                else:
                    self.cells.append(text)
            elif kind == "paragraph_open":
                self.note_paragraph(token)
            elif kind in _CODE:
                content = token.content
                self.block(content[:-1] if content.endswith("\n") else content)
            elif kind in _LIST_OPEN:
                self.frames.append(_Frame(token.level, []))
            elif kind in _LIST_CLOSE or kind in _GROUP_CLOSE:
                self.close()
            elif kind in _GROUP_OPEN:
                self.frames.append(_Frame(token.level, None))
            else:
                self.leaf(token)
        return "".join(self.out)

    def leaf(self, token: Token) -> None:
        kind = token.type
        if kind == "tr_close":
            if self.rows is not None:
                self.rows.append("\t".join(self.cells))
            self.cells = []
        elif kind == "table_open":
            self.rows = []
        elif kind == "table_close":
            rows, self.rows = self.rows or [], None
            self.block("\n".join(rows))
        elif kind in _MATH_BLOCK:
            self.block(token.content.strip())
        elif kind == "html_block":
            self.block(_html_text(token.content))
        elif kind == "footnote_open":
            self.prefix = f"[{token.meta['id'] + 1}] "
        elif kind == "footnote_close" and self.prefix:
            # A definition with no text still shows its number.
            label = self.prefix[:-1]
            self.prefix = ""
            self.block(label)

    def note_paragraph(self, token: Token) -> None:
        frame = self.frames[-1]
        if frame.slots is not None and frame.loose is None and token.level == frame.level + 2:
            # markdown-it hides the paragraphs of a tight list's items.
            frame.loose = not token.hidden

    def close(self) -> None:
        if len(self.frames) == 1:
            # markdown-it's footnote plugin can leave a quote's close without its open
            # (`[^1]: > > [^1]:`): nothing is open, so there is nothing to close.
            return
        frame = self.frames.pop()
        if frame.slots and frame.loose:
            out = self.out
            for index in frame.slots:
                out[index] = _BLANK_LINE
        depth = len(self.frames)
        if depth < self.low:
            self.low = depth

    def block(self, text: str) -> None:
        if not text or text.isspace():
            return
        out = self.out
        if out:
            frame = self.frames[min(self.low, len(self.frames)) - 1]
            if frame.slots is None:
                out.append(_BLANK_LINE)
            else:
                frame.slots.append(len(out))
                out.append(_LINE)
        if self.prefix:
            out.append(self.prefix)
            self.prefix = ""
        out.append(text)
        self.low = len(self.frames)


def _inline_text(children: Sequence[Token]) -> str:
    """The text of one paragraph, heading or cell: inline marks, links' targets and HTML dropped."""
    if len(children) == 1 and children[0].type == "text":
        return children[0].content
    parts: list[str] = []
    append = parts.append
    for child in children:
        kind = child.type
        if kind == "text":
            append(child.content)
        elif kind == "softbreak" or kind == "hardbreak":
            append("\n")
        elif kind in _CONTENT_INLINE:
            append(child.content)
        elif kind == "wikilink":
            meta = child.meta
            if not meta["embed"]:
                append(meta["alias"] or child.content.partition("|")[0].strip())
        elif kind == "image":
            append(_inline_text(child.children or ()))
        elif kind == "footnote_ref":
            append(f"[{child.meta['id'] + 1}]")
    return "".join(parts)


def _html_text(source: str) -> str:
    """The text of a raw HTML block: tags and comments dropped, entities decoded, no blank lines."""
    text = html.unescape(_HTML_HIDDEN.sub("", source))
    return "\n".join(line.strip() for line in text.split("\n") if line and not line.isspace())


def _trim(text: str) -> str:
    """``text`` without blank lines before its first line or trailing whitespace after its last."""
    text = text.rstrip()
    body = text.lstrip()
    if len(body) == len(text):
        return text
    # Keep the first line's own indentation (a code block's), drop only whole blank lines.
    return text[text.rfind("\n", 0, len(text) - len(body)) + 1 :]
