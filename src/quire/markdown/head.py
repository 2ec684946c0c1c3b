"""Where a long document's first part ends: a place to cut it so the part renders as the same
blocks the whole document does (the Read view shows that part first, then the rest).

Text only: it reads no file and renders nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

HEAD_CHARS = 8 * 1024
"""The least a first part holds: a few screens of prose, more than one of any document (the
rest follows within a second; a smaller first part paints sooner: bench ui)."""

LONG_CHARS = 128 * 1024
"""Documents shorter than this render whole at once: cutting them saves nothing a person sees."""

_SEARCH_CHARS = 256 * 1024
"""How far past HEAD_CHARS to look for a heading before giving up on a cut."""

_HEADING = re.compile(r"#{1,6}(?:[ \t]|\r?$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_FENCE_END = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*\r?$")
_RAW_HTML = re.compile(
    r" {0,3}(<!--|<\?|<!\[CDATA\[|<![A-Za-z]|<(?:script|pre|style|textarea)\b)", re.I
)
_RAW_HTML_ENDS = (
    ("<!--", "-->"),
    ("<?", "?>"),
    ("<![cdata[", "]]>"),
    ("<!", ">"),
    ("<script", "</script>"),
    ("<pre", "</pre>"),
    ("<style", "</style>"),
    ("<textarea", "</textarea>"),
)
_FRONT_MATTER_START = re.compile(r"\ufeff?---[ \t]*\r?$")
_FRONT_MATTER_END = re.compile(r"(?:---|\.\.\.)[ \t]*\r?$")


def head_end(text: str, *, at_least: int = HEAD_CHARS, long: int = LONG_CHARS) -> int | None:
    """The offset of the first heading at or past ``at_least`` characters that starts a line
    after a blank one, outside a code fence, a math block, raw HTML and the front matter; None
    when ``text`` is shorter than ``long`` or has no such heading soon enough.

    A heading after a blank line ends every open paragraph, list and quote, so
    ``text[:offset]`` renders as the same blocks as the start of the whole text, except
    references and footnotes defined further down (the whole render shows them).
    """
    if len(text) < long:
        return None
    closer: _Closer | None = None
    position = _front_matter_end(text)
    after_blank = True
    limit = at_least + _SEARCH_CHARS
    while position < len(text) and position <= limit:
        end = text.find("\n", position)
        end = len(text) if end < 0 else end + 1
        line = text[position:end].rstrip("\n")
        if closer is not None:
            if closer(line):
                closer = None
        elif after_blank and position >= at_least and _HEADING.match(line):
            return position
        else:
            closer = _opens(line)
        after_blank = not line.strip()
        position = end
    return None


_Closer = Callable[[str], bool]
"""Whether a line ends the block a line opened."""


def _opens(line: str) -> _Closer | None:
    """How to find the end of the fence, math block or raw HTML a line opens, if it does."""
    opening = _FENCE.match(line)
    if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
        char, size = opening.group(1)[0], len(opening.group(1))

        def fence_ends(candidate: str) -> bool:
            closing = _FENCE_END.match(candidate)
            return (
                closing is not None
                and closing.group(1)[0] == char
                and len(closing.group(1)) >= size
            )

        return fence_ends
    stripped = line.strip()
    if stripped.startswith("$$") and (stripped == "$$" or not stripped.endswith("$$")):
        return lambda candidate: candidate.rstrip().endswith("$$")
    raw = _RAW_HTML.match(line)
    if raw:
        marker = next(
            end for start, end in _RAW_HTML_ENDS if raw.group(1).lower().startswith(start)
        )
        if marker not in line[raw.end() :].lower():
            return lambda candidate: marker in candidate.lower()
    return None


def _front_matter_end(text: str) -> int:
    """Where a leading front matter block ends (0 when there is none or it never closes)."""
    first = text.find("\n")
    if first < 0 or not _FRONT_MATTER_START.match(text[:first]):
        return 0
    position = first + 1
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end + 1
        if _FRONT_MATTER_END.match(text[position:end].rstrip("\n")):
            return end
        position = end
    return 0
