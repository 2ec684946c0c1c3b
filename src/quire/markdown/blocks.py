"""A Markdown text's top-level blocks, cut where the renderer's own token stream cuts it.

A block is the source lines of one level-0 token (a paragraph, a heading, a whole list, a
table, a fence, raw HTML, the front matter) as markdown-it-py's block parser maps them. After
an edit only a window around the change is parsed again: from a block before it to the first
unchanged block after it that the new parse also starts, so every block boundary is the
parser's. Pure: it renders and remembers nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from quire.markdown.parser import build_parser, shared_parser

_NEWLINES = re.compile(r"\r\n?")
_LINE_END = re.compile("\n")
_CHUNK = 4096
_RESYNC_TRIES = 4


def normalize(text: str) -> str:
    """``text`` as markdown-it-py reads it: CR and CRLF as LF, NUL as U+FFFD."""
    return _NEWLINES.sub("\n", text).replace("\0", "\ufffd")


@dataclass(frozen=True)
class Block:
    """One top-level block: lines ``start`` to ``end`` (exclusive, 0-based) and their text.
    A block parses the same alone as in its text, so its source says all about it."""

    start: int
    end: int
    source: str


@dataclass(frozen=True)
class Split:
    """A text cut into its blocks; ``independent`` is False when link reference definitions
    or footnotes tie blocks to each other (the text must then be rendered whole). ``fresh``
    holds the tokens of the blocks this split parsed, by index (line maps of the whole text);
    ``bare()`` drops them before a split is kept."""

    text: str
    blocks: tuple[Block, ...]
    line_starts: tuple[int, ...]
    independent: bool
    fresh: dict[int, tuple[Token, ...]] = field(default_factory=dict, compare=False)

    def bare(self) -> Split:
        """This split without its tokens (they weigh far more than the text)."""
        return replace(self, fresh={}) if self.fresh else self


def line_starts(text: str) -> tuple[int, ...]:
    """The offset of each line's first character, then ``len(text)``."""
    starts = [0, *(match.end() for match in _LINE_END.finditer(text))]
    if starts[-1] != len(text):
        starts.append(len(text))
    return tuple(starts)


@lru_cache(maxsize=1)
def body_parser() -> MarkdownIt:
    """The shared syntax without front matter: for a block that does not start the text."""
    md = build_parser()
    md.block.ruler.disable("front_matter")
    return md


def parse_block(block: Block) -> tuple[Token, ...]:
    """``block``'s tokens, parsed alone, with line maps of its place in the text."""
    parser = shared_parser() if block.start == 0 else body_parser()
    tokens = parser.parse(block.source)
    _shift(tokens, block.start)
    return tuple(tokens)


def _shift(tokens: list[Token], lines: int) -> None:
    if lines:
        for token in tokens:
            if token.map is not None:
                token.map = [token.map[0] + lines, token.map[1] + lines]


def _is_independent(env: dict[str, object]) -> bool:
    # Any link makes the footnote plugin leave empty tables behind: only entries count.
    footnotes = env.get("footnotes")
    used = isinstance(footnotes, dict) and any(footnotes.get(key) for key in ("refs", "list"))
    return not env.get("references") and not used


_Parsed = list[tuple[Block, tuple[Token, ...]]]


def _parse(text: str, starts: tuple[int, ...], first: int, last: int) -> _Parsed | None:
    """The blocks of lines ``first`` to ``last`` of ``text`` with their tokens; None when
    they hold references or footnotes."""
    env: dict[str, object] = {}
    parser = shared_parser() if first == 0 else body_parser()
    tokens = parser.parse(text[starts[first] : starts[last]], env)
    if not _is_independent(env):
        return None
    _shift(tokens, first)
    marks = [index for index, token in enumerate(tokens) if token.level == 0 and token.map]
    blocks = []
    for number, index in enumerate(marks):
        after = marks[number + 1] if number + 1 < len(marks) else len(tokens)
        start, end = tokens[index].map or (0, 0)
        source = text[starts[start] : starts[end]]
        blocks.append((Block(start, end, source), tuple(tokens[index:after])))
    return blocks


def split(text: str) -> Split:
    """``text`` (normalized) cut into its blocks by one parse of the whole."""
    starts = line_starts(text)
    parsed = _parse(text, starts, 0, len(starts) - 1)
    if parsed is None:
        return Split(text, (), starts, independent=False)
    fresh = {index: tokens for index, (_, tokens) in enumerate(parsed)}
    return Split(text, tuple(block for block, _ in parsed), starts, True, fresh)


def common_prefix(a: str, b: str) -> int:
    """The length of the text ``a`` and ``b`` start with, in linear time."""
    limit = min(len(a), len(b))
    done = 0
    # Whole chunks first (C-speed compares), then a binary search inside the first that differs.
    while done < limit:
        step = min(_CHUNK, limit - done)
        if a[done : done + step] != b[done : done + step]:
            low, high = 0, step - 1
            while low < high:
                middle = (low + high + 1) // 2
                if a[done : done + middle] == b[done : done + middle]:
                    low = middle
                else:
                    high = middle - 1
            return done + low
        done += step
    return limit


def common_suffix(a: str, b: str, prefix: int) -> int:
    """The length of the text ``a`` and ``b`` end with, not reaching into their first
    ``prefix`` characters."""
    limit = min(len(a), len(b)) - prefix
    done = 0
    while done < limit:
        step = min(_CHUNK, limit - done)
        if a[len(a) - done - step : len(a) - done] != b[len(b) - done - step : len(b) - done]:
            low, high = 0, step - 1
            while low < high:
                middle = (low + high + 1) // 2
                if (
                    a[len(a) - done - middle : len(a) - done]
                    == b[len(b) - done - middle : len(b) - done]
                ):
                    low = middle
                else:
                    high = middle - 1
            return done + low
        done += step
    return limit


def resplit(old: Split, text: str) -> Split:
    """``text`` (normalized) cut into blocks, parsing again only around what changed since
    ``old``: the same blocks ``split(text)`` gives."""
    if text == old.text:
        return old
    if not old.independent or not old.blocks:
        return split(text)
    prefix = common_prefix(old.text, text)
    suffix = common_suffix(old.text, text, prefix)
    starts = line_starts(text)
    changed = bisect_right(starts, prefix) - 1
    old_starts = [block.start for block in old.blocks]
    # The block before the one holding the change: a change can end it differently.
    first_block = max(0, bisect_left(old_starts, changed) - 2)
    first = 0 if first_block == 0 else old.blocks[first_block].start
    old_end = len(old.text) - suffix
    after = bisect_left([old.line_starts[line] for line in old_starts], old_end)
    shift = len(text) - len(old.text)
    lines = (len(starts) - 1) - (len(old.line_starts) - 1)
    for attempt in range(_RESYNC_TRIES):
        anchor = max(after, first_block + 1) + (8 << attempt) - 8
        if anchor >= len(old.blocks):
            window = _parse(text, starts, first, len(starts) - 1)
            if window is None:
                return split(text)
            return _joined(text, starts, old.blocks[:first_block], window, ())
        kept = old.blocks[anchor]
        char = old.line_starts[kept.start] + shift
        line = bisect_left(starts, char)
        if line >= len(starts) or starts[line] != char or line != kept.start + lines:
            continue
        last = old.blocks[anchor + 1].start + lines if anchor + 1 < len(old.blocks) else None
        window = _parse(text, starts, first, len(starts) - 1 if last is None else last)
        if window is None:
            return split(text)
        found = [index for index, (block, _) in enumerate(window) if block.start == line]
        if found and window[found[0]][0].end == kept.end + lines:
            moved = old.blocks[anchor:]
            if lines:
                moved = tuple(
                    Block(block.start + lines, block.end + lines, block.source) for block in moved
                )
            return _joined(text, starts, old.blocks[:first_block], window[: found[0]], moved)
    return split(text)


def _joined(
    text: str,
    starts: tuple[int, ...],
    before: tuple[Block, ...],
    window: _Parsed,
    after: tuple[Block, ...],
) -> Split:
    fresh = {len(before) + index: tokens for index, (_, tokens) in enumerate(window)}
    blocks = (*before, *(block for block, _ in window), *after)
    return Split(text, blocks, starts, True, fresh)
