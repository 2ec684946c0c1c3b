"""The leading front matter block and the small YAML subset Quire reads from it.

Owns where the block starts and ends (by the parser's delimiter rule) and what its lines mean.
It reads no full YAML: anchors, aliases, tags and flow mappings stay strings. It never raises.
"""

from __future__ import annotations

import math
import re
from itertools import islice
from typing import TypeAlias

from quire.markdown.parser import front_matter_lines, strip_bom

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A value as JSON carries it: what a front matter property can hold."""

MAX_DEPTH = 64
"""Nesting deeper than this reads as null (or a flow list as its text), so no input recurses
without bound; real front matter is a few levels deep."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_KEY_COLON = re.compile(r":(?=[ \t]|$)")
_BLOCK_HEADER = re.compile(r"([|>])(?:([1-9])([-+])?|([-+])([1-9])?)?(?:[ \t]+#.*)?[ \t]*")
_COMMENT = re.compile(r"[ \t]#")
_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(
    r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+"
)
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
    "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_WORDS: dict[str, JsonValue] = {
    **dict.fromkeys(("~", "null", "Null", "NULL")),
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}
# Possessive, so `'a''` (an escaped quote, then no closing one) is not read as `'a'` + `'`.
_QUOTED = {'"': re.compile(r'"(?:[^"\\]|\\.)*+"', re.DOTALL), "'": re.compile(r"'(?:[^']|'')*+'")}
_NOT_PLAIN_START = frozenset("{&*!|>%@`")
_NOT_KEY_START = frozenset("[{#&*!|>%@`?,]}")


def front_matter_span(source: str) -> tuple[str, int] | None:
    """The block's text and how many characters of ``source`` (a BOM included) it takes.

    None when ``source`` has no closed front matter block (or is not a ``str``).
    """
    if not isinstance(source, str):
        return None
    text = strip_bom(source)
    if not text.startswith("---"):
        return None
    lines = _LINE_BREAK.split(text)
    close = front_matter_lines(lines)
    if close is None:
        return None
    after = next(islice(_LINE_BREAK.finditer(text), close, None), None)
    end = len(text) if after is None else after.end()
    block = "".join(line + "\n" for line in lines[1:close])
    return block, end + len(source) - len(text)


def front_matter_block(source: str) -> str | None:
    """The text between a leading front matter block's delimiters, or None when there is none.

    The block opens on a first line of ``---`` and closes on a later ``---`` or ``...`` line,
    each at column 0 with only spaces or tabs after it; a leading byte order mark is ignored.
    Each line of the text ends with a line break.
    """
    span = front_matter_span(source)
    return None if span is None else span[0]


def parse_front_matter(block: str) -> dict[str, JsonValue]:
    """The properties of a front matter block, read by Quire's YAML subset; never raises.

    Scalars: true/false, integers and decimals, null (``~``, ``null``, an empty value), and
    strings (surrounding quotes removed). Flow lists (``[a, "b, c"]``) and ``- item`` lists;
    ``- name: x`` items start objects whose aligned keys add to them; indented keys under an
    empty key make nested objects. Block scalars ``|`` and ``>`` with ``-``/``+`` chomping and
    an indentation digit. A key's colon is followed by a space or ends the line. Anchors,
    aliases, tags and flow mappings stay strings; continuation lines of multi-line plain or
    quoted scalars are skipped, as are comment lines and text after `` #`` in a plain value.
    A ``block`` that is not a ``str`` reads as no properties.
    """
    if not isinstance(block, str):
        return {}
    lines = _LINE_BREAK.split(block)
    if lines and not lines[-1]:
        lines.pop()
    return _Reader(lines).document()


