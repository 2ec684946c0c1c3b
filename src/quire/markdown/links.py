"""Where a note's links are and what they name: wikilinks, Markdown link and image
destinations, outside fenced code and inline code spans.

Pure and fast (regular expressions, no Markdown parse): the search index runs it on every note,
and the link rewrite of a rename (``quire.markdown.relink``) finds links with the same rules,
so what the index calls a link to a note is exactly what a rename rewrites.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote

from quire.core.limits import is_markdown_name

WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(#[^\[\]|\n]*)?(\|[^\[\]\n]*)?\]\]")
"""``[[target#heading|alias]]`` (embeds ``![[...]]`` too); group 1 is the target."""
MD_LINK = re.compile(r"\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
"""A Markdown link's or image's ``](destination "title")``; group 1 is the destination."""
MARKDOWN_SUFFIX = re.compile(r"\.(md|markdown|mdown|mkd|mdx)$", re.IGNORECASE)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text: str, start: int = 0) -> list[tuple[int, str]]:
    """The lines of ``text`` from ``start`` that are not in fenced code and may hold a link or
    a tag (a ``[`` or ``#``), with their offsets, inline code spans blanked out (same length,
    so offsets still hold)."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    offset = start
    for line in text[start:].split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            closing = opening.group(1) if opening is not None else ""
            if closing[:1] == fence[0] and len(closing) >= len(fence):
                fence = None
        elif opening is not None:
            fence = opening.group(1)
        elif "[" in line or "#" in line:
            if "`" in line:
                line = _INLINE_CODE.sub(lambda code: " " * len(code.group(0)), line)
            lines.append((offset, line))
        offset += len(line) + 1
    return lines


def wikilink_name(target: str) -> str:
    """What a wikilink's target names, as the index keeps it: lowercased, without its Markdown
    extension (``note``, ``folder/note``, ``pic.png``)."""
    return MARKDOWN_SUFFIX.sub("", target.strip()).lower()


def link_names(rel_path: str) -> tuple[str, str]:
    """The two wikilink names a note answers to: its file name and its path in the workspace,
    lowercased and without the Markdown extension (``note``, ``folder/note``)."""
    bare = MARKDOWN_SUFFIX.sub("", rel_path).lower()
    return bare.rsplit("/", 1)[-1], bare


@dataclass(frozen=True)
class Destination:
    """A Markdown link's destination split up: in angle brackets or not, the path as written
    (still percent-encoded) and what follows it (``#fragment`` or ``?query``, kept as is)."""

    angle: bool
    path: str
    rest: str

    @property
    def decoded(self) -> str:
        """The path the destination names (percent-decoding undone)."""
        return unquote(self.path)


def destination(raw: str) -> Destination | None:
    """``raw`` (a ``MD_LINK`` group 1) split up, or None when it names no file by a relative
    or workspace-rooted path: another site (a scheme), a fragment of the same note, nothing."""
    angle = raw.startswith("<")
    target = raw[1:-1] if angle else raw
    if _SCHEME.match(target) or target.startswith("#"):
        return None
    cut = min((at for at in (target.find("#"), target.find("?")) if at != -1), default=-1)
    path, rest = (target, "") if cut == -1 else (target[:cut], target[cut:])
    if not unquote(path):
        return None
    return Destination(angle, path, rest)


def resolved(decoded: str, note: PurePosixPath, workspace: PurePosixPath) -> str:
    """The absolute path a destination ``decoded`` names from ``note`` (in ``workspace``): a
    path starting with ``/`` from the workspace, any other from the note's folder."""
    base = workspace if decoded.startswith("/") else note.parent
    return posixpath.normpath(posixpath.join(str(base), decoded.lstrip("/")))


def markdown_target(raw: str, note: PurePosixPath, workspace: PurePosixPath) -> str | None:
    """The absolute path of the Markdown document the destination ``raw`` names from ``note``,
    or None when it names no Markdown document."""
    found = destination(raw)
    if found is None:
        return None
    decoded = found.decoded
    if not is_markdown_name(PurePosixPath(decoded).name):
        return None
    return resolved(decoded, note, workspace)


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character in ``text`` (for ``bisect`` to a 1-based
    line number)."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at != -1:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts
