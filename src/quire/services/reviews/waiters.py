"""Who waits on which review: one event per waited-on review, set when the review ends, with the
ended review handed over in memory so no waiter has to read it back.

Owns only that bookkeeping; it decides nothing about a review and touches no storage.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio

from quire.db.reviews import StoredReview


class Waiters:
    """The wake-up events of the reviews someone waits on, in one event loop."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._listeners: dict[str, int] = {}
        self._outcomes: dict[str, StoredReview] = {}
        """The ended review that woke each waited-on id, kept while someone listens."""
        self._drained: dict[str, anyio.Event] = {}
        """Set when the last listener of a review leaves, for whoever awaits ``taken``."""

    @contextmanager
    def listening(self, review_id: str) -> Iterator[anyio.Event]:
        """The event that ``wake`` sets when ``review_id`` ends, for as long as the block runs.

        Take it before reading the review: an end recorded after the read then sets it.
        """
        event = self._events.get(review_id)
        if event is None:
            event = self._events[review_id] = anyio.Event()
        self._listeners[review_id] = self._listeners.get(review_id, 0) + 1
        try:
            yield event
        finally:
            left = self._listeners.pop(review_id) - 1
            if left:
                self._listeners[review_id] = left
            else:
                self._outcomes.pop(review_id, None)
                self._events.pop(review_id, None)
                drained = self._drained.pop(review_id, None)
                if drained is not None:
                    drained.set()

    def rearm(self, review_id: str) -> anyio.Event:
        """The event the next ``wake`` or ``nudge`` of ``review_id`` sets, for a listener whose
        last wake-up found the review still pending."""
        event = self._events.get(review_id)
        if event is None:
            event = self._events[review_id] = anyio.Event()
        return event

    def nudge(self, review_id: str) -> None:
        """Wake everyone listening on ``review_id`` to read it again (another replica ended
        it, or may have); they ``rearm`` when it is still pending."""
        event = self._events.pop(review_id, None)
        if event is not None:
            event.set()

    def nudge_all(self) -> None:
        """``nudge`` every review someone listens on."""
        for review_id in list(self._events):
            self.nudge(review_id)

    def outcome(self, review_id: str) -> StoredReview | None:
        """The ended review that woke the listeners of ``review_id``, if one did."""
        return self._outcomes.get(review_id)

    def wake(self, review: StoredReview) -> None:
        """Wake everyone listening on ``review``, handing it over when it has ended."""
        event = self._events.pop(review.id, None)
        if event is None:
            return
        if review.status != "pending":
            self._outcomes[review.id] = review
        event.set()

    async def taken(self, review_id: str) -> None:
        """Return once nobody listens on ``review_id`` (at once when nobody does): after a
        ``wake``, once every woken waiter has taken the outcome and left."""
        if review_id not in self._listeners:
            return
        drained = self._drained.get(review_id)
        if drained is None:
            drained = self._drained[review_id] = anyio.Event()
        await drained.wait()

    def is_listened(self, review_id: str) -> bool:
        """Whether anyone is listening on ``review_id`` now."""
        return review_id in self._listeners
