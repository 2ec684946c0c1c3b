"""A chat note's front matter: the chat tag, the title and the agents' roles.

Reads the block with the shared front matter rules and edits it line by line, so an edit
changes only the lines it names and leaves every other byte of the note as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from quire.core.chat import MAX_ROLE_CHARS, clean_line, sanitize_label
from quire.core.errors import DocumentInvalid
from quire.markdown.frontmatter import JsonValue, front_matter_span, parse_front_matter
from quire.markdown.parser import BOM

CHAT_TAG = "quire-chat"
"""The front matter key whose ``true`` value makes a note a chat."""
LEGACY_CHAT_TAG = "mdnest-chat"
"""The tag another chat tool writes; read as the same so its chats open in Quire."""
ROLES_KEY = "agents"
"""The front matter key holding each agent's role, one ``name: role`` line per agent."""
OWNER_KEY = "owner"
"""The front matter key naming the account that made the chat (multi mode): who may delete
it, besides workspace admins and superadmins."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_OPEN = re.compile(r"---[ \t]*(\r\n|\r|\n)")
_OPEN_LINE = re.compile(r"---[ \t]*(?:\r\n|\r|\n|\Z)")
_CLOSE = re.compile(r"(?<=[\r\n])(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|\Z)")
_COMMENT = re.compile(r"(?:^|[ \t])#.*")
_YAML_WORDS = frozenset(
    {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", "nan", "inf", ".nan"}
)
_PLAIN_START = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`0-9+.]")
_NOT_A_MAPPING = (
    "The note's front matter (the block between the --- lines at the top) is not a list of "
    "`key: value` lines, so Quire cannot add to it without breaking it. Rewrite it as "
    "`key: value` lines, or remove it, and try again."
)


@dataclass(frozen=True)
class _Line:
    """One line of the note: ``text`` spans ``start``..``end``; ``stop`` is past its break."""

    start: int
    end: int
    stop: int
    text: str

    @property
    def indent(self) -> int:
        return len(self.text) - len(self.text.lstrip(" \t"))

    @property
    def is_content(self) -> bool:
        """Whether the line holds YAML, not only blanks or a comment."""
        stripped = self.text.strip(" \t")
        return bool(stripped) and not stripped.startswith("#")


@dataclass(frozen=True)
class _Block:
    """A leading front matter block: the offset just past its opening line, its lines, the
    offset of its closing line, the offset past that line, its line break and properties."""

    body: int
    lines: tuple[_Line, ...]
    close: int
    end: int
    newline: str
    properties: dict[str, JsonValue]

    @property
    def is_mapping(self) -> bool:
        """Whether the block reads as ``key: value`` lines (an empty block does too)."""
        return bool(self.properties) or not any(line.is_content for line in self.lines)


def _block(text: str) -> _Block | None:
    """The leading front matter block, found without reading past its closing line."""
    opening = _OPEN.match(text, 1 if text.startswith(BOM) else 0)
    if opening is None:
        return None
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        return None
    # The shared rules decide what the block is; the search above only bounds what they read.
    span = front_matter_span(text[: closing.end()])
    if span is None or span[1] != closing.end():
        return None
    return _Block(
        body=opening.end(),
        lines=tuple(_lines(text, opening.end(), closing.start())),
        close=closing.start(),
        end=closing.end(),
        newline=opening.group(1),
        properties=parse_front_matter(span[0]),
    )


def _lines(text: str, start: int, stop: int) -> Iterator[_Line]:
    position = start
    while position < stop:
        found = _LINE_BREAK.search(text, position, stop)
        end, after = (stop, stop) if found is None else (found.start(), found.end())
        yield _Line(position, end, after, text[position:end])
        position = after


def opens_unclosed_block(text: str) -> bool:
    """Whether the note's first line is ``---`` with no later line closing a block.

    Text added after such a note could close the block and turn everything above into
    front matter, so a chat never appends to one.
    """
    start = 1 if text.startswith(BOM) else 0
    return _OPEN_LINE.match(text, start) is not None and _block(text) is None


def front_matter_properties(text: str) -> tuple[dict[str, JsonValue], int]:
    """The note's front matter properties and the offset where the text after it starts.

    A block that is not ``key: value`` lines has no properties. Without a block there are none
    and the text starts at 0, or at 1 past a leading byte order mark.
    """
    block = _block(text)
    if block is None:
        return {}, 1 if text.startswith(BOM) else 0
    return block.properties, block.end


def is_chat(text: str) -> bool:
    """Whether the note's front matter holds ``quire-chat: true`` (or the legacy tag)."""
    properties, _ = front_matter_properties(text)
    return properties.get(CHAT_TAG) is True or properties.get(LEGACY_CHAT_TAG) is True


