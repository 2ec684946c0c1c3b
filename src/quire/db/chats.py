"""Queries over chat state kept in the database: read positions, agent sessions and pins.

Plain functions over a session the caller opened and commits. Paths arrive resolved and reader
names sanitized; lower-casing a reader name for its key happens here, nowhere else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import ChatCursor, ChatPin, ChatSession
from quire.db.paths import at_or_below, moved_below
from quire.db.upserts import upsert

SessionKind = Literal["wait", "post", "read", "leave"]
STOPS_KEPT = 20
"""How many recent stop attempts a session remembers."""


@dataclass(frozen=True)
class StoredSession:
    """An agent session's last chat command: which chat, as which reader, what kind of command,
    the last wait's exact command line, and the times (epoch ms) of its recent stop attempts."""

    session_id: str
    user_id: str
    chat_path: str
    reader: str
    last_kind: SessionKind
    wait_command: str | None
    updated_at_ms: int
    stop_times: tuple[int, ...]


def reader_key(reader: str) -> str:
    """The key a reader name is stored under: its lower-cased form."""
    return reader.lower()


async def get_cursor(
    session: AsyncSession, user_id: str, chat_path: str, reader: str
) -> int | None:
    """The saved position of ``reader`` in the chat, or None for a reader never seen there."""
    row = await session.get(ChatCursor, (user_id, chat_path, reader_key(reader)))
    return None if row is None else row.position


async def set_cursor(
    session: AsyncSession, user_id: str, chat_path: str, reader: str, position: int, now_ms: int
) -> None:
    """Save ``position`` as how far ``reader`` has read the chat (creating or replacing it)."""
    await upsert(
        session,
        ChatCursor,
        {
            "user_id": user_id,
            "chat_path": chat_path,
            "reader": reader_key(reader),
            "position": position,
            "updated_at_ms": now_ms,
        },
        keys=("user_id", "chat_path", "reader"),
    )


async def reader_positions(
    session: AsyncSession, user_id: str, reader: str, chat_paths: Iterable[str]
) -> dict[str, int]:
    """The saved positions of ``reader`` in each of ``chat_paths`` it has read."""
    paths = list(chat_paths)
    if not paths:
        return {}
    rows = await session.execute(
        select(ChatCursor.chat_path, ChatCursor.position).where(
            ChatCursor.user_id == user_id, ChatCursor.reader == reader_key(reader)
        )
    )
    wanted = set(paths)
    return {path: position for path, position in rows if path in wanted}


async def record_session(
    session: AsyncSession,
    *,
    session_id: str,
    user_id: str,
    chat_path: str,
    reader: str,
    kind: SessionKind,
    wait_command: str | None,
    now_ms: int,
) -> None:
    """Record a chat command of an agent session. A wait stores its command line; any other
    kind keeps the last wait's command line; the stop attempts are kept."""
    values: dict[str, Any] = {
        "session_id": session_id,
        "user_id": user_id,
        "chat_path": chat_path,
        "reader": reader,
        "last_kind": kind,
        "updated_at_ms": now_ms,
    }
    changed = ["user_id", "chat_path", "reader", "last_kind", "updated_at_ms"]
    if kind == "wait":
        values["wait_command"] = wait_command
        changed.append("wait_command")
    else:
        values["wait_command"] = None
    values["stop_times"] = "[]"
    await upsert(session, ChatSession, values, keys=("session_id",), changed=changed)


async def get_session(session: AsyncSession, user_id: str, session_id: str) -> StoredSession | None:
    """The recorded session ``session_id`` of ``user_id``, or None."""
    row = await session.get(ChatSession, session_id)
    if row is None or row.user_id != user_id:
        return None
    return _stored_session(row)


async def sessions_named(
    session: AsyncSession, user_id: str, session_ids: set[str]
) -> dict[str, StoredSession]:
    """The recorded sessions of ``user_id`` among ``session_ids``, by id (one query)."""
    if not session_ids:
        return {}
    rows = await session.scalars(
        select(ChatSession).where(
            ChatSession.user_id == user_id, ChatSession.session_id.in_(sorted(session_ids))
        )
    )
    return {row.session_id: _stored_session(row) for row in rows}


