"""The one neutral line an approval or a notice puts in the chat its agent waits in: who is
waiting and for what, never the command. At most one line per agent session every 5 minutes.

Owns that rule only; the line is posted through the chat service's one append path, and a chat
that cannot take it (deleted, chat turned off) just gets none.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

from quire.core.errors import QuireError
from quire.db.chats import StoredSession

logger = logging.getLogger(__name__)

LINE_EVERY_MS: Final = 5 * 60 * 1000
AUTHOR: Final = "quire"
HARNESS_NAMES: Final = {"claude-code": "Claude Code", "codex": "Codex"}

Post = Callable[[str, str, str], Awaitable[object]]
"""Posts ``(user, chat_path, text)`` as Quire."""


def asker(agent: str, harness: str, machine_label: str) -> str:
    """``Builder (Claude Code on build-box)``."""
    return f"{agent} ({HARNESS_NAMES.get(harness, harness)} on {machine_label})"


def in_chat(session: StoredSession | None) -> bool:
    """Whether the agent session is in its chat: it used one and its last chat command was
    not ``quire chat leave`` (an agent that left gets no card and no line there)."""
    return session is not None and session.last_kind != "leave"


class ChatLines:
    """Posts the neutral lines, at most one per agent session every 5 minutes."""

    def __init__(self, post: Post | None, *, clock: Callable[[], int]) -> None:
        self._post = post
        self._clock = clock
        self._last: dict[tuple[str, str], int] = {}

    async def say(self, user: str, session_id: str, chat_path: str, text: str) -> bool:
        """Post ``text`` to the chat unless this session had a line in the last 5 minutes;
        returns whether it was posted."""
        if self._post is None:
            return False
        now = self._clock()
        key = (user, session_id)
        last = self._last.get(key)
        if last is not None and now - last < LINE_EVERY_MS:
            return False
        self._last[key] = now
        try:
            await self._post(user, chat_path, text)
        except QuireError as error:
            logger.info("No approval line in the chat %s: %s", chat_path, error)
            return False
        return True
