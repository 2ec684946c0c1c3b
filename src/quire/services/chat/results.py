"""What the chat service answers, and the JSON each answer is sent as.

Frozen values and their ``*_data`` renderings (camelCase keys, as the HTTP API documents
them); no behaviour and no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from quire.core.chat import ChatMessage, mentions
from quire.db.chats import StoredSession
from quire.services.chat.presence import Presence

WaitStatus = Literal["messages", "timeout", "gone"]
PostKind = Literal["message", "status", "context", "role"]

REMINDER = (
    "(reminder for {name}) Your role in this chat: {role}\n"
    "Keep to this role unless a human gives you a new one."
)


@dataclass(frozen=True)
class ChatSummary:
    """One chat in the list: where it is, its title, how many messages, when it was last
    active (epoch ms), how many messages the reader has not seen, and whether it is pinned."""

    path: Path
    workspace: Path
    title: str
    message_count: int
    last_activity_ms: int
    unread: int
    pinned: bool


@dataclass(frozen=True)
class Created:
    """The outcome of making a chat: a new note, a note turned into a chat, or neither (it
    was a chat already)."""

    path: Path
    created: bool
    converted: bool


@dataclass(frozen=True)
class ChatView:
    """A chat as read: title, description, who posted (first-post order), the messages asked
    for, the ``after`` to use next, who is present, the roles and the avatars."""

    path: Path
    title: str | None
    description: str
    participants: tuple[str, ...]
    messages: tuple[ChatMessage, ...]
    next: int
    presence: tuple[Presence, ...]
    roles: Mapping[str, str]
    avatars: Mapping[str, str]


@dataclass(frozen=True)
class Posted:
    """A post's outcome: a stored message and its number, or a slash post's kind and whether
    it cleared what it sets."""

    kind: PostKind
    number: int | None = None
    cleared: bool | None = None


@dataclass(frozen=True)
class Waited:
    """A wait's outcome: the messages for the reader, or a timeout, or the chat being gone;
    ``next`` is the ``after`` to wait with next; ``reminder`` repeats the reader's role."""

    status: WaitStatus
    messages: tuple[ChatMessage, ...]
    next: int
    reminder: str | None


def reminder_for(name: str, roles: Mapping[str, str]) -> str | None:
    """The role reminder for ``name`` (matched without regard to case), or None."""
    key = name.lower()
    for holder, role in roles.items():
        if holder.lower() == key and role.strip():
            return REMINDER.format(name=name, role=role)
    return None


def message_data(message: ChatMessage) -> dict[str, object]:
    """A message as JSON: number, author, time, body and the names it mentions."""
    return {
        "number": message.number,
        "author": message.author,
        "time": message.time,
        "body": message.body,
        "mentions": sorted(mentions(message.body)),
    }


def presence_data(presence: Presence) -> dict[str, object]:
    """One name's presence as JSON."""
    context = presence.context
    return {
        "name": presence.name,
        "state": presence.state,
        "status": presence.status,
        "context": None if context is None else {"text": context.text, "percent": context.percent},
    }


def view_data(view: ChatView) -> dict[str, object]:
    """A chat view as JSON (the API's ChatView)."""
    return {
        "path": str(view.path),
        "title": view.title,
        "description": view.description,
        "participants": list(view.participants),
        "messages": [message_data(message) for message in view.messages],
        "next": view.next,
        "presence": [presence_data(item) for item in view.presence],
        "roles": dict(view.roles),
        "avatars": dict(view.avatars),
    }


def summary_data(summary: ChatSummary) -> dict[str, object]:
    """A chat list entry as JSON."""
    return {
        "path": str(summary.path),
        "workspace": str(summary.workspace),
        "title": summary.title,
        "messageCount": summary.message_count,
        "lastActivity": summary.last_activity_ms,
        "unread": summary.unread,
        "pinned": summary.pinned,
    }


def posted_data(posted: Posted) -> dict[str, object]:
    """A post's outcome as JSON."""
    if posted.kind == "message":
        return {"kind": "message", "number": posted.number}
    return {"kind": posted.kind, "cleared": bool(posted.cleared)}


def waited_data(waited: Waited) -> dict[str, object]:
    """A wait's outcome as JSON."""
    return {
        "status": waited.status,
        "messages": [message_data(message) for message in waited.messages],
        "next": waited.next,
        "reminder": waited.reminder,
    }


def session_data(session: StoredSession | None) -> dict[str, object]:
    """A session lookup as JSON: ``found`` false (and nulls) for an unknown session."""
    if session is None:
        return {
            "found": False,
            "lastKind": None,
            "waitCommand": None,
            "left": False,
            "path": None,
            "reader": None,
        }
    return {
        "found": True,
        "lastKind": session.last_kind,
        "waitCommand": session.wait_command,
        "left": session.last_kind == "leave",
        "path": session.chat_path,
        "reader": session.reader,
    }