def title_of(properties: Mapping[str, JsonValue]) -> str | None:
    """The front matter ``title`` as text, or None when there is none."""
    title = properties.get("title")
    if isinstance(title, bool) or not isinstance(title, str | int | float):
        return None
    return str(title).strip() or None


def roles_of(properties: Mapping[str, JsonValue]) -> Mapping[str, str]:
    """The ``agents:`` mapping as name -> role; entries that are not text are left out."""
    agents = properties.get(ROLES_KEY)
    if not isinstance(agents, dict):
        return MappingProxyType({})
    return MappingProxyType(
        {
            name: str(role)
            for name, role in agents.items()
            if isinstance(role, str | int | float) and not isinstance(role, bool)
        }
    )


def owner_of(text: str) -> str | None:
    """The account named by the chat's ``owner:`` line, or None when there is none."""
    properties, _ = front_matter_properties(text)
    owner = properties.get(OWNER_KEY)
    if isinstance(owner, bool) or not isinstance(owner, str | int | float):
        return None
    return str(owner).strip() or None


def make_chat(text: str, title: str | None = None, owner: str | None = None) -> str:
    """``text`` with ``quire-chat: true`` in its front matter, and nothing else changed.

    A note without front matter gets a new block at the top; ``title`` is written only when
    ``text`` is empty (a new note); ``owner`` (an account name) as an ``owner:`` line unless
    the note names one already. A note that is a chat already comes back unchanged.
    Raises DocumentInvalid when the front matter is not ``key: value`` lines.
    """
    if is_chat(text):
        return text
    tag = f"{CHAT_TAG}: true"
    owned = clean_line(owner or "")
    block = _block(text)
    if block is None:
        newline = _newline(text)
        lines = [tag]
        if owned:
            lines.append(f"{OWNER_KEY}: {_scalar(owned)}")
        heading = clean_line(title or "") if text == "" else ""
        if heading:
            lines.append(f"title: {_scalar(heading)}")
        return _with_new_block(text, lines, newline)
    if not block.is_mapping:
        raise DocumentInvalid(_NOT_A_MAPPING)
    if owned and _top_level(block, OWNER_KEY) is None:
        tag += block.newline + f"{OWNER_KEY}: {_scalar(owned)}"
    entry = _top_level(block, CHAT_TAG)
    if entry is not None:
        start, stop = entry
        return text[:start] + tag + block.newline + text[stop:]
    return text[: block.body] + tag + block.newline + text[block.body :]


def set_role(text: str, name: str, role: str | None) -> str:
    """``text`` with ``name``'s role saved under ``agents:`` in the front matter.

    The role is put on one line (control and bidi characters removed) and cut at 300
    characters; None or a blank role removes the name's entry. Names match without regard to
    case. Every other byte of the note stays as it was. Raises InvalidArgument for a name with
    no visible characters, DocumentInvalid when the front matter is not ``key: value`` lines
    or ``agents:`` is not a mapping.
    """
    label = sanitize_label(name)
    cleaned = clean_line(role or "")[:MAX_ROLE_CHARS].rstrip()
    block = _block(text)
    if block is None:
        if not cleaned:
            return text
        entry = f"  {_key(label)}: {_scalar(cleaned)}"
        return _with_new_block(text, [f"{ROLES_KEY}:", entry], _newline(text))
    if not block.is_mapping:
        if not cleaned:
            return text
        raise DocumentInvalid(_NOT_A_MAPPING)
    return _RolesEdit(text, block, label, cleaned).apply()


