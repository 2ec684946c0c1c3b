"""What the index keeps of a note besides its text: title, front matter, tags and links.

Pure and fast (regular expressions, no Markdown parse unless a line could be a heading): the
index runs it on every note of a vault. Tags and links inside fenced code or inline code spans
are not tags or links.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote

from quire.fs.sandbox import is_markdown_name
from quire.markdown.frontmatter import JsonValue, front_matter_span, parse_front_matter
from quire.markdown.titles import document_title

_HEADING = re.compile(r"(?:^|(?<=\r)) {0,3}#(?:[ \t\r\n]|\Z)", re.MULTILINE)
"""A line that may be an ATX heading; a lone CR ends a line too, as in CommonMark."""
_FIRST_HEADING = re.compile(
    r"(?:[ \t]*(?:\r\n|\n|\r))*# +([^\r\n]*?)(?:[ \t]+#+)?[ \t]*(?:\r?\n|\r|$)"
)
"""A plain ``# Title`` line after nothing but blank lines (where front matter ends, usually)."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TAG = re.compile(r"(?<![^\s(\[,;])#([\w/-]*[^\W\d_][\w/-]*)")
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_MD_LINK = re.compile(r"\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_MARKDOWN_SUFFIX = re.compile(r"\.(md|markdown|mdown|mkd|mdx)$", re.IGNORECASE)


@dataclass(frozen=True)
class Link:
    """A link from a note: the 1-based line it is on, and what it names: ``target_path`` (a
    Markdown link, resolved to an absolute path) or ``target_name`` (a wikilink, lowercased,
    without its Markdown extension: ``note`` or ``folder/note``)."""

    line: int
    target_path: str | None
    target_name: str | None


@dataclass(frozen=True)
class NoteFacts:
    """A note's title, front matter, tags (lowercased, each once) and links."""

    title: str
    front_matter: dict[str, JsonValue]
    tags: tuple[str, ...]
    links: tuple[Link, ...]


def note_facts(text: str, path: PurePosixPath, workspace: PurePosixPath) -> NoteFacts:
    """The facts of the note ``text`` stored at ``path`` in ``workspace`` (both absolute)."""
    span = front_matter_span(text)
    front = parse_front_matter(span[0]) if span is not None else {}
    title = _title(text, path, span[1] if span is not None else 0)
    tags = dict.fromkeys(_front_matter_tags(front))
    links: list[Link] = []
    starts = _line_starts(text)
    for offset, line in _prose(text, span[1] if span is not None else 0):
        for found in _TAG.finditer(line):
            tags.setdefault(found.group(1).lower().strip("/"))
        for found in _WIKILINK.finditer(line):
            name = _MARKDOWN_SUFFIX.sub("", found.group(1).strip()).lower()
            if name:
                links.append(Link(bisect_right(starts, offset + found.start()), None, name))
        for found in _MD_LINK.finditer(line):
            target = _markdown_target(found.group(1), path, workspace)
            if target is not None:
                links.append(Link(bisect_right(starts, offset + found.start()), target, None))
    tags.pop("", None)
    return NoteFacts(title, front, tuple(tags), tuple(links))


def _title(text: str, path: PurePosixPath, start: int) -> str:
    """``document_title``'s answer, without parsing Markdown when the first line after the
    front matter (blank lines aside) is a plain ``# Title`` (it is then the first heading) or
    no line could be a heading at all."""
    if text.startswith("\ufeff"):
        return document_title(text, path.name)
    first = _FIRST_HEADING.match(text, start)
    if first is not None:
        content = first.group(1).strip()
        if content and not content.endswith("#") and "\\" not in content:
            return content
    return document_title(text, path.name) if _HEADING.search(text) else path.stem


def link_names(rel_path: str) -> tuple[str, str]:
    """The two wikilink names a note answers to: its file name and its path in the workspace,
    lowercased and without the Markdown extension (``note``, ``folder/note``)."""
    bare = _MARKDOWN_SUFFIX.sub("", rel_path).lower()
    return bare.rsplit("/", 1)[-1], bare


def _front_matter_tags(front: dict[str, JsonValue]) -> list[str]:
    raw = front.get("tags", front.get("tag"))
    items: list[JsonValue]
    if isinstance(raw, str):
        items = list(re.split(r"[,\s]+", raw))
    elif isinstance(raw, list):
        items = list(raw)
    else:
        return []
    return [item.strip().lstrip("#").lower() for item in items if isinstance(item, str)]


def _prose(text: str, start: int) -> list[tuple[int, str]]:
    """The lines of ``text`` from ``start`` that are not in fenced code, with their offsets,
    inline code spans blanked out (same length, so offsets still hold)."""
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


def _markdown_target(raw: str, path: PurePosixPath, workspace: PurePosixPath) -> str | None:
    target = raw[1:-1] if raw.startswith("<") else raw
    if _SCHEME.match(target) or target.startswith("#"):
        return None
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not target or not is_markdown_name(PurePosixPath(target).name):
        return None
    base = workspace if target.startswith("/") else path.parent
    return posixpath.normpath(posixpath.join(str(base), target.lstrip("/")))


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    at = find("\n")
    while at != -1:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts
