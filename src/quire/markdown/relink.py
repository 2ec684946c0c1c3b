"""The link rewrite of a rename or move: a note's text, its own path and the move give the new
text and the lines that changed.

A link is what ``quire.markdown.links`` (and so the search index) calls one: wikilinks name a
note by its file name or its path in its workspace, Markdown links and images by a path from
the note's folder (or from the workspace with a leading ``/``); links in code are left alone.
Only what names the moved file (or something inside the moved folder) changes, written the way
the author wrote it: alias, heading, extension or not, ``./``, angle brackets, percent-encoding.
A note that moves itself keeps its relative links right (they are rebased on its new folder).
Pure: no file I/O.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import quote

from quire.core.limits import is_markdown_name
from quire.markdown.frontmatter import front_matter_span
from quire.markdown.links import (
    MARKDOWN_SUFFIX,
    MD_LINK,
    WIKILINK,
    destination,
    line_starts,
    link_names,
    prose_lines,
    resolved,
    wikilink_name,
)

_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_NOT_IN_WIKILINK = re.compile(r"[\[\]|#\n]")


@dataclass(frozen=True)
class Relocation:
    """A rename or move: the file or folder ``old`` is now ``new`` (absolute paths), in the
    workspaces ``old_root`` and ``new_root`` (None when outside every workspace)."""

    old: PurePosixPath
    new: PurePosixPath
    old_root: PurePosixPath | None
    new_root: PurePosixPath | None
    is_folder: bool

    def holds(self, path: PurePosixPath) -> bool:
        """Whether ``path`` is the moved file or folder or inside it."""
        return path == self.old or path.is_relative_to(self.old)

    def place(self, path: PurePosixPath) -> PurePosixPath:
        """Where ``path`` is after the move (itself when the move did not take it)."""
        return self.new / path.relative_to(self.old) if self.holds(path) else path


@dataclass(frozen=True)
class Relinked:
    """A note's text after a move: the text, how many links changed and on which 1-based
    lines (of the text before; a rewrite never adds or removes a line)."""

    text: str
    links: int
    lines: tuple[int, ...]


def relink(text: str, note: PurePosixPath, root: PurePosixPath, move: Relocation) -> Relinked:
    """``text``, the note at ``note`` in the workspace ``root`` (both before the move), with
    every link ``move`` breaks rewritten (see the module)."""
    span = front_matter_span(text)
    after = move.place(note)
    after_root = move.new_root if move.holds(note) and move.new_root is not None else root
    edits: list[tuple[int, int, str]] = []
    for offset, line in prose_lines(text, span[1] if span is not None else 0):
        for found in WIKILINK.finditer(line):
            start, end = offset + found.start(1), offset + found.end(1)
            new = _wikilink(text[start:end], move) if text[start:end] == found.group(1) else None
            if new is not None:
                edits.append((start, end, new))
        for found in MD_LINK.finditer(line):
            start, end = offset + found.start(1), offset + found.end(1)
            if text[start:end] != found.group(1):
                continue  # holds inline code
            new = _destination(found.group(1), (note, root), (after, after_root), move)
            if new is not None:
                edits.append((start, end, new))
    if not edits:
        return Relinked(text, 0, ())
    edits.sort()
    starts = line_starts(text)
    parts: list[str] = []
    at = 0
    for start, end, new in edits:
        parts += [text[at:start], new]
        at = end
    parts.append(text[at:])
    lines = sorted({bisect_right(starts, start) for start, _, _ in edits})
    return Relinked("".join(parts), len(edits), tuple(lines))


def _wikilink(written: str, move: Relocation) -> str | None:
    """The new target of the wikilink target ``written``, or None when it stays."""
    core = written.strip()
    name = wikilink_name(core)
    old_rel, new_rel = _rel(move.old, move.old_root), _rel(move.new, move.new_root)
    if not name or old_rel is None or new_rel is None:
        return None
    if move.is_folder:
        # Only a path through the folder names something inside it; a file name stays right.
        prefix = old_rel.lower() + "/"
        if not name.startswith(prefix) or core[: len(prefix)].lower() != prefix:
            return None
        new_core = new_rel + "/" + core[len(prefix) :]
    else:
        stem_name, path_name = link_names(old_rel)
        if name not in (stem_name, path_name) or name in link_names(new_rel):
            return None
        with_suffix = MARKDOWN_SUFFIX.search(core) is not None or not is_markdown_name(
            move.old.name
        )
        shown = new_rel if name == path_name and "/" in name else move.new.name
        new_core = shown if with_suffix else MARKDOWN_SUFFIX.sub("", shown)
    if _NOT_IN_WIKILINK.search(new_core):
        return None  # a wikilink cannot name it: leave the link as written
    return written.replace(core, new_core, 1)


def _destination(
    raw: str,
    before: tuple[PurePosixPath, PurePosixPath],
    after: tuple[PurePosixPath, PurePosixPath],
    move: Relocation,
) -> str | None:
    """The new Markdown destination for ``raw`` written in the note ``before`` (path and
    workspace) that is now ``after``, or None when it still names what it named."""
    found = destination(raw)
    if found is None or found.path.startswith("//"):
        return None
    decoded = found.decoded
    target = PurePosixPath(resolved(decoded, *before))
    wanted = move.place(target)
    note, root = after
    if PurePosixPath(resolved(decoded, note, root)) == wanted:
        return None
    if decoded.startswith("/") and wanted.is_relative_to(root):
        path = "/" + wanted.relative_to(root).as_posix()
    else:
        path = posixpath.relpath(wanted, note.parent)
        if decoded.startswith("./") and not path.startswith("../"):
            path = "./" + path
    if decoded.endswith("/") and not path.endswith("/"):
        path += "/"
    encoded = _encode(path, angle=found.angle, percent=_PERCENT.search(found.path) is not None)
    return f"<{encoded}{found.rest}>" if found.angle else encoded + found.rest


def _encode(path: str, *, angle: bool, percent: bool) -> str:
    """``path`` as a destination that reads back as ``path``: percent-encoded throughout when
    the author's was, else only what a destination cannot hold as it is."""
    if percent:
        return quote(path, safe="/!$&'*+,;=:@")
    out: list[str] = []
    for char in path:
        special = "<>" if angle else "()<>"
        breaks = char in "%#?\\" or char in special or ord(char) < 0x20 or char == "\x7f"
        breaks = breaks or (not angle and char.isspace())
        out.append(quote(char, safe="") if breaks else char)
    return "".join(out)


def _rel(path: PurePosixPath, root: PurePosixPath | None) -> str | None:
    if root is None or not path.is_relative_to(root) or path == root:
        return None
    return path.relative_to(root).as_posix()
