"""The rule for a name Quire gives a file or folder it creates, renames, moves or copies.

Judges one bare name (never a path): not empty, not a dotfile, not ``.``/``..``, no slash,
backslash, NUL or control character, none of the characters Windows refuses, not a name
Windows reserves (``CON``, ``NUL``, ``COM1``… with any extension), no trailing dot or space,
valid UTF-8 of at most 255 bytes. Also turns a note's title into a safe file name. Pure.
"""

from __future__ import annotations

import re
import unicodedata

from quire.core.errors import InvalidArgument
from quire.fs.sandbox import is_markdown_name

__all__ = ["MAX_NAME_BYTES", "check_name", "name_problem", "note_file_name"]

MAX_NAME_BYTES = 255
"""The longest name (in UTF-8 bytes) every common file system takes."""

_WINDOWS_CHARS = frozenset('<>:"|?*\\')
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{digit}" for digit in "123456789¹²³"}
    | {f"LPT{digit}" for digit in "123456789¹²³"}
)
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"|?*\\/]+')


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a new file or folder name, or None when it is fine."""
    if not name or not name.strip():
        return "the name is empty"
    if name in (".", ".."):
        return f"'{name}' names a folder itself, not a new name"
    if "/" in name:
        return "a name cannot hold a slash (pass the folder part in the path)"
    if "\x00" in name:
        return "a name cannot hold a NUL byte"
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in name):
        return "a name cannot hold a control character (a newline, a tab…)"
    if name.startswith("."):
        return "a name cannot start with a dot (dotfiles are hidden and never served)"
    bad = sorted(set(name) & _WINDOWS_CHARS)
    if bad:
        shown = " ".join(bad)
        return f"a name cannot hold {shown} (Windows and many sync tools refuse them)"
    if name.endswith((" ", ".")):
        return "a name cannot end with a space or a dot (Windows drops them)"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "the name is not valid UTF-8 text"
    if size > MAX_NAME_BYTES:
        return f"the name is {size} bytes of UTF-8, more than the {MAX_NAME_BYTES} disks allow"
    stem = name.split(".", 1)[0].rstrip(" ").upper()
    if stem in _RESERVED:
        return f"'{stem}' is a name Windows reserves for a device, with any extension"
    return None


def check_name(name: str, *, argument: str, verb: str) -> str:
    """Return ``name`` when it passes :func:`name_problem`, else raise InvalidArgument."""
    problem = name_problem(name)
    if problem is not None:
        raise InvalidArgument(
            f"Cannot {verb} {name!r}: {problem}. Pick another name.", argument=argument
        )
    return name


def note_file_name(title: str, *, extension: str = ".md") -> str:
    """A safe file name for a note titled ``title``: unsafe characters become ``-``, leading
    dots and trailing dots or spaces go, ``extension`` is added unless the name has a Markdown
    one, and the stem is cut to fit 255 bytes. Raises InvalidArgument when nothing is left."""
    text = unicodedata.normalize("NFC", title).strip()
    text = _UNSAFE.sub("-", text).strip(" .-") or ""
    if not text:
        raise InvalidArgument(
            f"Cannot make a file name of {title!r}: nothing is left once the characters a "
            "file name cannot hold are removed. Pick a title with letters or digits.",
            argument="path",
        )
    stem, tail = (text, extension)
    if is_markdown_name(text):
        stem, dot, ext = text.rpartition(".")
        tail = dot + ext
    while len((stem + tail).encode("utf-8")) > MAX_NAME_BYTES:
        stem = stem[:-1]
    stem = stem.rstrip(" .")
    if stem.split(".", 1)[0].upper() in _RESERVED:
        stem = f"{stem}-note"
    return stem + tail
