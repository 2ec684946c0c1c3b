"""Who waits on which approval request: events set the moment a request ends.

Owns only that bookkeeping, in one event loop; it decides nothing and touches no storage.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from quire.db.approvals import StoredApproval


class Waiters:
    """The wake-up events of the requests someone waits on: one per request, shared by its
    listeners, replaced after each wake-up."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._listeners: dict[str, int] = {}
        self._ended: dict[str, StoredApproval] = {}
        """The ended request that woke each id's listeners, kept while someone listens."""

    @contextmanager
    def listening(self, approval_id: str) -> Iterator[anyio.Event]:
        """An event ``wake`` sets when ``approval_id`` ends, for as long as the block runs.
        Take it before reading the request: an end recorded after the read then sets it."""
        event = self.rearm(approval_id)
        self._listeners[approval_id] = self._listeners.get(approval_id, 0) + 1
        try:
            yield event
        finally:
            left = self._listeners.pop(approval_id) - 1
            if left:
                self._listeners[approval_id] = left
            else:
                self._events.pop(approval_id, None)
                self._ended.pop(approval_id, None)

    def rearm(self, approval_id: str) -> anyio.Event:
        """The event the next ``wake`` or ``nudge`` of ``approval_id`` sets, for a listener
        whose last wake-up found the request still pending."""
        event = self._events.get(approval_id)
        if event is None:
            event = self._events[approval_id] = anyio.Event()
        return event

    def ended(self, approval_id: str) -> StoredApproval | None:
        """The ended request that woke the listeners of ``approval_id``, if one did."""
        return self._ended.get(approval_id)

    def wake(self, approval: StoredApproval) -> None:
        """Wake everyone listening on ``approval`` (which ended), handing it over."""
        if approval.id in self._listeners:
            self._ended[approval.id] = approval
        self.nudge(approval.id)

    def nudge(self, approval_id: str) -> None:
        """Wake everyone listening on ``approval_id`` to read it again (another replica ended
        it, or may have); they ``rearm`` when it is still pending."""
        event = self._events.pop(approval_id, None)
        if event is not None:
            event.set()

    def nudge_all(self) -> None:
        """``nudge`` every request someone listens on."""
        for approval_id in list(self._events):
            self.nudge(approval_id)

    def count(self, approval_id: str) -> int:
        """How many listen on ``approval_id`` now."""
        return self._listeners.get(approval_id, 0)