async def record_stop(
    session: AsyncSession, user_id: str, session_id: str, now_ms: int, window_ms: int
) -> int | None:
    """Note a stop attempt of the session now; returns how many it made within ``window_ms``
    (this one included), or None when the session is unknown."""
    row = await session.get(ChatSession, session_id, with_for_update=True)
    if row is None or row.user_id != user_id:
        return None
    recent = [when for when in _stop_times(row.stop_times) if now_ms - when < window_ms]
    recent.append(now_ms)
    row.stop_times = json.dumps(recent[-STOPS_KEPT:])
    await session.flush()
    return len(recent)


async def leave_chat_sessions(
    session: AsyncSession, user_id: str, chat_path: str, now_ms: int, reader: str | None = None
) -> None:
    """Mark the sessions last seen in the chat, or in a chat below the folder ``chat_path``
    (only ``reader``'s, when given), as having left."""
    where = [ChatSession.user_id == user_id, at_or_below(ChatSession.chat_path, chat_path)]
    if reader is not None:
        where.append(ChatSession.reader == reader)
    await session.execute(
        update(ChatSession).where(*where).values(last_kind="leave", updated_at_ms=now_ms)
    )


async def set_pin(
    session: AsyncSession, user_id: str, chat_path: str, pinned: bool, now_ms: int
) -> None:
    """Pin the chat for the user, or unpin it."""
    if pinned:
        await upsert(
            session,
            ChatPin,
            {"user_id": user_id, "chat_path": chat_path, "pinned_at_ms": now_ms},
            keys=("user_id", "chat_path"),
            changed=[],
        )
    else:
        await session.execute(
            delete(ChatPin).where(ChatPin.user_id == user_id, ChatPin.chat_path == chat_path)
        )


async def pinned_paths(session: AsyncSession, user_id: str) -> set[str]:
    """The paths of the chats the user pinned."""
    rows = await session.scalars(select(ChatPin.chat_path).where(ChatPin.user_id == user_id))
    return set(rows)


async def forget_chats(session: AsyncSession, chat_path: str) -> None:
    """Drop every user's read positions and pin of the deleted chat ``chat_path`` (or of the
    chats below the deleted folder ``chat_path``), so a new chat there starts fresh."""
    for model in (ChatCursor, ChatPin):
        await session.execute(delete(model).where(at_or_below(model.chat_path, chat_path)))


async def move_chats(session: AsyncSession, source: str, target: str) -> None:
    """The chat ``source`` (or the chats below the folder ``source``) is now at ``target``:
    every user's read positions, pins and agent sessions follow it. Rows a chat deleted
    outside Quire left at the new paths are dropped first (they belong to no chat)."""
    await forget_chats(session, target)
    for model in (ChatCursor, ChatPin, ChatSession):
        column = model.chat_path
        await session.execute(
            update(model)
            .where(at_or_below(column, source))
            .values(chat_path=moved_below(column, source, target))
            .execution_options(synchronize_session=False)
        )


def _stop_times(raw: str) -> list[int]:
    try:
        loaded = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(loaded, list):
        return []
    return [int(item) for item in loaded if isinstance(item, int) and not isinstance(item, bool)]


def _stored_session(row: ChatSession) -> StoredSession:
    return StoredSession(
        session_id=row.session_id,
        user_id=row.user_id,
        chat_path=row.chat_path,
        reader=row.reader,
        last_kind=_kind(row.last_kind),
        wait_command=row.wait_command,
        updated_at_ms=row.updated_at_ms,
        stop_times=tuple(_stop_times(row.stop_times)),
    )


def _kind(value: str) -> SessionKind:
    match value:
        case "wait" | "post" | "read" | "leave":
            return value
        case _:
            raise ValueError(f"unknown session kind {value!r} in the chat_sessions table")
