"""Wake-ups of the waits on each chat: a post (or a change seen on disk) wakes every waiter.

No polling and no message passing: a waiter arms the chat's event before it looks at the chat,
then sleeps on it, so a post landing between the look and the sleep still wakes it; what is new
is judged by the waiter against its cursor, never carried by the wake-up. A wait follows a rename
or move of its chat. It never reads files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio

from quire.core.paths import moved_key


class Listener:
    """One waiter's hold on a chat's wake-ups; ``arm`` before each look at the chat. ``chat``
    follows a rename or move of the chat (``ChatWaits.moved``)."""

    def __init__(self, waits: ChatWaits, chat: str) -> None:
        self._waits = waits
        self.chat = chat
        """The chat's path (text), as it is now."""

    def arm(self) -> anyio.Event:
        """The event the next wake-up of the chat sets."""
        return self._waits.event(self.chat)

    async def was_moved(self, looked_at: str) -> bool:
        """Whether the chat is no longer at ``looked_at`` because it was moved: waits for the
        file moves under way to finish first (a look may have missed the file mid-move)."""
        await self._waits.moves_done()
        return self.chat != looked_at


class ChatWaits:
    """The wake-up events of every chat with someone waiting; chats are keyed by path (text)."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self._moves = 0
        self._moves_done = anyio.Event()

    @contextmanager
    def listening(self, chat: str) -> Iterator[Listener]:
        """``with waits.listening(chat) as listener:`` for the length of one wait."""
        listener = Listener(self, chat)
        self._listeners.setdefault(chat, []).append(listener)
        try:
            yield listener
        finally:
            chat = listener.chat
            held = self._listeners.pop(chat)
            held.remove(listener)
            if held:
                self._listeners[chat] = held
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

    def keys_below(self, folder: Path) -> list[str]:
        """The chats with an open wait that are ``folder`` or below that folder."""
        return [chat for chat in self._listeners if Path(chat).is_relative_to(folder)]

    def notify_all(self) -> None:
        """Wake every waiter of every chat (files changed on disk, or the server is stopping)."""
        for chat in list(self._events):
            self.notify(chat)

    def waiting(self, chat: str) -> int:
        """How many waits on ``chat`` are open."""
        return len(self._listeners.get(chat, ()))

    @contextmanager
    def moving(self) -> Iterator[None]:
        """Held for the length of a file move: a waiter that finds its chat missing meanwhile
        asks ``Listener.was_moved``, which answers once every move held is done."""
        self._moves += 1
        try:
            yield
        finally:
            self._moves -= 1
            if not self._moves:
                self._moves_done.set()
                self._moves_done = anyio.Event()

    async def moves_done(self) -> None:
        """Return once no file move is held (at once when none is)."""
        if self._moves:
            await self._moves_done.wait()

    def moved(self, source: Path, target: Path) -> list[str]:
        """The waits on the chat ``source`` (or on chats below the folder ``source``) now wait
        on it at ``target``, and are woken to look there. Returns the chats' new paths."""
        followed: list[str] = []
        for chat in list(self._listeners):
            new = moved_key(chat, source, target)
            if new == chat:
                continue
            held = self._listeners.pop(chat)
            for listener in held:
                listener.chat = new
            self._listeners.setdefault(new, []).extend(held)
            event = self._events.pop(chat, None)
            if event is not None:
                event.set()
            followed.append(new)
        return followed


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
