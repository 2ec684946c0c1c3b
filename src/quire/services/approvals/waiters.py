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
    """The wake-up events of the requests someone waits on."""

    def __init__(self) -> None:
        self._events: dict[str, set[anyio.Event]] = {}
        self._ended: dict[str, StoredApproval] = {}
        """The ended request that woke each id's listeners, kept while someone listens."""

    @contextmanager
    def listening(self, approval_id: str) -> Iterator[anyio.Event]:
        """An event ``wake`` sets when ``approval_id`` ends, for as long as the block runs.
        Take it before reading the request: an end recorded after the read then sets it."""
        event = anyio.Event()
        self._events.setdefault(approval_id, set()).add(event)
        try:
            yield event
        finally:
            events = self._events.get(approval_id)
            if events is not None:
                events.discard(event)
                if not events:
                    del self._events[approval_id]
                    self._ended.pop(approval_id, None)

    def ended(self, approval_id: str) -> StoredApproval | None:
        """The ended request that woke the listeners of ``approval_id``, if one did."""
        return self._ended.get(approval_id)

    def wake(self, approval: StoredApproval) -> None:
        """Wake everyone listening on ``approval`` (which ended), handing it over."""
        events = self._events.get(approval.id)
        if not events:
            return
        self._ended[approval.id] = approval
        for event in events:
            event.set()

    def count(self, approval_id: str) -> int:
        """How many listen on ``approval_id`` now."""
        return len(self._events.get(approval_id, ()))