class _RolesEdit:
    """One change to the ``agents:`` entries of a block; ``cleaned`` empty means remove."""

    def __init__(self, text: str, block: _Block, label: str, cleaned: str) -> None:
        self.text = text
        self.block = block
        self.label = label
        self.cleaned = cleaned
        self.span = _top_level(block, ROLES_KEY)

    def apply(self) -> str:
        agents = self.block.properties.get(ROLES_KEY)
        if isinstance(agents, dict) and self.span is not None:
            return self._in_mapping(*self.span)
        if not self.cleaned:
            return self.text
        if self.span is None:
            close = self.block.close
            return self._splice(close, close, f"{ROLES_KEY}:{self.block.newline}{self._entry()}")
        if agents is None or agents == "{}":
            return self._fill_empty(*self.span)
        raise DocumentInvalid(
            "The chat's front matter has an `agents:` entry that is not a list of `name: role` "
            "lines, so the role cannot be saved there. Change it to `agents:` followed by "
            "indented `name: role` lines (or remove it) and try again."
        )

    def _entry(self, indent: str = "  ") -> str:
        return f"{indent}{_key(self.label)}: {_scalar(self.cleaned)}{self.block.newline}"

    def _splice(self, start: int, stop: int, insert: str, text: str | None = None) -> str:
        text = self.text if text is None else text
        return text[:start] + insert + text[stop:]

    def _fill_empty(self, start: int, stop: int) -> str:
        """``agents:`` with no entries under it (``agents:``, ``agents: ~``, ``agents: {}``)."""
        line = self.text[start:stop]
        value = _COMMENT.sub("", line.partition(":")[2]).strip(" \t\r\n")
        if value:
            return self._splice(start, stop, f"{ROLES_KEY}:{self.block.newline}{self._entry()}")
        return self._splice(stop, stop, self._entry())

    def _in_mapping(self, start: int, stop: int) -> str:
        inner = [line for line in self.block.lines if start < line.start < stop]
        entries = _entries(inner)
        indent = entries[0][0].text[: entries[0][0].indent] if entries else "  "
        matching = [
            (first.start, last.stop)
            for first, last in entries
            if (_line_key(first.text) or "").lower() == self.label.lower()
        ]
        if self.cleaned and not matching:
            return self._splice(stop, stop, self._entry(indent))
        if not self.cleaned and not matching:
            return self.text
        if not self.cleaned and len(matching) == len(entries) and not _has_comment(inner):
            return self._splice(start, stop, "")  # the last role goes, and `agents:` with it
        text = self.text
        for drop_start, drop_stop in reversed(matching[1:] if self.cleaned else matching):
            text = self._splice(drop_start, drop_stop, "", text)
        if self.cleaned:
            first_start, first_stop = matching[0]
            text = self._splice(first_start, first_stop, self._entry(indent), text)
        return text


def _has_comment(lines: list[_Line]) -> bool:
    return any(line.text.strip(" \t").startswith("#") for line in lines)


def _entries(lines: list[_Line]) -> list[tuple[_Line, _Line]]:
    """Each entry of a nested mapping as (its first line, its last content line); entries sit
    at the indent of the first content line, as the shared rules read them."""
    content = [line for line in lines if line.is_content]
    if not content:
        return []
    indent = content[0].indent
    entries: list[tuple[_Line, _Line]] = []
    for line in content:
        if line.indent == indent:
            entries.append((line, line))
        elif entries:
            entries[-1] = (entries[-1][0], line)
    return entries


def _top_level(block: _Block, key: str) -> tuple[int, int] | None:
    """Start and stop offsets of the last top-level entry for ``key``: its line and the lines
    under it, up to its last content line."""
    found: tuple[int, int] | None = None
    current: list[_Line] | None = None
    for line in block.lines:
        if not line.is_content:
            continue
        if line.indent == 0:
            if current is not None:
                found = (current[0].start, current[-1].stop)
            current = [line] if _line_key(line.text) == key else None
        elif current is not None:
            current.append(line)
    if current is not None:
        found = (current[0].start, current[-1].stop)
    return found


def _line_key(text: str) -> str | None:
    """The key of a ``key: value`` line, read by the shared front matter rules."""
    properties = parse_front_matter(text.strip(" \t") + "\n")
    return next(iter(properties)) if len(properties) == 1 else None


def _with_new_block(text: str, lines: list[str], newline: str) -> str:
    bom = BOM if text.startswith(BOM) else ""
    block = newline.join(["---", *lines, "---"]) + newline
    return bom + block + text[len(bom) :]


def _newline(text: str) -> str:
    found = _LINE_BREAK.search(text)
    return "\n" if found is None else found.group()


def _scalar(value: str) -> str:
    """``value`` as a YAML value: plain when every YAML reader takes it as this text."""
    if _is_plain(value) and parse_front_matter(f"k: {value}\n") == {"k": value}:
        return value
    return json.dumps(value, ensure_ascii=False)


def _key(name: str) -> str:
    """``name`` as a YAML key: plain when every YAML reader takes it as this text."""
    if _is_plain(name) and parse_front_matter(f"{name}: x\n") == {name: "x"}:
        return name
    return json.dumps(name, ensure_ascii=False)


def _is_plain(value: str) -> bool:
    return (
        _PLAIN_START.match(value) is not None
        and value.lower() not in _YAML_WORDS
        and ": " not in value
        and " #" not in value
        and not value.endswith((":", " "))
    )
