"""Notices: what the person only needs to know about an agent (waiting in its terminal, idle,
stopped, any other notification), one per agent session and kind, for 12 hours or until
dismissed or the agent carries on.

Owns when a notice is raised and how long it lives; storage is ``db.notices``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Literal

from quire.api.events import NoticeData, NoticeEvent
from quire.core.errors import InvalidArgument
from quire.db import chats as chat_store
from quire.db import notices as store
from quire.db.notices import NoticeKind, StoredNotice
from quire.services.approvals.chat_lines import ChatLines, asker, in_chat
from quire.services.approvals.records import notice_record

if TYPE_CHECKING:
    from quire.api.approvals import NoticeRecord
    from quire.db.engine import Database
    from quire.services.approvals.queue import Approvals
    from quire.services.chat.sessions import Stopper
    from quire.services.events import EventBus

NOTICE_LIFE_MS: Final = 12 * 60 * 60 * 1000
MAX_MESSAGE: Final = 2000
DEFAULT_MESSAGES: Final[dict[NoticeKind, str]] = {
    "terminal": "is waiting for an answer in its terminal",
    "idle": "is waiting for input",
    "stopped": "stopped and no longer listens to the chat",
    "other": "needs attention",
}
UNKNOWN_HARNESS: Final = "claude-code"
UNKNOWN_MACHINE: Final = "unknown"
"""What a "stopped" notice says when the keepalive hook did not name the agent's harness or
machine (an older hook)."""


class Notices:
    """Every user's notices; one instance per server."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        approvals: Approvals,
        *,
        clock: Callable[[], int],
        lines: ChatLines | None = None,
    ) -> None:
        self._db = db
        self._lines = lines
        self._bus = bus
        self._approvals = approvals
        self._clock = clock

    async def raise_notice(
        self,
        user: str,
        *,
        session_id: str,
        kind: NoticeKind,
        harness: str,
        machine_label: str,
        message: str = "",
    ) -> StoredNotice | None:
        """Raise (or replace) the session's notice of ``kind``; None when it is ``terminal``
        and a card of the session already asks (the card is the notice then)."""
        if not session_id.strip() or len(session_id) > 200:
            raise InvalidArgument(
                "`session_id` must be non-empty text of at most 200 characters.",
                argument="session_id",
            )
        if kind == "terminal" and await self._approvals.has_pending(user, session_id):
            return None
        text = message.strip()[:MAX_MESSAGE] or DEFAULT_MESSAGES[kind]
        now = self._clock()
        notice = StoredNotice(
            user_id=user,
            session_id=session_id,
            kind=kind,
            harness=harness,
            machine_label=machine_label,
            message=text,
            created_at_ms=now,
            expires_at_ms=now + NOTICE_LIFE_MS,
        )
        async with self._db.session() as session, session.begin():
            await store.drop_expired(session, now)
            await store.put_notice(session, notice)
            chat = await chat_store.get_session(session, user, session_id)
        self._publish(notice, "raised")
        if self._lines is not None and chat is not None and in_chat(chat):
            who = asker(chat.reader, harness, machine_label)
            line = f"⏳ {who} {DEFAULT_MESSAGES[kind]}."
            await self._lines.say(user, session_id, chat.chat_path, line)
        return notice

    async def agent_stopped(self, stopper: Stopper) -> StoredNotice | None:
        """Raise the "stopped" notice of a chat agent the keepalive let stop (three stops in
        two minutes): it no longer listens to its chat."""
        return await self.raise_notice(
            stopper.user,
            session_id=stopper.session_id,
            kind="stopped",
            harness=stopper.harness or UNKNOWN_HARNESS,
            machine_label=stopper.machine_label or UNKNOWN_MACHINE,
        )

    async def carried_on(self, user: str, session_id: str, *, tool_ran: bool) -> int:
        """The agent went on in its terminal: its notices go away, but "stopped" only once a
        tool ran (the Stop hook's report runs beside the keepalive that raises it); returns
        how many went away."""
        return await self.dismiss(user, session_id, keep=() if tool_ran else ("stopped",))

    async def live(self, user: str) -> list[NoticeRecord]:
        """The user's notices that have not expired, newest first."""
        async with self._db.session() as session:
            found = await store.live_notices(session, user, self._clock())
        return [notice_record(notice) for notice in found]

    async def dismiss(
        self,
        user: str,
        session_id: str,
        kind: NoticeKind | None = None,
        *,
        keep: tuple[NoticeKind, ...] = (),
    ) -> int:
        """Remove the session's notice of ``kind`` (every kind but ``keep`` when None);
        returns how many went away."""
        async with self._db.session() as session, session.begin():
            removed = await store.remove_notices(session, user, session_id, kind, keep=keep)
        for notice in removed:
            self._publish(notice, "removed")
        return len(removed)

    def _publish(self, notice: StoredNotice, action: Literal["raised", "removed"]) -> None:
        self._bus.publish(
            notice.user_id,
            NoticeEvent(data=NoticeData(action=action, notice=notice_record(notice))),
        )
