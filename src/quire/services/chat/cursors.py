"""Read positions per (user, chat, reader): in memory at once, stored in the database behind.

A writer task stores changed positions a moment later (and all of them on close), so a wait
answers without waiting on the database; a crash hands messages over again, never skips one.
With several replicas each new position is also sent to the others, which keep it in memory.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Self

import anyio
from anyio.abc import TaskGroup

from quire.core.paths import moved_key
from quire.db import chats as store
from quire.db.engine import Database
from quire.services.replicas.fanout import Alone, Fanout

logger = logging.getLogger(__name__)

Key = tuple[str, str, str]

WRITE_DELAY_S = 0.25
"""How long the writer gathers new positions before it stores them."""
TOPIC = "chat-positions"
"""The replicas' topic of read positions: ``[user, chat, reader key, position]``, or ``""``
for "positions were moved or dropped: read them from the database again"."""


class ChatCursors:
    """Every reader's position in every chat, for one server."""

    def __init__(
        self, db: Database, clock: Callable[[], int], fanout: Fanout | None = None
    ) -> None:
        self._db = db
        self._fanout = fanout or Alone()
        self._fanout.listen(TOPIC, _Replicated(self))
        self._clock = clock
        self._positions: dict[Key, int] = {}
        self._pending: set[Key] = set()
        self._lock = anyio.Lock()
        self._wake = anyio.Event()
        self._group: TaskGroup | None = None

    async def __aenter__(self) -> Self:
        group = anyio.create_task_group()
        await group.__aenter__()
        group.start_soon(self._writer)
        self._group = group
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        group, self._group = self._group, None
        if group is not None:
            group.cancel_scope.cancel()
            await group.__aexit__(None, None, None)
        with anyio.CancelScope(shield=True):
            await self.flush()

    async def get(self, user: str, chat: str, reader: str) -> int | None:
        """The reader's position in the chat, or None for a reader never seen there."""
        key = _key(user, chat, reader)
        if key in self._positions:
            return self._positions[key]
        async with self._db.session() as session:
            stored = await store.get_cursor(session, user, chat, reader)
        return self._positions.get(key, stored)

    async def set(self, user: str, chat: str, reader: str, position: int) -> None:
        """Make ``position`` the reader's position; stored now, or soon by the writer."""
        key = _key(user, chat, reader)
        self._positions[key] = position
        self._pending.add(key)
        if self._fanout.state != "alone":
            self._fanout.send(TOPIC, json.dumps([*key, position]))
        if self._group is None:
            await self.flush()
        else:
            self._wake.set()

    async def positions(self, user: str, reader: str, chats: Iterable[str]) -> dict[str, int]:
        """The reader's positions in each of ``chats`` it has read."""
        wanted = list(chats)
        async with self._db.session() as session:
            found = await store.reader_positions(session, user, reader, wanted)
        for chat in wanted:
            key = _key(user, chat, reader)
            if key in self._positions:
                found[chat] = self._positions[key]
        return found

    async def forget(self, chat: str) -> None:
        """Drop every user's positions in the chat, or in the chats below the folder ``chat``
        (deleted), and their pins."""
        folder = Path(chat)
        async with self._lock:
            for key in [key for key in self._positions if Path(key[1]).is_relative_to(folder)]:
                del self._positions[key]
                self._pending.discard(key)
            async with self._db.session() as session, session.begin():
                await store.forget_chats(session, chat)
        self._fanout.send(TOPIC, "")

    async def moved(self, source: Path, target: Path) -> None:
        """The chat ``source`` (or the chats below the folder ``source``) is now at ``target``:
        every position follows it, stored or not yet stored, and so do its pins and sessions."""
        async with self._lock:
            self._positions = {
                (user, moved_key(chat, source, target), reader): position
                for (user, chat, reader), position in self._positions.items()
            }
            self._pending = {
                (user, moved_key(chat, source, target), reader)
                for user, chat, reader in self._pending
            }
            async with self._db.session() as session, session.begin():
                await store.move_chats(session, str(source), str(target))
        self._fanout.send(TOPIC, "")

    def heard(self, key: Key, position: int) -> None:
        """Another replica set (and stores) the position ``key``."""
        self._positions[key] = position

    def reread(self) -> None:
        """Forget the positions stored already, so the next look reads them from the database
        (another replica moved or dropped some, or may have changed them unheard)."""
        self._positions = {key: self._positions[key] for key in self._pending}

    async def flush(self) -> None:
        """Store every position not stored yet."""
        async with self._lock:
            keys, self._pending = self._pending, set()
            if not keys:
                return
            try:
                async with self._db.session() as session, session.begin():
                    for key in sorted(keys):
                        position = self._positions.get(key)
                        if position is not None:
                            user, chat, reader = key
                            now = self._clock()
                            await store.set_cursor(session, user, chat, reader, position, now)
            except BaseException:
                self._pending |= keys
                raise

    async def _writer(self) -> None:
        while True:
            await self._wake.wait()
            # Positions set meanwhile are stored together, in one transaction.
            await anyio.sleep(WRITE_DELAY_S)
            self._wake = anyio.Event()
            try:
                await self.flush()
            except Exception:
                logger.exception("Storing chat read positions failed; trying again later.")


class _Replicated:
    """Read positions set by the other replicas."""

    def __init__(self, cursors: ChatCursors) -> None:
        self._cursors = cursors

    def received(self, data: str) -> None:
        if not data:
            self._cursors.reread()
            return
        try:
            user, chat, reader, position = json.loads(data)
        except (ValueError, TypeError):
            logger.warning("Ignored a read position from another replica that is not one.")
            return
        if all(isinstance(part, str) for part in (user, chat, reader)) and type(position) is int:
            self._cursors.heard((user, chat, reader), position)

    def missed(self, *, recovered: bool) -> None:
        self._cursors.reread()


def _key(user: str, chat: str, reader: str) -> Key:
    return (user, chat, store.reader_key(reader))
