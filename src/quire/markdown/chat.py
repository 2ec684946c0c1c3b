"""The chat note format: ``#### author · time`` headers, message bodies and their escaping.

Reads messages from a note's text and writes the text of new ones; the front matter side
(tag, title, roles) lives in ``chat_frontmatter``. No file I/O: callers read and write notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NewType

from quire.core.chat import MAX_MESSAGE_BYTES, ChatMessage, Label
from quire.core.errors import DocumentInvalid, FileTooLarge, InvalidArgument
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.markdown.chat_frontmatter import (
    CHAT_TAG,
    LEGACY_CHAT_TAG,
    front_matter_properties,
    is_chat,
    make_chat,
    opens_unclosed_block,
    owner_of,
    roles_of,
    set_role,
    title_of,
)
from quire.markdown.parser import BOM

__all__ = [
    "CHAT_TAG",
    "LEGACY_CHAT_TAG",
    "ChatNote",
    "append_message",
    "check_message",
    "escape_body",
    "is_chat",
    "make_chat",
    "message_block",
    "normalize_body",
    "owner_of",
    "parse_chat",
    "scan_messages",
    "set_role",
    "unescape_body",
]

TIME_PATTERN = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?Z"
"""A header's UTC time, as written: what tells a message header from an ordinary heading."""
_HEADER_SHAPE = rf"#### (?P<author>[^\r\n]+?) · (?P<time>{TIME_PATTERN})[ \t]*"
_HEADER = re.compile(_HEADER_SHAPE + r"(?![^\r\n])")
_ESCAPED_LINE = re.compile(r"\\*" + _HEADER_SHAPE)
_UNESCAPED_LINE = re.compile(r"\\+" + _HEADER_SHAPE)
_TIME = re.compile(TIME_PATTERN)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_SPLIT = re.compile(r"(\r\n|\r|\n)")
_MARK = "#### "


@dataclass(frozen=True)
class ChatNote:
    """A parsed chat note: front matter ``title`` (None without one), the description (the
    text above the first message, trimmed), the messages in order, and ``agents:`` roles."""

    title: str | None
    description: str
    messages: tuple[ChatMessage, ...]
    roles: Mapping[str, str]


def parse_chat(text: str) -> ChatNote:
    """The title, description, messages and roles of a chat note (any note reads as one)."""
    properties, start = front_matter_properties(text)
    messages = _scan(text, start, 1)
    end = messages[0].offset if messages else len(text)
    return ChatNote(
        title=title_of(properties),
        description=normalize_body(text[start:end]),
        messages=messages,
        roles=roles_of(properties),
    )


def scan_messages(text: str, start: int = 0, first_number: int = 1) -> tuple[ChatMessage, ...]:
    """The messages whose header line begins at or after offset ``start``, numbered from
    ``first_number``.

    Reads only the text from ``start`` on (the front matter too when ``start`` is 0), so a
    caller that knows where a long chat's last message begins parses just its tail.
    """
    if start <= 0:
        _, start = front_matter_properties(text)
    return _scan(text, start, first_number)


def _scan(text: str, start: int, first_number: int) -> tuple[ChatMessage, ...]:
    headers = list(_headers(text, start))
    messages: list[ChatMessage] = []
    for index, header in enumerate(headers):
        stop = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        messages.append(
            ChatMessage(
                number=first_number + index,
                author=header["author"].strip(),
                time=header["time"],
                body=unescape_body(normalize_body(text[header.end() : stop])),
                offset=header.start(),
            )
        )
    return tuple(messages)


def _headers(text: str, start: int) -> list[re.Match[str]]:
    """The header lines at or after ``start``, found by a linear scan for ``#### ``."""
    found: list[re.Match[str]] = []
    position = max(start, 0)
    while (index := text.find(_MARK, position)) >= 0:
        position = index + 1
        at_line_start = index == 0 or text[index - 1] in "\r\n" or (index == 1 and text[0] == BOM)
        if at_line_start and (header := _HEADER.match(text, index)) is not None:
            found.append(header)
            position = header.end()
    return found


MessageText = NewType("MessageText", str)
"""A message body as ``check_message`` passed it: normalized, not blank, at most 64 KB, no NUL.
Only ``check_message`` makes one, so appending it needs no second check."""


def normalize_body(body: str) -> str:
    """``body`` as a message stores it: ``\\n`` line breaks, no blank lines before or after.

    A blank line holds only spaces and tabs; leading spaces of the first line with text stay.
    """
    end = len(body.rstrip(" \t\r\n"))
    if end == 0:
        return ""
    while end < len(body) and body[end] in " \t":
        end += 1  # the last line's own trailing spaces stay
    start = len(body) - len(body.lstrip(" \t\r\n"))
    while start > 0 and body[start - 1] in " \t":
        start -= 1  # and so does the first line's indent
    text = body[start:end]
    return _LINE_BREAK.sub("\n", text) if "\r" in text else text


