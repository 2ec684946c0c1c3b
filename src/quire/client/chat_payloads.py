"""The chat API's answers as typed values, read from JSON with their shapes checked.

Pure: turns the decoded answers of the ``/api/chats`` routes into frozen dataclasses and
refuses a shape the API does not give (ServerFailed, naming the field); sending is ``chats.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from quire.client.payloads import JsonObject, as_object, field, optional
from quire.core.errors import ServerFailed

PresenceState = Literal["waiting", "thinking", "working"]
PostKind = Literal["message", "status", "context", "role"]
WaitStatus = Literal["messages", "timeout", "gone"]
SessionKind = Literal["wait", "post", "read", "leave"]

WAIT_STATUSES: Final[tuple[WaitStatus, ...]] = get_args(WaitStatus)


@dataclass(frozen=True)
class ChatSummary:
    """One chat of the list; ``last_activity`` is in ms since the Unix epoch."""

    path: str
    workspace: str
    title: str | None
    message_count: int
    last_activity: int
    unread: int
    pinned: bool


@dataclass(frozen=True)
class ChatCreated:
    """What ``new`` did: made a new note, added the tag to a note, or neither (a chat already)."""

    path: str
    created: bool
    converted: bool


@dataclass(frozen=True)
class Message:
    """One message of a chat, numbered by its position (from 1)."""

    number: int
    author: str
    time: str
    body: str
    mentions: tuple[str, ...]


@dataclass(frozen=True)
class ContextUse:
    """How full an agent said its context window is (``42%`` or ``87k/200k``)."""

    text: str
    percent: int


@dataclass(frozen=True)
class Presence:
    """Who is doing what in a chat right now, inferred from their calls."""

    name: str
    state: PresenceState
    status: str | None
    context: ContextUse | None


@dataclass(frozen=True)
class ChatView:
    """A whole chat as ``read`` returns it; ``next`` is the ``after`` to wait from."""

    path: str
    title: str | None
    description: str
    participants: tuple[str, ...]
    messages: tuple[Message, ...]
    next: int
    presence: tuple[Presence, ...]
    roles: Mapping[str, str]
    avatars: Mapping[str, str]


@dataclass(frozen=True)
class PostResult:
    """A post: a stored message (with its number), or a slash command that was not stored."""

    kind: PostKind
    number: int | None
    cleared: bool


@dataclass(frozen=True)
class WaitResult:
    """What a wait returned: new messages, nothing before the timeout, or a chat that is gone."""

    status: WaitStatus
    messages: tuple[Message, ...]
    next: int
    reminder: str | None


@dataclass(frozen=True)
class SessionRecord:
    """What the server recorded about an agent session's chat commands (the keepalive lookup)."""

    found: bool
    last_kind: SessionKind | None
    wait_command: str | None
    left: bool
    path: str | None
    reader: str | None


@dataclass(frozen=True)
class GifName:
    """A reaction or avatar image a chat may use; ``builtin`` unless a workspace file."""

    name: str
    builtin: bool


@dataclass(frozen=True)
class GifList:
    """The images a workspace's chats may use, and who has which avatar."""

    gifs: tuple[GifName, ...]
    avatars: Mapping[str, str]


@dataclass(frozen=True)
class AvatarSet:
    """The avatar saved (``avatar-NAME``) and the built-in picked for it, if one was."""

    name: str
    picked: str | None


def _choice(data: JsonObject, name: str, choices: tuple[str, ...], *, what: str) -> Any:
    value = field(data, name, str, what=what)
    if value not in choices:
        raise ServerFailed(
            f"The Quire server's answer to {what} has an unknown `{name}` ({value[:40]!r}): it "
            "may be a different version of Quire. Update Quire so the server and this client "
            "match."
        )
    return value


def _strings(data: JsonObject, name: str, *, what: str) -> tuple[str, ...]:
    items = optional(data, name, list, what=what) or []
    if not all(isinstance(item, str) for item in items):
        raise ServerFailed(
            f"The Quire server's answer to {what} has a `{name}` that is not a list of "
            "strings: it may be a different version of Quire. Update Quire so the server and "
            "this client match."
        )
    return tuple(items)


def _names(data: JsonObject, name: str, *, what: str) -> dict[str, str]:
    found = as_object(optional(data, name, dict, what=what) or {}, what=what)
    return {str(key): str(value) for key, value in found.items() if isinstance(value, str)}


def chat_summaries(value: object) -> list[ChatSummary]:
    """Read the answer of ``GET /api/chats``."""
    what = "list chats"
    data = as_object(value, what=what)
    found = []
    for item in field(data, "chats", list, what=what):
        entry = as_object(item, what=what)
        found.append(
            ChatSummary(
                path=field(entry, "path", str, what=what),
                workspace=str(optional(entry, "workspace", str, what=what) or ""),
                title=optional(entry, "title", str, what=what),
                message_count=int(optional(entry, "messageCount", int, what=what) or 0),
                last_activity=int(optional(entry, "lastActivity", (int, float), what=what) or 0),
                unread=int(optional(entry, "unread", int, what=what) or 0),
                pinned=bool(optional(entry, "pinned", bool, what=what)),
            )
        )
    return found


