"""One reader's wait in a chat: what is new for it, handed over the moment a post lands.

Judges new messages against the reader's position (never by polling; wake-ups come from
``wakeups``), keeps presence in step and moves the position on. Argument checks, sessions
and leaving after a gone chat are the chat service's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from quire.api.chats import Message, Waited
from quire.core.chat import ChatMessage, mentions, mentions_reader
from quire.core.errors import QuireError
from quire.services.chat.cursors import ChatCursors
from quire.services.chat.paths import ChatPath
from quire.services.chat.presence import ChatPresence
from quire.services.chat.tails import ChatIndex, ChatState
from quire.services.chat.wakeups import ChatWaits, Listener, until

Announce = Callable[[str, str, bool], None]
"""Called with (user, chat path as text, changed) after each presence change."""

REMINDER = (
    "(reminder for {name}) Your role in this chat: {role}\n"
    "Keep to this role unless a human gives you a new one."
)


class ChatWaiting:
    """The waits of one server's chats."""

    def __init__(
        self,
        index: ChatIndex,
        cursors: ChatCursors,
        presence: ChatPresence,
        waits: ChatWaits,
        *,
        clock: Callable[[], int],
        sleep: Callable[[float], Awaitable[None]],
        announce: Announce,
    ) -> None:
        self._index = index
        self._cursors = cursors
        self._presence = presence
        self._waits = waits
        self._clock = clock
        self._sleep = sleep
        self._announce = announce

    async def wait(
        self,
        user: str,
        target: ChatPath,
        name: str,
        after: int | None,
        mentions_only: bool,
        budget_ms: int,
    ) -> tuple[Waited, str]:
        """Wait up to ``budget_ms`` for messages for ``name`` (checked arguments); ``name`` is
        waiting meanwhile, and thinking after a wait that returned messages. The wait follows
        a rename or move of the chat; returns what it got and the chat's path (text) then."""
        waited: Waited | None = None
        self._announce(user, target.key, self._presence.wait_started(target.key, name))
        with self._waits.listening(target.key) as listener:
            try:
                waited = await self._loop(user, name, after, mentions_only, budget_ms, listener)
            finally:
                returned = waited is not None and waited.status == "messages"
                ended = self._presence.wait_ended(listener.chat, name, returned_messages=returned)
                self._announce(user, listener.chat, ended)
        assert waited is not None
        return waited, listener.chat

    async def _loop(
        self,
        user: str,
        name: str,
        after: int | None,
        mentions_only: bool,
        budget_ms: int,
        listener: Listener,
    ) -> Waited:
        deadline = self._clock() + budget_ms
        position = after
        trusted: ChatState | None = None
        while True:
            # Armed before looking, so a post landing after the look still wakes this wait.
            wakeup = listener.arm()
            chat = listener.chat
            try:
                state = trusted or await self._index.state(Path(chat))
            except QuireError:
                if await listener.was_moved(chat):
                    continue  # look again where the chat went
                return Waited(status="gone", messages=(), next=position or 0, reminder=None)
            if position is None:
                position = await self._start_position(user, chat, name, state.count)
            position = min(position, state.count)
            fresh: tuple[ChatMessage, ...] = ()
            if state.count > position:
                state, fresh = await self._index.messages(state, position)
            if fresh:
                position = state.count
                await self._cursors.set(user, chat, name, position)
                matching = tuple(m for m in fresh if is_for(m, name, mentions_only))
                if matching:
                    return Waited(
                        status="messages",
                        messages=tuple(message_answer(m) for m in matching),
                        next=position,
                        reminder=reminder_for(name, state.roles),
                    )
            if trusted is not None or fresh:
                trusted = None
                continue  # look at the file itself before sleeping
            left = deadline - self._clock()
            version = self._index.version(Path(chat))
            if left <= 0 or not await until(wakeup, left, self._sleep):
                return Waited(status="timeout", messages=(), next=position, reminder=None)
            # A post in this process just left the chat's state in the index: hand its new
            # messages over without looking at the file again (the next look does).
            known = self._index.known(Path(chat))
            if self._index.version(Path(chat)) != version and known is not None:
                trusted = known

    async def _start_position(self, user: str, chat: str, name: str, count: int) -> int:
        saved = await self._cursors.get(user, chat, name)
        if saved is None:
            # A reader never seen starts at the end; saved now, so nothing posted before its
            # next wait is lost.
            await self._cursors.set(user, chat, name, count)
            return count
        return saved


def is_for(message: ChatMessage, name: str, mentions_only: bool) -> bool:
    """Whether ``message`` goes to the reader ``name``: not its own, and with
    ``mentions_only`` only when it mentions the reader, @all or @everyone."""
    if message.author.lower() == name.lower():
        return False
    return not mentions_only or mentions_reader(message.body, name)


def reminder_for(name: str, roles: Mapping[str, str]) -> str | None:
    """The role reminder for ``name`` (matched without regard to case), or None."""
    key = name.lower()
    for holder, role in roles.items():
        if holder.lower() == key and role.strip():
            return REMINDER.format(name=name, role=role)
    return None


def message_answer(message: ChatMessage) -> Message:
    """``message`` as the API sends it, with the names it mentions (sorted)."""
    return Message(
        number=message.number,
        author=message.author,
        time=message.time,
        body=message.body,
        mentions=tuple(sorted(mentions(message.body))),
    )
