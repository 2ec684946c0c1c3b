"""Who is doing what in each chat: waiting, thinking or working, /status and /context reports.

In memory only, per process, judged by an injected clock (ms): a status lasts 2 minutes, a
context report an hour. It never reads files or the database and publishes nothing itself:
every change returns whether the chat's presence changed, and the caller announces it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from quire.api.chats import ContextUse, Presence, PresenceState
from quire.core.paths import moved_key

STATUS_MS = 2 * 60 * 1000
"""How long a /status lasts unless repeated."""
CONTEXT_MS = 60 * 60 * 1000
"""How long a /context report is kept."""


@dataclass
class _Entry:
    name: str
    waits: int = 0
    thinking: bool = False
    status: str | None = None
    status_until: int = 0
    context: ContextUse | None = None
    context_until: int = 0


class ChatPresence:
    """Presence of every name in every chat; chats are keyed by their resolved path (text)."""

    def __init__(self, clock: Callable[[], int]) -> None:
        self._clock = clock
        self._chats: dict[str, dict[str, _Entry]] = {}

    def snapshot(self, chat: str) -> list[Presence]:
        """The names waiting, thinking or working in ``chat`` now, in the order they first
        appeared; a name with only a context report is not listed until it has a state."""
        now = self._clock()
        found: list[Presence] = []
        for entry in self._chats.get(chat, {}).values():
            status = entry.status if entry.status is not None and now < entry.status_until else None
            context = (
                entry.context if entry.context is not None and now < entry.context_until else None
            )
            state: PresenceState | None
            if entry.waits > 0:
                state = "waiting"
            elif status is not None:
                state = "working"
            elif entry.thinking:
                state = "thinking"
            else:
                state = None
            if state is not None:
                found.append(Presence(name=entry.name, state=state, status=status, context=context))
        return found

    def wait_started(self, chat: str, name: str) -> bool:
        """A wait by ``name`` is open (several may be); it is no longer thinking."""

        def change(entry: _Entry) -> None:
            entry.waits += 1
            entry.thinking = False

        return self._change(chat, name, change)

    def wait_ended(self, chat: str, name: str, *, returned_messages: bool) -> bool:
        """A wait by ``name`` ended: with messages it is thinking until it posts; an empty wait
        clears its status."""

        def change(entry: _Entry) -> None:
            entry.waits = max(0, entry.waits - 1)
            entry.thinking = returned_messages
            if not returned_messages:
                entry.status = None

        return self._change(chat, name, change)

    def posted(self, chat: str, name: str) -> bool:
        """``name`` posted a message: it is neither thinking nor working any more."""

        def change(entry: _Entry) -> None:
            entry.thinking = False
            entry.status = None

        return self._change(chat, name, change)

    def set_status(self, chat: str, name: str, text: str) -> bool:
        """``name`` says what it is working on for the next 2 minutes; empty text clears it."""
        now = self._clock()

        def change(entry: _Entry) -> None:
            entry.status = text or None
            entry.status_until = now + STATUS_MS if text else 0

        return self._change(chat, name, change)

    def set_context(self, chat: str, name: str, report: ContextUse | None) -> bool:
        """``name`` reports its context use, kept for an hour; None clears it."""
        now = self._clock()

        def change(entry: _Entry) -> None:
            entry.context = report
            entry.context_until = now + CONTEXT_MS if report is not None else 0

        return self._change(chat, name, change)

    def left(self, chat: str, name: str) -> bool:
        """``name`` left the chat: its status, context and thinking are dropped (a wait still
        open keeps it waiting until that wait ends)."""

        def change(entry: _Entry) -> None:
            entry.thinking = False
            entry.status = None
            entry.context = None

        return self._change(chat, name, change)

    def forget(self, folder: Path) -> list[str]:
        """Drop everything known about the chat ``folder`` or the chats below that folder (it
        was deleted); returns the chats whose presence that changed."""
        gone = [chat for chat in self._chats if Path(chat).is_relative_to(folder)]
        for chat in gone:
            del self._chats[chat]
        return gone

    def moved(self, source: Path, target: Path) -> list[str]:
        """The chat ``source`` (or the chats below the folder ``source``) is now at
        ``target``: who is there follows it. Returns the new paths of the chats it moved."""
        moved = {chat: moved_key(chat, source, target) for chat in self._chats}
        self._chats = {moved[chat]: entries for chat, entries in self._chats.items()}
        return [new for chat, new in moved.items() if new != chat]

    def _change(self, chat: str, name: str, change: Callable[[_Entry], None]) -> bool:
        before = self.snapshot(chat)
        entries = self._chats.setdefault(chat, {})
        key = name.lower()
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = _Entry(name)
        entry.name = name
        change(entry)
        _expire(entry, self._clock())
        if entry.waits == 0 and not entry.thinking and entry.status is None and not entry.context:
            del entries[key]
            if not entries:
                del self._chats[chat]
        return self.snapshot(chat) != before


def _expire(entry: _Entry, now: int) -> None:
    if entry.status is not None and now >= entry.status_until:
        entry.status = None
    if entry.context is not None and now >= entry.context_until:
        entry.context = None
