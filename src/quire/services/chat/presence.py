"""Who is doing what in each chat: waiting, thinking or working, /status and /context reports.

In memory only, per process, judged by an injected clock (ms): a status lasts 2 minutes, a
context report an hour. It never reads files or the database and publishes nothing itself:
every change returns whether the chat's presence changed, and the caller announces it. With
several replicas, each one's entries of a chat (``shared``) are handed to the others
(``heard``), which show them beside their own until ``REMOTE_KEPT_MS`` passes without news.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from quire.api.chats import ContextUse, Presence, PresenceState
from quire.core.paths import moved_key

STATUS_MS = 2 * 60 * 1000
"""How long a /status lasts unless repeated."""
CONTEXT_MS = 60 * 60 * 1000
"""How long a /context report is kept."""
REMOTE_KEPT_MS = 90 * 1000
"""How long another replica's entries are shown without news from it (it resends its own
every third of that; a replica that died stops doing so)."""


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
        self._remote: dict[tuple[str, str], tuple[int, list[_Entry]]] = {}
        """Other replicas' entries by (replica, chat), with when they were heard."""

    def chats(self) -> list[str]:
        """The chats with entries of this replica's own."""
        return list(self._chats)

    def shared(self, chat: str) -> list[dict[str, object]]:
        """This replica's own entries of ``chat``, as the other replicas are sent them."""
        return [
            {
                "name": entry.name,
                "waits": entry.waits,
                "thinking": entry.thinking,
                "status": entry.status,
                "statusUntil": entry.status_until,
                "context": None if entry.context is None else entry.context.dump(),
                "contextUntil": entry.context_until,
            }
            for entry in self._chats.get(chat, {}).values()
        ]

    def heard(self, replica: str, chat: str, entries: list[dict[str, object]]) -> None:
        """Another replica's entries of ``chat`` (``shared`` there), in place of the last.
        Raises ValueError, TypeError or KeyError when they are not entries."""
        parsed = [_entry(item) for item in entries]
        if parsed:
            self._remote[(replica, chat)] = (self._clock(), parsed)
        else:
            self._remote.pop((replica, chat), None)

    def snapshot(self, chat: str) -> list[Presence]:
        """The names waiting, thinking or working in ``chat`` now (on any replica), in the
        order they first appeared; a name with only a context report is not listed until it
        has a state."""
        now = self._clock()
        found: list[Presence] = []
        for entry in self._all_entries(chat, now):
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

    def _all_entries(self, chat: str, now: int) -> list[_Entry]:
        """This replica's entries of ``chat`` and the other replicas' (heard lately), one per
        name: a name on several replicas waits if it waits anywhere, and shows its latest
        status and context."""
        merged = {key: replace(entry) for key, entry in self._chats.get(chat, {}).items()}
        for (replica, remote_chat), (heard_at, entries) in list(self._remote.items()):
            if now - heard_at > REMOTE_KEPT_MS:
                del self._remote[(replica, remote_chat)]
                continue
            if remote_chat != chat:
                continue
            for entry in entries:
                mine = merged.get(entry.name.lower())
                merged[entry.name.lower()] = replace(entry) if mine is None else _both(mine, entry)
        return list(merged.values())

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


def _both(one: _Entry, other: _Entry) -> _Entry:
    """One name's entries on two replicas as one."""
    status = one if one.status_until >= other.status_until else other
    context = one if one.context_until >= other.context_until else other
    return _Entry(
        one.name,
        waits=one.waits + other.waits,
        thinking=one.thinking or other.thinking,
        status=status.status,
        status_until=status.status_until,
        context=context.context,
        context_until=context.context_until,
    )


def _entry(item: dict[str, object]) -> _Entry:
    """An entry as another replica sent it (``ChatPresence.shared``)."""
    name, waits, thinking = item["name"], item["waits"], item["thinking"]
    status, status_until = item["status"], item["statusUntil"]
    context, context_until = item["context"], item["contextUntil"]
    if not (
        isinstance(name, str)
        and type(waits) is int
        and type(thinking) is bool
        and (status is None or isinstance(status, str))
        and type(status_until) is int
        and type(context_until) is int
    ):
        raise ValueError("not a presence entry")
    return _Entry(
        name,
        waits=waits,
        thinking=thinking,
        status=status,
        status_until=status_until,
        context=None if context is None else ContextUse.model_validate(context),
        context_until=context_until,
    )


def _expire(entry: _Entry, now: int) -> None:
    if entry.status is not None and now >= entry.status_until:
        entry.status = None
    if entry.context is not None and now >= entry.context_until:
        entry.context = None