class _Reader:
    """Reads lines top-down; each method leaves ``pos`` on the first line it did not use."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.pos = 0

    def document(self) -> dict[str, JsonValue]:
        result: dict[str, JsonValue] = {}
        while (index := self._peek()) is not None:
            result.update(self._mapping(_indent(self.lines[index]), 0, None))
        return result

    def _peek(self) -> int | None:
        """Move past blank and comment lines to the next line that holds something."""
        while self.pos < len(self.lines):
            stripped = self.lines[self.pos].strip(" \t")
            if stripped and not stripped.startswith("#"):
                return self.pos
            self.pos += 1
        return None

    def _skip_deeper(self, owner: int) -> None:
        """Skip the lines indented past ``owner``: continuations this subset does not read."""
        while (index := self._peek()) is not None and _indent(self.lines[index]) > owner:
            self.pos += 1

    def _mapping(self, indent: int, depth: int, first: str | None) -> dict[str, JsonValue]:
        result: dict[str, JsonValue] = {}
        if first is not None:
            self._mapping_line(first, indent, depth, result)
        while (index := self._peek()) is not None:
            line = self.lines[index]
            line_indent = _indent(line)
            if line_indent < indent:
                break
            self.pos += 1
            if line_indent == indent:
                self._mapping_line(line[line_indent:], indent, depth, result)
        return result

    def _mapping_line(self, text: str, indent: int, depth: int, out: dict[str, JsonValue]) -> None:
        split = _split_key(text)
        if split is None:
            self._skip_deeper(indent)
            return
        key, rest = split
        out[key] = self._value(rest, indent, depth, dash_below=True)

    def _sequence(self, indent: int, depth: int, first: str | None) -> list[JsonValue]:
        items: list[JsonValue] = []
        if first is not None:
            items.append(self._entry(first, indent, depth))
        while (index := self._peek()) is not None:
            line = self.lines[index]
            line_indent = _indent(line)
            if line_indent < indent or (line_indent == indent and not _is_dash(line[indent:])):
                break
            self.pos += 1
            if line_indent == indent:
                items.append(self._entry(line[indent:], indent, depth))
        return items

    def _entry(self, dash_text: str, indent: int, depth: int) -> JsonValue:
        """One ``- ...`` item; ``dash_text`` starts at its dash, in column ``indent``."""
        after = dash_text[1:]
        content = after.lstrip(" \t")
        column = indent + 1 + len(after) - len(content)
        if not content or content.startswith("#"):
            return self._under(indent, depth, dash_below=False)
        if depth >= MAX_DEPTH:
            self._skip_deeper(indent)
            return None
        if _is_dash(content):
            return self._sequence(column, depth + 1, content)
        if _split_key(content) is not None:
            return self._mapping(column, depth + 1, content)
        return self._value(content, indent, depth, dash_below=False)

    def _value(self, rest: str, owner: int, depth: int, *, dash_below: bool) -> JsonValue:
        """The value after a key's colon or an item's dash, in a line indented ``owner``."""
        text = rest.strip(" \t")
        if not text or text.startswith("#"):
            return self._under(owner, depth, dash_below=dash_below)
        header = _BLOCK_HEADER.fullmatch(text)
        if header is not None:
            style, digit, chomp = header[1], header[2] or header[5], header[3] or header[4]
            return self._block_scalar(style, chomp, int(digit) if digit else None, owner)
        value = _inline_value(text, depth)
        self._skip_deeper(owner)
        return value

    def _under(self, owner: int, depth: int, *, dash_below: bool) -> JsonValue:
        """The node on the lines under an empty value, or None when nothing is under it."""
        index = self._peek()
        if index is None:
            return None
        line = self.lines[index]
        indent = _indent(line)
        text = line[indent:]
        below = indent > owner or (dash_below and indent == owner and _is_dash(text))
        if not below:
            return None
        if depth >= MAX_DEPTH:
            self._skip_deeper(owner)
            return None
        if _is_dash(text):
            return self._sequence(indent, depth + 1, None)
        if _split_key(text) is not None:
            return self._mapping(indent, depth + 1, None)
        self.pos += 1
        value = _inline_value(text.rstrip(" \t"), depth)
        self._skip_deeper(owner)
        return value

    def _block_scalar(self, style: str, chomp: str | None, digit: int | None, owner: int) -> str:
        indent = owner + digit if digit is not None else self._detect_indent(owner)
        texts: list[str] = []
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.strip(" \t"):
                if indent is None or _indent(line) < indent:
                    break
                texts.append(line[indent:])
            else:
                texts.append(line[indent:] if indent is not None else "")
            self.pos += 1
        last = max((i for i, text in enumerate(texts) if text), default=-1)
        body, trailing = texts[: last + 1], len(texts) - last - 1
        content = "\n".join(body) if style == "|" else _fold(body)
        if chomp == "-":
            return content
        if chomp == "+":
            return content + ("\n" if body else "") + "\n" * trailing
        return content + "\n" if body else ""

    def _detect_indent(self, owner: int) -> int | None:
        """The indent of a block scalar's first line of text, when it is deeper than its key."""
        for index in range(self.pos, len(self.lines)):
            line = self.lines[index]
            if line.strip(" \t"):
                indent = _indent(line)
                return indent if indent > owner else None
        return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_dash(text: str) -> bool:
    return text == "-" or text.startswith(("- ", "-\t"))


