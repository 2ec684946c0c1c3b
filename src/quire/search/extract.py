"""What the index keeps of a note besides its text: title, front matter, tags and links.

Pure and fast (regular expressions, no Markdown parse unless a line could be a heading): the
index runs it on every note of a vault. Tags and links inside fenced code or inline code spans
are not tags or links.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import PurePosixPath

from quire.markdown.frontmatter import JsonValue, front_matter_span, parse_front_matter
from quire.markdown.links import (
    MD_LINK,
    WIKILINK,
    line_starts,
    markdown_target,
    prose_lines,
    wikilink_name,
)
from quire.markdown.titles import document_title

_HEADING = re.compile(r"(?:^|(?<=\r)) {0,3}#(?:[ \t\r\n]|\Z)", re.MULTILINE)
"""A line that may be an ATX heading; a lone CR ends a line too, as in CommonMark."""
_FIRST_HEADING = re.compile(
    r"(?:[ \t]*(?:\r\n|\n|\r))*# +([^\r\n]*?)(?:[ \t]+#+)?[ \t]*(?:\r?\n|\r|$)"
)
"""A plain ``# Title`` line after nothing but blank lines (where front matter ends, usually)."""
_TAG = re.compile(r"(?<![^\s(\[,;])#([\w/-]*[^\W\d_][\w/-]*)")


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
    starts = line_starts(text)
    for offset, line in prose_lines(text, span[1] if span is not None else 0):
        for found in _TAG.finditer(line):
            tags.setdefault(found.group(1).lower().strip("/"))
        for found in WIKILINK.finditer(line):
            name = wikilink_name(found.group(1))
            if name:
                links.append(Link(bisect_right(starts, offset + found.start()), None, name))
        for found in MD_LINK.finditer(line):
            target = markdown_target(found.group(1), path, workspace)
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
