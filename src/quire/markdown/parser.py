"""The one Markdown parser configuration every reader and the renderer share.

CommonMark block structure from markdown-it-py, plus GFM (tables, strikethrough, autolinks,
task lists, footnotes, alerts), dollar math, a leading front matter block and wikilinks.
Owns syntax only: what a token means for text, metadata or HTML lives in the modules that
read the tokens.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.gfm import gfm_plugin

from quire.core.collector import collection_paused

if TYPE_CHECKING:
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

BOM = "\ufeff"

_FENCE_OPEN = re.compile(r"---[ \t]*")
_FENCE_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*")


def strip_bom(text: str) -> str:
    """Return ``text`` without a leading byte order mark (as Notepad saves)."""
    return text[1:] if text.startswith(BOM) else text


def front_matter_lines(lines: list[str]) -> int | None:
    """Index of the line that closes a leading front matter block, or None when there is none.

    The block opens on a first line of ``---`` and closes on a later ``---`` or ``...`` line;
    both start at column 0 with only spaces or tabs after them. An unclosed ``---`` opens no
    block (it is a thematic break).
    """
    if not lines or _FENCE_OPEN.fullmatch(lines[0]) is None:
        return None
    for index in range(1, len(lines)):
        if _FENCE_CLOSE.fullmatch(lines[index]) is not None:
            return index
    return None


def _front_matter_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if start != 0 or state.blkIndent != 0 or state.level != 0:
        return False
    lines: list[str] = []
    close = None
    for line in range(start, end):
        lines.append(state.src[state.bMarks[line] : state.eMarks[line]])
        if line == start and _FENCE_OPEN.fullmatch(lines[0]) is None:
            return False
        if line > start and _FENCE_CLOSE.fullmatch(lines[-1]) is not None:
            close = line - start
            break
    if close is None:
        return False
    if silent:
        return True
    token = state.push("front_matter", "", 0)
    token.hidden = True
    token.markup = "---"
    token.block = True
    token.content = "\n".join(lines[1:close]) + ("\n" if close > 1 else "")
    token.map = [start, start + close + 1]
    state.line = start + close + 1
    return True


WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
"""``[[target#heading|alias]]`` and ``![[embed]]``: one line, no brackets inside."""


def split_wikilink(raw: str) -> tuple[str, str | None, str | None]:
    """Split a wikilink's inside into (target, heading, alias); target may be empty."""
    body, _, alias = raw.partition("|")
    target, hash_sign, heading = body.partition("#")
    return (
        target.strip(),
        heading.strip() if hash_sign else None,
        alias.strip() if alias else None,
    )


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    # Silent mode only runs while a link label is scanned: a wikilink there is no token, so its
    # brackets balance as the label's own and `[see [[W]]](u)` stays a link. Inside link text
    # `[[W]]` is text, as on the page (a link holds no link).
    if silent or state.linkLevel > 0:
        return False
    src, pos = state.src, state.pos
    if src.startswith("![[", pos):
        embed = True
    elif src.startswith("[[", pos):
        embed = False
    else:
        return False
    match = WIKILINK.match(src, pos)
    if match is None or not match.group(2).strip():
        return False
    target, heading, alias = split_wikilink(match.group(2))
    token = state.push("wikilink", "", 0)
    token.content = match.group(2)
    token.markup = match.group(0)
    token.meta = {"target": target, "heading": heading, "alias": alias, "embed": embed}
    state.pos = match.end()
    return True


def build_parser() -> MarkdownIt:
    """A new parser with Quire's syntax; the renderer adds its render rules to its own copy."""
    # The CommonMark preset stops at 20 levels (ten nested lists), and markdown-it then drops
    # the rest of the document; 100 is markdown-it's default and well inside Python's stack.
    md = MarkdownIt("commonmark", {"maxNesting": 100})
    gfm_plugin(md)
    # Inline `$$x$$` is one math span (not `$` + `$x$` + `$`). As on GitHub and in pandoc, a
    # `$` next to a space or a digit on its outer side opens or closes nothing, so prices
    # such as "costs $5 and $6" stay text.
    md.use(
        dollarmath_plugin,
        allow_blank_lines=False,
        double_inline=True,
        allow_space=False,
        allow_digits=False,
    )
    md.block.ruler.before("table", "front_matter", _front_matter_rule)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    _stop_text_at_www_only(md)
    return md


# One character class as markdown-it writes it (re.escape'd characters, so "w" stands alone).
_CHARACTER_CLASS = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.DOTALL)
_CLASS_MEMBER = re.compile(r"\\.|.", re.DOTALL)


def _stop_text_at_www_only(md: MarkdownIt) -> None:
    """Let plain text run on past a ``w`` that starts no ``www.``: the same tokens, fewer stops.

    The GFM autolink plugin makes every ``w`` end a text run so its ``www.`` rule can look
    there; at any other ``w`` every inline rule then declines and the ``w`` joins the same
    pending text, one character at a time (a sixth of a parse of English prose). A pattern
    of another shape than one character class is left as it is.
    """
    pattern = md.inline.terminator_re.pattern
    match = _CHARACTER_CLASS.fullmatch(pattern)
    members = _CLASS_MEMBER.findall(match.group(1)) if match is not None else []
    if "w" not in members:
        return
    others = "".join(member for member in members if member != "w")
    md.inline.terminator_re = re.compile(f"[{others}]|w(?=ww\\.)")


@lru_cache(maxsize=1)
def shared_parser() -> MarkdownIt:
    """The cached parser for readers that only walk tokens (never add rules to it)."""
    return build_parser()


def parse(text: str) -> list[Token]:
    """Tokens of ``text`` (a leading BOM ignored), in document order."""
    with collection_paused():
        return shared_parser().parse(strip_bom(text))


@lru_cache(maxsize=1)
def block_parser() -> MarkdownIt:
    """A cached parser that stops at the block structure: inline tokens get no children.

    For readers of headings, tasks and titles, which need no inline parse (about half the cost).
    Footnote definitions stay where they are written (no inline pass finds their references).
    """
    md = build_parser()
    md.core.ruler.disable(["inline", "footnote_tail"])
    return md


def parse_blocks(text: str) -> list[Token]:
    """Block tokens of ``text`` (a leading BOM ignored); an inline token's content is its source."""
    with collection_paused():
        return block_parser().parse(strip_bom(text))