def escape_body(body: str) -> str:
    """``body`` with one more leading backslash on each line shaped like a message header.

    A line counts when it is ``#### author · time`` after any number of backslashes, so a
    posted body can never add a header, and ``unescape_body`` gives ``body`` back exactly.
    """
    return _relined(body, _ESCAPED_LINE, lambda line: "\\" + line)


def unescape_body(body: str) -> str:
    """Undo ``escape_body``: one leading backslash less on each escaped header-shaped line."""
    return _relined(body, _UNESCAPED_LINE, lambda line: line[1:])


def _relined(body: str, shape: re.Pattern[str], change: Callable[[str], str]) -> str:
    if _MARK not in body:
        return body
    parts = _LINE_SPLIT.split(body)
    for index in range(0, len(parts), 2):
        if _MARK in parts[index] and shape.fullmatch(parts[index]):
            parts[index] = change(parts[index])
    return "".join(parts)


def check_message(body: str) -> MessageText:
    """``body`` as the message it posts (``normalize_body``), or InvalidArgument (argument
    ``body``) for a message that may not be posted.

    Refused: a blank body, a NUL character, text that is not valid Unicode, and a body over
    64 KB in UTF-8 once its surrounding blank lines are removed.
    """
    if not isinstance(body, str):
        raise InvalidArgument("The message must be text.", argument="body")
    text = normalize_body(body)
    if not text.strip():
        raise InvalidArgument(
            "The message is empty. Write some text to post.",
            argument="body",
        )
    if "\0" in text:
        raise InvalidArgument(
            "The message contains a NUL character (\\0), which a note cannot show. "
            "Remove it and post again.",
            argument="body",
        )
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidArgument(
            "The message holds characters that are not valid Unicode text (lone surrogates). "
            "Fix its encoding and post again.",
            argument="body",
        ) from None
    if size > MAX_MESSAGE_BYTES:
        raise InvalidArgument(
            f"The message is {size:,} bytes; a chat message may hold at most "
            f"{MAX_MESSAGE_BYTES:,} bytes (64 KB). Split it into several posts, or put the text "
            "in a note and post a link to it.",
            argument="body",
        )
    return MessageText(text)


def message_block(author: Label, time: str, body: MessageText) -> str:
    """The text of one message: ``#### author · time``, a blank line, the escaped body.

    ``author`` and ``body`` come checked (``sanitize_label``, ``check_message``), so they are
    not checked again; the body is escaped. Raises InvalidArgument for a time not written
    ``YYYY-MM-DDTHH:MM[:SS]Z``.
    """
    if not isinstance(time, str) or _TIME.fullmatch(time) is None:
        raise InvalidArgument(
            f"The message time {time!r} is not a UTC time written YYYY-MM-DDTHH:MM:SSZ "
            "(for example 2026-10-02T14:03:05Z).",
            argument="time",
        )
    return f"{_MARK}{author} · {time}\n\n{escape_body(body)}\n"


def append_message(text: str, author: Label, time: str, body: MessageText) -> str:
    """``text`` with a new message after it, one blank line between them.

    The existing text is kept byte for byte: only the line breaks needed for that blank line
    are added (none when the note already ends with a blank line), in the note's own style
    (LF, CRLF or CR, as its first line break). Raises what ``message_block`` raises,
    DocumentInvalid when the note starts with a ``---`` line nothing closes (a message with a
    ``---`` line would close it and hide the messages above in front matter), and FileTooLarge
    when the note would grow past the 16 MiB document limit.
    """
    block = message_block(author, time, body)
    if opens_unclosed_block(text):
        raise DocumentInvalid(
            "The note starts with a --- line that no later --- line closes, so a message added "
            "to it could turn the text above into front matter. Close the front matter block "
            "(or remove that first line) and post again."
        )
    newline = _newline(text)
    if newline != "\n":
        block = block.replace("\n", newline)
    appended = text + _separator(text, newline) + block
    # Four bytes per character at most: only a note near the limit needs measuring.
    if len(appended) * 4 > MAX_DOCUMENT_BYTES and _utf8_size(appended) > MAX_DOCUMENT_BYTES:
        raise FileTooLarge(
            "This message would take the chat note past the 16 MiB a document may hold. "
            "Start a new chat (link to this one from its description) and post there."
        )
    return appended


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _newline(text: str) -> str:
    found = _LINE_BREAK.search(text)
    style = "\n" if found is None else found.group()
    # A LF right after a trailing lone CR would join it into one CRLF break.
    return "\r" if style == "\n" and text.endswith("\r") else style


def _separator(text: str, newline: str) -> str:
    """The line breaks that end ``text`` with one blank line (nothing for an empty note)."""
    if text in ("", BOM):
        return ""
    if text.endswith(("\n", "\r")):
        end = len(text) - (2 if text.endswith("\r\n") else 1)
        return "" if _is_blank(text[_line_start(text, end) : end]) else newline
    return newline if _is_blank(text[_line_start(text, len(text)) :]) else newline * 2


def _line_start(text: str, end: int) -> int:
    """Offset where the line that ends at ``end`` begins."""
    return max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1


def _is_blank(line: str) -> bool:
    return not line.strip(" \t")
