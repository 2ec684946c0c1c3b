"""Showing a command exactly as it will run: every character that could make it look like
something else (invisible, bidirectional, unusual spaces, controls) written as ``\\u{202E}``.

Pure. A line break and a tab stay as they are (they show as what they are); a backslash that
already starts ``\\u{`` is doubled, so literal text can never pass for an escape.
"""

from __future__ import annotations

import unicodedata
from typing import Final

_SHOWN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp", "Zs"})
"""Controls, format characters (bidi, zero-width, tags), private use, unassigned, surrogates,
line and paragraph separators, and spaces; an ordinary space and the two below are let through.
"""
_KEPT: Final = frozenset({" ", "\n", "\t"})
_LOOK_ALIKE_BLANKS: Final = frozenset(
    {
        "\u115f",  # Hangul choseong filler
        "\u1160",  # Hangul jungseong filler
        "\u3164",  # Hangul filler
        "\uffa0",  # halfwidth Hangul filler
        "\u2800",  # braille blank
        "\u034f",  # combining grapheme joiner
    }
)


def needs_escape(char: str) -> bool:
    """Whether ``char`` is shown as an escape rather than as itself."""
    if char in _KEPT:
        return False
    if char in _LOOK_ALIKE_BLANKS:
        return True
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return True  # variation selectors
    return unicodedata.category(char) in _SHOWN_CATEGORIES


def shown_exactly(text: str) -> str:
    """``text`` with each character ``needs_escape`` picks written as ``\\u{HEX}``."""
    out: list[str] = []
    for index, char in enumerate(text):
        if char == "\\" and text.startswith("u{", index + 1):
            out.append("\\\\")
        elif needs_escape(char):
            out.append(f"\\u{{{ord(char):X}}}")
        else:
            out.append(char)
    return "".join(out)


def has_hidden(text: str) -> bool:
    """Whether ``shown_exactly`` would escape anything in ``text``."""
    return any(needs_escape(char) for char in text)