def _split_key(text: str) -> tuple[str, str] | None:
    """(key, the text after its colon) when ``text`` is a ``key: value`` line, else None."""
    if not text or _is_dash(text):
        return None
    if text[0] in "\"'":
        end = _closing_quote(text, 0)
        if end is None:
            return None
        after = text[end + 1 :].lstrip(" \t")
        if not after.startswith(":") or after[1:2] not in ("", " ", "\t"):
            return None
        return _unquote(text[: end + 1]), after[1:]
    if text[0] in _NOT_KEY_START:
        return None
    colon = _KEY_COLON.search(text)
    if colon is None:
        return None
    key = text[: colon.start()].rstrip(" \t")
    return (key, text[colon.end() :]) if key else None


def _inline_value(text: str, depth: int) -> JsonValue:
    """A value written on one line (not a block scalar)."""
    if text[0] in "\"'":
        end = _closing_quote(text, 0)
        # An unclosed quote is a multi-line scalar, which this subset keeps as written.
        return text if end is None else _unquote(text[: end + 1])
    if text[0] == "[":
        items = _flow_list(text, depth)
        return _strip_comment(text) if items is None else items
    plain = _strip_comment(text)
    if text[0] in _NOT_PLAIN_START:
        return plain
    return _plain_scalar(plain)


def _strip_comment(text: str) -> str:
    comment = _COMMENT.search(text)
    return (text if comment is None else text[: comment.start()]).rstrip(" \t")


def _plain_scalar(text: str) -> JsonValue:
    if text in _WORDS:
        return _WORDS[text]
    try:
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            number = float(text)
            return number if math.isfinite(number) else text
    except ValueError:  # more digits than Python converts: keep the text
        return text
    return text


def _closing_quote(text: str, start: int) -> int | None:
    """Index of the quote that closes the one at ``start``, or None when it is not closed."""
    quoted = _QUOTED[text[start]].match(text, start)
    return None if quoted is None else quoted.end() - 1


def _unquote(quoted: str) -> str:
    inner = quoted[1:-1]
    if quoted[0] == "'":
        return inner.replace("''", "'")
    return _ESCAPE.sub(_escape, inner)


def _escape(match: re.Match[str]) -> str:
    code = match[1]
    if len(code) == 1:
        return _ESCAPES.get(code, match[0])
    point = int(code[1:], 16)
    # Surrogates and points past Unicode cannot be text: keep the escape as written.
    if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
        return match[0]
    return chr(point)


def _flow_list(text: str, depth: int) -> list[JsonValue] | None:
    """The items of a one-line flow list, or None when it is not one (unclosed, trailing text)."""
    parsed = _flow_items(text, 0, depth)
    if parsed is None:
        return None
    items, end = parsed
    rest = text[end:].strip(" \t")
    return items if not rest or rest.startswith("#") else None


def _flow_items(text: str, start: int, depth: int) -> tuple[list[JsonValue], int] | None:
    """Items of the flow list opening at ``start`` and the index after its ``]``."""
    if depth >= MAX_DEPTH:
        return None
    items: list[JsonValue] = []
    index = _skip_blanks(text, start + 1)
    while index < len(text) and text[index] != "]":
        if text[index] == ",":
            index = _skip_blanks(text, index + 1)
            continue
        item = _flow_item(text, index, depth)
        if item is None:
            return None
        items.append(item[0])
        index = _skip_blanks(text, item[1])
        if index < len(text) and text[index] not in ",]":
            return None
    return (items, index + 1) if index < len(text) else None


def _flow_item(text: str, index: int, depth: int) -> tuple[JsonValue, int] | None:
    char = text[index]
    if char in "\"'":
        end = _closing_quote(text, index)
        return None if end is None else (_unquote(text[index : end + 1]), end + 1)
    if char == "[":
        return _flow_items(text, index, depth + 1)
    if char == "{":
        end = _closing_brace(text, index)
        return None if end is None else (text[index : end + 1], end + 1)
    end = index
    while end < len(text) and text[end] not in ",[]{}":
        end += 1
    raw = text[index:end].rstrip(" \t")
    return (raw if char in _NOT_PLAIN_START else _plain_scalar(raw)), end


def _closing_brace(text: str, start: int) -> int | None:
    level = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            level += 1
        elif text[index] == "}":
            level -= 1
            if level == 0:
                return index
    return None


def _skip_blanks(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index


def _fold(body: list[str]) -> str:
    """Folded block scalar text: single breaks between plain lines become spaces.

    A break next to a line indented further is kept; n blank lines read as n breaks.
    """
    parts: list[str] = []
    blanks = 0
    previous_more: bool | None = None
    for text in body:
        if not text:
            blanks += 1
            continue
        more = text[0] in " \t"
        if previous_more is None:
            parts.append("\n" * blanks)
        elif blanks == 0:
            parts.append("\n" if more or previous_more else " ")
        else:
            parts.append("\n" * (blanks + (1 if more or previous_more else 0)))
        parts.append(text)
        blanks = 0
        previous_more = more
    return "".join(parts)
