"""What ``quire chat`` prints: chats and messages as terminal-safe text, or as JSON.

Everything shown comes from other people's text, so control characters, escape sequences,
bidi controls and lone surrogates are replaced by visible ``\\u{…}`` escapes before they reach
a terminal; JSON is escaped the same way. Formatting only: no requests, no exit codes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from quire.api.chats import (
    ChatSummary,
    ChatView,
    GifList,
    Message,
    Posted,
    Presence,
    Waited,
)
from quire.cli.output import to_jsonable
from quire.client.transcript import GONE_MARKER

# C0 controls but tab and newline, DEL and the C1 block, bidi embeddings, overrides and
# isolates, the line and paragraph separators, and lone surrogates.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)
_UNSAFE_IN_JSON = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def safe(text: str) -> str:
    """``text`` with every character that could move the cursor, recolour the terminal or
    reorder what is shown replaced by a visible escape (``\\u{1B}``); tabs and newlines stay."""
    return _UNSAFE.sub(lambda match: f"\\u{{{ord(match.group()):X}}}", text)


def safe_line(text: str) -> str:
    """``safe(text)`` on one line: newlines shown as ``\\n`` too (for names and statuses)."""
    return safe(text).replace("\n", "\\n").replace("\t", " ")


def json_text(value: Any) -> str:
    """``value`` as indented JSON whose every string is terminal-safe (UTF-8 kept readable)."""
    text = json.dumps(to_jsonable(value), ensure_ascii=False, indent=2)
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def names_line(view: ChatView) -> str:
    """The first line of ``read``: everyone in the chat, and who is working right now."""
    everyone = list(view.participants)
    seen = {name.casefold() for name in everyone}
    for presence in view.presence:
        if presence.name.casefold() not in seen:
            everyone.append(presence.name)
            seen.add(presence.name.casefold())
    line = "In this chat: " + (", ".join(safe_line(n) for n in everyone) or "nobody yet")
    working = [_working(presence) for presence in view.presence if presence.state == "working"]
    if working:
        line += " · working now: " + ", ".join(working)
    return line


def _working(presence: Presence) -> str:
    status = f" ({safe_line(presence.status)})" if presence.status else ""
    return safe_line(presence.name) + status


def message_block(message: Message) -> str:
    """One message: ``[#n] author · time`` then its body."""
    header = f"[#{message.number}] {safe_line(message.author)} · {safe_line(message.time)}"
    return f"{header}\n{safe(message.body)}"


def messages_text(messages: Iterable[Message]) -> str:
    """Messages in order, a blank line between them."""
    return "\n\n".join(message_block(message) for message in messages)


def view_text(view: ChatView) -> str:
    """All of ``read``: the names line, title, description, roles and the messages."""
    parts = [names_line(view)]
    head = []
    if view.title:
        head.append(f"Title: {safe_line(view.title)}")
    head.append(f"Path: {safe_line(view.path)}")
    parts.append("\n".join(head))
    if view.description:
        parts.append(safe(view.description))
    if view.roles:
        parts.append(
            "Roles:\n"
            + "\n".join(f"- {safe_line(n)}: {safe_line(r)}" for n, r in view.roles.items())
        )
    if view.messages:
        parts.append(messages_text(view.messages))
    else:
        parts.append("No messages yet.")
    return "\n\n".join(parts)


def wait_text(result: Waited) -> str:
    """The messages a wait returned, then the role reminder when there is one."""
    parts = [messages_text(result.messages)]
    if result.reminder:
        parts.append(safe(result.reminder))
    return "\n\n".join(parts)


def timeout_text(path: str, reader: str, seconds: float) -> str:
    """What ``wait`` prints when nothing came in time (exit 2)."""
    return (
        f"No new messages for {safe_line(reader)} in {safe_line(path)} within {seconds:g} s. "
        "Run the same command again to keep waiting."
    )


def gone_text(path: str, leave_command: str) -> str:
    """What ``wait`` prints when the chat is gone (exit 3): stop, and the leave command."""
    return (
        f"{GONE_MARKER}: {safe_line(path)} was deleted, made unreadable or is no longer a "
        "chat. Stop waiting on it and run:\n" + safe_line(leave_command)
    )


def post_text(result: Posted, path: str, reader: str) -> str:
    """What ``post`` prints."""
    who = safe_line(reader)
    match result.kind:
        case "message":
            return f"Posted #{result.number} to {safe_line(path)} as {who}."
        case "status":
            done = "cleared" if result.cleared else "set"
            return f"Status of {who} {done} (not added to the chat)."
        case "context":
            done = "cleared" if result.cleared else "recorded"
            return f"Context use of {who} {done} (not added to the chat)."
        case "role":
            done = "removed" if result.cleared else "saved in the chat's front matter"
            return f"Role of {who} {done} (not added to the chat)."


def chats_text(chats: Sequence[ChatSummary]) -> str:
    """One line per chat, most recently active first."""
    if not chats:
        return 'No chats yet. Make one with `quire chat new PATH "Title"`.'
    return "\n".join(_chat_line(chat) for chat in chats)


def _chat_line(chat: ChatSummary) -> str:
    facts = [f"{chat.message_count} message{'' if chat.message_count == 1 else 's'}"]
    if chat.unread:
        facts.append(f"{chat.unread} unread")
    if chat.pinned:
        facts.append("pinned")
    if chat.last_activity:
        facts.append("last " + _utc(chat.last_activity))
    title = f" — {safe_line(chat.title)}" if chat.title else ""
    return f"{safe_line(chat.path)}{title} ({', '.join(facts)})"


def _utc(ms: int) -> str:
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return "?"


def gifs_text(gifs: GifList) -> str:
    """The image names a workspace's chats may use, then who has which avatar."""
    builtin = [safe_line(gif.name) for gif in gifs.gifs if gif.builtin]
    own = [safe_line(gif.name) for gif in gifs.gifs if not gif.builtin]
    lines = ["Built in: " + (", ".join(builtin) or "none")]
    lines.append("From this workspace's ChatGifs/: " + (", ".join(own) or "none"))
    if gifs.avatars:
        pairs = (f"{safe_line(n)}: {safe_line(g)}" for n, g in gifs.avatars.items())
        lines.append("Avatars: " + ", ".join(pairs))
    lines.append("React with ![nod](gif:nod) in a message.")
    return "\n".join(lines)