def chat_created(value: object) -> ChatCreated:
    """Read the answer of ``POST /api/chats``."""
    what = "create chat"
    data = as_object(value, what=what)
    return ChatCreated(
        path=field(data, "path", str, what=what),
        created=bool(optional(data, "created", bool, what=what)),
        converted=bool(optional(data, "converted", bool, what=what)),
    )


def message(value: object, *, what: str) -> Message:
    """Read one Message object."""
    data = as_object(value, what=what)
    return Message(
        number=field(data, "number", int, what=what),
        author=field(data, "author", str, what=what),
        time=str(optional(data, "time", str, what=what) or ""),
        body=field(data, "body", str, what=what),
        mentions=_strings(data, "mentions", what=what),
    )


def _messages(data: JsonObject, *, what: str) -> tuple[Message, ...]:
    items = optional(data, "messages", list, what=what) or []
    return tuple(message(item, what=what) for item in items)


def _presence(value: object, *, what: str) -> Presence:
    data = as_object(value, what=what)
    context_data = optional(data, "context", dict, what=what)
    context = None
    if context_data is not None:
        context = ContextUse(
            text=field(context_data, "text", str, what=what),
            percent=field(context_data, "percent", int, what=what),
        )
    return Presence(
        name=field(data, "name", str, what=what),
        state=_choice(data, "state", get_args(PresenceState), what=what),
        status=optional(data, "status", str, what=what),
        context=context,
    )


def chat_view(value: object) -> ChatView:
    """Read the answer of ``GET /api/chats/read``."""
    what = "read chat"
    data = as_object(value, what=what)
    presence = optional(data, "presence", list, what=what) or []
    return ChatView(
        path=field(data, "path", str, what=what),
        title=optional(data, "title", str, what=what),
        description=str(optional(data, "description", str, what=what) or ""),
        participants=_strings(data, "participants", what=what),
        messages=_messages(data, what=what),
        next=field(data, "next", int, what=what),
        presence=tuple(_presence(item, what=what) for item in presence),
        roles=_names(data, "roles", what=what),
        avatars=_names(data, "avatars", what=what),
    )


def post_result(value: object) -> PostResult:
    """Read the answer of ``POST /api/chats/post``."""
    what = "post to chat"
    data = as_object(value, what=what)
    kind = _choice(data, "kind", get_args(PostKind), what=what)
    return PostResult(
        kind=kind,
        number=field(data, "number", int, what=what) if kind == "message" else None,
        cleared=bool(optional(data, "cleared", bool, what=what)),
    )


def wait_result(value: object) -> WaitResult:
    """Read the answer of ``POST /api/chats/wait``."""
    what = "wait on chat"
    data = as_object(value, what=what)
    return WaitResult(
        status=_choice(data, "status", WAIT_STATUSES, what=what),
        messages=_messages(data, what=what),
        next=int(optional(data, "next", int, what=what) or 0),
        reminder=optional(data, "reminder", str, what=what),
    )


def session_record(value: object) -> SessionRecord:
    """Read the answer of ``GET /api/chats/session``."""
    what = "chat session"
    data = as_object(value, what=what)
    found = bool(optional(data, "found", bool, what=what))
    kind = None
    if found and data.get("lastKind") is not None:
        kind = _choice(data, "lastKind", get_args(SessionKind), what=what)
    return SessionRecord(
        found=found,
        last_kind=kind,
        wait_command=optional(data, "waitCommand", str, what=what),
        left=bool(optional(data, "left", bool, what=what)),
        path=optional(data, "path", str, what=what),
        reader=optional(data, "reader", str, what=what),
    )


def recent_stops(value: object) -> int:
    """Read the answer of ``POST /api/chats/session/stop``."""
    what = "record stop"
    return int(field(as_object(value, what=what), "recentStops", int, what=what))


def gif_list(value: object) -> GifList:
    """Read the answer of ``GET /api/chats/gifs``."""
    what = "list chat images"
    data = as_object(value, what=what)
    gifs = []
    for item in field(data, "gifs", list, what=what):
        entry = as_object(item, what=what)
        gifs.append(
            GifName(
                name=field(entry, "name", str, what=what),
                builtin=bool(optional(entry, "builtin", bool, what=what)),
            )
        )
    return GifList(gifs=tuple(gifs), avatars=_names(data, "avatars", what=what))


def avatar_set(value: object) -> AvatarSet:
    """Read the answer of ``POST /api/chats/avatar``."""
    what = "set avatar"
    data = as_object(value, what=what)
    return AvatarSet(
        name=field(data, "name", str, what=what),
        picked=optional(data, "picked", str, what=what),
    )


def flag(value: object, name: str, *, what: str) -> bool:
    """Read a one-boolean answer such as ``{"pinned": true}``."""
    return bool(field(as_object(value, what=what), name, bool, what=what))
