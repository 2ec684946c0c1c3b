"""Snippets: the line around a match, the match wrapped in U+0002 … U+0003.

Pure. Offsets found in a casefolded text are mapped back to the text (casefolding can
lengthen a character: ß becomes ss), and a text's own U+0002 and U+0003 are removed so the
marks are the only ones in a snippet.
"""

from __future__ import annotations

MARK_START = "\u0002"
MARK_END = "\u0003"
SNIPPET_CHARS = 160
"""The most characters of a line a snippet shows (the marks and ``…`` not counted)."""
_LEAD_CHARS = 50


def clean(text: str) -> str:
    """``text`` without the two mark characters (and carriage returns).

    Three replaces, not ``str.translate``: translating a text with any character beyond
    ASCII goes through a table one character at a time, 25 times slower on a 5 KB note."""
    return text.replace(MARK_START, "").replace(MARK_END, "").replace("\r", "")


def grep_snippet(text: str, folded: str, at: int, needle: str) -> tuple[int, str]:
    """The 1-based line of the match of ``needle`` at ``at`` in ``folded`` (``text``
    casefolded), and the snippet of that line with the match marked."""
    line = folded.count("\n", 0, at) + 1
    start = text.rfind("\n", 0, at) + 1 if len(folded) == len(text) else _line_start(text, line)
    end = text.find("\n", start)
    source = text[start : len(text) if end < 0 else end]
    folded_line = source.casefold()
    found = folded_line.find(needle) if needle else -1
    if found < 0:
        return line, clean(source[:SNIPPET_CHARS]).strip()
    if len(folded_line) == len(source):
        first, last = found, found + len(needle)
    else:
        first = _unfolded(source, found)
        last = _unfolded(source, found + len(needle) - 1) + 1
    return line, marked(source, first, last)


def marked(source: str, first: int, last: int) -> str:
    """At most ``SNIPPET_CHARS`` of the line ``source`` around ``source[first:last]``, that
    part marked, ``…`` where the line was cut."""
    begin = max(0, min(first - _LEAD_CHARS, len(source) - SNIPPET_CHARS))
    stop = max(begin + SNIPPET_CHARS, min(last, begin + SNIPPET_CHARS))
    head = ("…" if begin > 0 else "") + clean(source[begin:first]).lstrip()
    middle = clean(source[first : min(last, stop)])
    tail = clean(source[min(last, stop) : stop]).rstrip() + ("…" if stop < len(source) else "")
    return f"{head}{MARK_START}{middle}{MARK_END}{tail}"


def _line_start(text: str, line: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start


def _unfolded(text: str, folded_offset: int) -> int:
    """The index in ``text`` of the character whose casefolding holds ``folded_offset``."""
    length = 0
    for index, char in enumerate(text):
        length += len(char.casefold())
        if length > folded_offset:
            return index
    return len(text) - 1
