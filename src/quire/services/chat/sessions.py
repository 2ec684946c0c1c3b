"""Agent sessions in chats: each session's last chat command, kept for the keepalive hook.

Records and looks up sessions (and their stop attempts) in the database; deciding whether an
agent may stop is the hook's business, and the chat itself is the chat service's.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from quire.api.chats import SessionRecord
from quire.core.chat import STOPS_TO_RELEASE
from quire.core.errors import InvalidArgument
from quire.db import chats as store
from quire.db.chats import SessionKind, StoredSession
from quire.db.engine import Database

STOP_WINDOW_MS = 2 * 60 * 1000
"""Stop attempts within this long of each other are counted together."""
MAX_SESSION_CHARS = 200
MAX_COMMAND_CHARS = 8192
_SESSION = re.compile(r"[\x21-\x7e]+")


@dataclass(frozen=True)
class Stopper:
    """Who made a stop attempt, as the keepalive hook names it (None: not said)."""

    user: str
    session_id: str
    harness: str | None = None
    machine_label: str | None = None


Released = Callable[[Stopper], Awaitable[object]]
"""Told of each stop the keepalive's rule lets through (the third within two minutes)."""


class ChatSessions:
    """The agent sessions of one server's chats."""

    def __init__(self, db: Database, clock: Callable[[], int]) -> None:
        self._db = db
        self._clock = clock
        self._released: list[Released] = []

    def on_released(self, callback: Released) -> None:
        """Call ``callback`` for every stop that lets an agent stop (``STOPS_TO_RELEASE``
        within two minutes): it no longer listens to its chat."""
        self._released.append(callback)

    async def record(
        self,
        user: str,
        session: str | None,
        chat: str,
        reader: str,
        kind: SessionKind,
        command: str | None = None,
    ) -> None:
        """Note that ``session`` (nothing when None) ran a ``kind`` command as ``reader``;
        a wait keeps its exact ``command`` line for the hook to hand back."""
        if session is None:
            return
        async with self._db.session() as db, db.begin():
            await store.record_session(
                db,
                session_id=session,
                user_id=user,
                chat_path=chat,
                reader=reader,
                kind=kind,
                wait_command=command,
                now_ms=self._clock(),
            )

    async def leave(
        self, user: str, chat: str, reader: str | None = None, session: str | None = None
    ) -> None:
        """Mark the sessions last seen in ``chat`` (only ``reader``'s when given, and
        ``session`` wherever it was) as having left."""
        async with self._db.session() as db, db.begin():
            await store.leave_chat_sessions(db, user, chat, self._clock(), reader=reader)
        if reader is not None:
            await self.record(user, session, chat, reader, "leave")

    async def lookup(self, user: str, session_id: str) -> StoredSession | None:
        """The recorded session ``session_id``, or None when it never used a chat."""
        check_session(session_id, argument="id")
        async with self._db.session() as db:
            return await store.get_session(db, user, session_id)

    async def record_stop(self, stopper: Stopper) -> int:
        """Note a stop attempt of the session now; how many it made within 2 minutes (0 for
        a session that never used a chat, which is not recorded). From the third on, the
        keepalive lets the agent stop, and the ``on_released`` callbacks are told."""
        check_session(stopper.session_id, argument="id")
        async with self._db.session() as db, db.begin():
            count = await store.record_stop(
                db, stopper.user, stopper.session_id, self._clock(), STOP_WINDOW_MS
            )
        if count is not None and count >= STOPS_TO_RELEASE:
            for callback in self._released:
                await callback(stopper)
        return count or 0


def session_record(stored: StoredSession | None) -> SessionRecord:
    """What the keepalive hook is told of a session: ``found`` false (and nulls) for None."""
    if stored is None:
        return SessionRecord(
            found=False, last_kind=None, wait_command=None, left=False, path=None, reader=None
        )
    return SessionRecord(
        found=True,
        last_kind=stored.last_kind,
        wait_command=stored.wait_command,
        left=stored.last_kind == "leave",
        path=stored.chat_path,
        reader=stored.reader,
    )


def check_session(session: str | None, *, argument: str = "session") -> None:
    """Refuse (InvalidArgument) a session id that is not 1 to 200 visible ASCII characters."""
    if session is None:
        return
    if (
        not isinstance(session, str)
        or len(session) > MAX_SESSION_CHARS
        or _SESSION.fullmatch(session) is None
    ):
        raise InvalidArgument(
            f"`{argument}` must be a session id of 1 to {MAX_SESSION_CHARS} visible ASCII "
            f"characters (no spaces), got {session!r:.80}.",
            argument=argument,
        )


def check_command(command: str | None) -> None:
    """Refuse (InvalidArgument) a command line over 8,192 characters or holding NUL."""
    if command is None:
        return
    if not isinstance(command, str) or "\0" in command or len(command) > MAX_COMMAND_CHARS:
        raise InvalidArgument(
            f"`command` must be the command line as text, at most {MAX_COMMAND_CHARS:,} "
            "characters, without NUL.",
            argument="command",
        )
