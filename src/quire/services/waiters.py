"""Who waits on which outcome, by key (a review's id, an approval request's id): one event per
waited-on key, shared by its listeners and set when the key ends (``wake``, handing the ended
value over in memory while someone listens) or may have ended elsewhere (``nudge``: a listener
reads it again, and ``rearm``s when it has not). Touches no storage and decides nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

import anyio

T = TypeVar("T")


class Waiters(Generic[T]):
    """The wake-up events of the keys someone waits on, in one event loop."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._listeners: dict[str, int] = {}
        self._outcomes: dict[str, T] = {}
        """The ended value that woke each waited-on key, kept while someone listens."""
        self._drained: dict[str, anyio.Event] = {}
        """Set when the last listener of a key leaves, for whoever awaits ``taken``."""

    @contextmanager
    def listening(self, key: str) -> Iterator[anyio.Event]:
        """The event that ``wake`` (or ``nudge``) sets for ``key``, for as long as the block
        runs. Take it before reading the state: an end recorded after the read then sets it."""
        event = self.rearm(key)
        self._listeners[key] = self._listeners.get(key, 0) + 1
        try:
            yield event
        finally:
            left = self._listeners.pop(key) - 1
            if left:
                self._listeners[key] = left
            else:
                self._outcomes.pop(key, None)
                self._events.pop(key, None)
                drained = self._drained.pop(key, None)
                if drained is not None:
                    drained.set()

    def rearm(self, key: str) -> anyio.Event:
        """The event the next ``wake`` or ``nudge`` of ``key`` sets, for a listener whose last
        wake-up found it not ended yet."""
        event = self._events.get(key)
        if event is None:
            event = self._events[key] = anyio.Event()
        return event

    def outcome(self, key: str) -> T | None:
        """The ended value that woke the listeners of ``key``, if one did."""
        return self._outcomes.get(key)

    def wake(self, key: str, outcome: T | None) -> None:
        """Wake everyone listening on ``key``, handing ``outcome`` over (None: it has not
        ended, or the listeners read it themselves)."""
        if outcome is not None and key in self._listeners:
            self._outcomes[key] = outcome
        self.nudge(key)

    def nudge(self, key: str) -> None:
        """Wake everyone listening on ``key`` to read it again (another replica changed it, or
        may have)."""
        event = self._events.pop(key, None)
        if event is not None:
            event.set()

    def nudge_all(self) -> None:
        """``nudge`` every key someone listens on."""
        for key in list(self._events):
            self.nudge(key)

    async def taken(self, key: str) -> None:
        """Return once nobody listens on ``key`` (at once when nobody does): after a ``wake``,
        once every woken listener has taken the outcome and left."""
        if key not in self._listeners:
            return
        drained = self._drained.get(key)
        if drained is None:
            drained = self._drained[key] = anyio.Event()
        await drained.wait()

    def is_listened(self, key: str) -> bool:
        """Whether anyone is listening on ``key`` now."""
        return key in self._listeners
