"""The on-disk format of one conversation session file, and the file's name.

Pure: turns bytes into messages and messages into bytes; never touches the disk, the clock or
the lock (``sessions.py`` does). A session ``<name>.json`` is UTF-8 JSON, written like this::

    {
      "sessionId": "plan-review",
      "messages": [
        {"id":"9f…","sessionId":"plan-review","role":"agent","content":"Done.",
         "citedDocs":["/notes/plan.md"],"timestampMs":1700000000000}
      ]
    }

``sessionId`` (top level) is the id the file was created for. ``messages`` holds the messages,
oldest first, each a compact JSON object on a line of its own (wrapped above to fit). A message
has ``id`` (hex), ``sessionId`` (its own session: on a case-insensitive disk two ids can share a
file), ``role`` (``agent``, ``human`` or ``system``), ``content``, ``citedDocs`` (absolute
paths, each once) and ``timestampMs`` (milliseconds since the Unix epoch). Other keys are
ignored and not kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from quire.core.errors import InvalidArgument

MAX_FILE_NAME_BYTES = 200
"""The most bytes a session file's name may have before ``.json``."""

_KEPT_BYTES = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
)
_INDENT = "    "


@dataclass(frozen=True)
class StoredMessage:
    """One message of a session, as agents see it (field names are the JSON keys)."""

    id: str
    sessionId: str
    role: str
    content: str
    citedDocs: list[str]
    timestampMs: int


@dataclass(frozen=True)
class SessionFile:
    """A parsed session file: the id it was made for and all its messages, oldest first."""

    session_id: str
    messages: list[StoredMessage]


class MalformedSession(ValueError):
    """A session file's bytes are not the format above; ``reason`` says where and why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def check_session_id(session_id: object) -> str:
    """Return ``session_id`` when it is a non-blank string; raise InvalidArgument otherwise."""
    if not isinstance(session_id, str):
        raise InvalidArgument(
            f"session_id must be a string naming the session, not {type(session_id).__name__}.",
            argument="session_id",
        )
    if not session_id.strip():
        raise InvalidArgument(
            "session_id is empty. Pass the id of the conversation session, "
            "for example the name of the task you are working on.",
            argument="session_id",
        )
    return session_id


def session_file_name(session_id: str) -> str:
    """Return the file name that holds ``session_id``'s messages, such as ``a%2Eb.json``.

    ASCII letters, digits, ``-`` and ``_`` are kept; every other UTF-8 byte is written ``%XX``,
    so two distinct ids never share a name. Raises InvalidArgument for a blank id, an id that
    is not valid Unicode text, or one whose name would pass 200 bytes.
    """
    session_id = check_session_id(session_id)
    try:
        raw = session_id.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            "session_id is not valid Unicode text (it holds a lone surrogate code point). "
            "Use an id made of ordinary characters.",
            argument="session_id",
        ) from None
    stem = "".join(chr(byte) if byte in _KEPT_BYTES else f"%{byte:02X}" for byte in raw)
    if len(stem) > MAX_FILE_NAME_BYTES:
        raise InvalidArgument(
            f"session_id is too long: its file name would be {len(stem)} bytes, and the limit "
            f"is {MAX_FILE_NAME_BYTES} bytes. ASCII letters, digits, - and _ count one byte "
            "each and every other byte counts three. Use a shorter session id.",
            argument="session_id",
        )
    return stem + ".json"


def parse_session(text: str) -> SessionFile:
    """Read a session file's text; raise MalformedSession when it is not the format above.

    Each message's ``citedDocs`` comes back without blank paths and with each path once, in
    the order first stored, whatever a hand edit left in the file.
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise MalformedSession(
            f"is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None
    except RecursionError:
        raise MalformedSession("is not valid JSON (it is nested too deeply)") from None
    if not isinstance(document, dict):
        raise MalformedSession("does not hold a JSON object at the top")
    session_id = document.get("sessionId")
    if not isinstance(session_id, str):
        raise MalformedSession('has no "sessionId" string at the top')
    raw_messages = document.get("messages")
    if not isinstance(raw_messages, list):
        raise MalformedSession('has no "messages" list at the top')
    messages = [_parse_message(index, raw) for index, raw in enumerate(raw_messages)]
    return SessionFile(session_id=session_id, messages=messages)


def _parse_message(index: int, raw: object) -> StoredMessage:
    where = f"messages[{index}]"
    if not isinstance(raw, dict):
        raise MalformedSession(f"has a {where} that is not a JSON object")
    strings: dict[str, str] = {}
    for key in ("id", "sessionId", "role", "content"):
        value = raw.get(key)
        if not isinstance(value, str):
            raise MalformedSession(f'has a {where} without a "{key}" string')
        strings[key] = value
    cited = raw.get("citedDocs")
    if not isinstance(cited, list) or not all(isinstance(doc, str) for doc in cited):
        raise MalformedSession(f'has a {where} without a "citedDocs" list of strings')
    timestamp = raw.get("timestampMs")
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise MalformedSession(f'has a {where} without a whole-number "timestampMs"')
    return StoredMessage(
        id=strings["id"],
        sessionId=strings["sessionId"],
        role=strings["role"],
        content=strings["content"],
        citedDocs=unique_paths(cited),
        timestampMs=timestamp,
    )


def unique_paths(paths: list[str]) -> list[str]:
    """Return ``paths`` without blank entries, each once, in the order first given."""
    return list(dict.fromkeys(path for path in paths if path.strip()))


def encode_within(
    session_id: str, messages: list[StoredMessage], max_bytes: int
) -> tuple[bytes, int]:
    """Encode a session file of at most ``max_bytes``, dropping the oldest messages to fit.

    Returns the file's bytes and how many messages were dropped. The last message is never
    dropped: when it alone does not fit, InvalidArgument says so and nothing is encoded.
    """
    lines = [_encode_message(message) for message in messages]
    head, tail = _frame(session_id)
    # Each message costs its line, the indent and line break before it and, but for the
    # last, the comma after it.
    costs = [len(line) + len(_INDENT) + 2 for line in lines]
    total = len(head) + len(tail) + sum(costs) - 1
    dropped = 0
    while total > max_bytes and dropped < len(lines) - 1:
        total -= costs[dropped]
        dropped += 1
    if total > max_bytes:
        raise InvalidArgument(
            f"content is too large to save: with it the session file would be {total:,} bytes, "
            f"more than the {describe_size(max_bytes)} a session file may hold. Save a shorter "
            "message (cite the document in cited_docs instead of copying it in).",
            argument="content",
        )
    body = b",".join(b"\n" + _INDENT.encode() + line for line in lines[dropped:])
    return head + body + tail, dropped


def _frame(session_id: str) -> tuple[bytes, bytes]:
    head = '{\n  "sessionId": ' + json.dumps(session_id, ensure_ascii=False) + ',\n  "messages": ['
    return head.encode("utf-8"), b"\n  ]\n}\n"


def _encode_message(message: StoredMessage) -> bytes:
    fields = {
        "id": message.id,
        "sessionId": message.sessionId,
        "role": message.role,
        "content": message.content,
        "citedDocs": message.citedDocs,
        "timestampMs": message.timestampMs,
    }
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def describe_size(size: int) -> str:
    """Say a byte count in words: ``16 MiB``, ``16.0 MiB`` (not a whole MiB) or ``2,000 bytes``."""
    mib = 1024 * 1024
    if size < mib:
        return f"{size:,} bytes"
    if size % mib == 0:
        return f"{size // mib} MiB"
    return f"{size / mib:.1f} MiB"
