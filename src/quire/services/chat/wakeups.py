"""Wake-ups of the waits on each chat: a post (or a change seen on disk) wakes every waiter.

No polling and no message passing: a waiter arms the chat's event before it looks at the chat,
then sleeps on it, so a post landing between the look and the sleep still wakes it; what is new
is judged by the waiter against its cursor, never carried by the wake-up. It never reads files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import anyio


class Listener:
    """One waiter's hold on a chat's wake-ups; ``arm`` before each look at the chat."""

    def __init__(self, waits: ChatWaits, chat: str) -> None:
        self._waits = waits
        self._chat = chat

    def arm(self) -> anyio.Event:
        """The event the next wake-up of the chat sets."""
        return self._waits.event(self._chat)


class ChatWaits:
    """The wake-up events of every chat with someone waiting; chats are keyed by path (text)."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._listeners: dict[str, int] = {}

    @contextmanager
    def listening(self, chat: str) -> Iterator[Listener]:
        """``with waits.listening(chat) as listener:`` for the length of one wait."""
        self._listeners[chat] = self._listeners.get(chat, 0) + 1
        try:
            yield Listener(self, chat)
        finally:
            left = self._listeners.pop(chat) - 1
            if left:
                self._listeners[chat] = left
            else:
                self._events.pop(chat, None)

    def event(self, chat: str) -> anyio.Event:
        """The chat's current wake-up event (made when nobody armed one yet)."""
        event = self._events.get(chat)
        if event is None:
            event = self._events[chat] = anyio.Event()
        return event

    def notify(self, chat: str) -> None:
        """Wake every waiter of ``chat``; later arms get a new event."""
        event = self._events.pop(chat, None)
        if event is not None:
            event.set()

    def notify_all(self) -> None:
        """Wake every waiter of every chat (files changed on disk, or the server is stopping)."""
        for chat in list(self._events):
            self.notify(chat)

    def waiting(self, chat: str) -> int:
        """How many waits on ``chat`` are open."""
        return self._listeners.get(chat, 0)


async def until(
    event: anyio.Event, delay_ms: int, sleep: Callable[[float], Awaitable[None]]
) -> bool:
    """Wait until ``event`` is set (True) or ``delay_ms`` has passed by ``sleep`` (False),
    whichever comes first."""
    if event.is_set():
        return True
    rang = False
    async with anyio.create_task_group() as group:

        async def alarm() -> None:
            nonlocal rang
            await sleep(max(delay_ms, 1) / 1000)
            rang = True
            group.cancel_scope.cancel()

        group.start_soon(alarm)
        await event.wait()
        group.cancel_scope.cancel()
    return not rang
