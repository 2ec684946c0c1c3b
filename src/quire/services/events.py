"""Window events, published by the services and delivered to each user's open browsers.

An event is one of the ``quire.api.events`` models, so what the browser receives is what the
contract says; the bus never looks inside one itself. A subscription made by an account in
multi mode keeps only what ``quire.services.event_access`` lets that account see.

In-process pub/sub on the event loop: publishing never blocks and never fails because of a
slow reader. It holds no history: a browser that connects later reads the state from the API.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from quire.api.events import Event
from quire.services.event_access import visible_event
from quire.services.users.access import Access, current_access

MAX_BEHIND = 1000
"""How many undelivered events a subscriber may hold before it is cut off."""

logger = logging.getLogger(__name__)


class EventBus:
    """Per-user fan-out of events to subscribers; call it from the event loop only.

    A subscriber that falls ``MAX_BEHIND`` events behind is cut off: it receives what it
    already holds, then its stream ends, so its browser reconnects and reloads the state
    instead of silently missing events.
    """

    def __init__(self) -> None:
        self._subscribers: dict[str, set[MemoryObjectSendStream[Event]]] = {}
        self._closed = False

    def publish(self, user: str, event: Event) -> None:
        """Deliver ``event`` to every subscriber of ``user``; never blocks."""
        for stream in list(self._subscribers.get(user, ())):
            try:
                stream.send_nowait(event)
            except anyio.WouldBlock:
                logger.warning(
                    "An event listener of user %s fell %d events behind; disconnecting it.",
                    user,
                    MAX_BEHIND,
                )
                self._drop(user, stream)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._drop(user, stream)

    def publish_all(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber of every user (the workspaces' tree is
        everyone's); never blocks."""
        for user in list(self._subscribers):
            self.publish(user, event)

    def subscribe(self, user: str) -> AbstractAsyncContextManager[AsyncIterator[Event]]:
        """``async with bus.subscribe(user) as events: async for event in events: …``.

        Events published after the ``async with`` is entered are delivered in order; the
        iteration ends when the bus closes or the subscriber falls too far behind. The
        request's access (``current_access``) decides what is delivered: an account hears only
        of what it may read.
        """
        return self._subscription(user, current_access())

    def subscriber_count(self, user: str) -> int:
        """How many subscribers ``user`` has now."""
        return len(self._subscribers.get(user, ()))

    def close(self) -> None:
        """End every subscription; later subscriptions end at once."""
        self._closed = True
        for user, streams in list(self._subscribers.items()):
            for stream in list(streams):
                self._drop(user, stream)

    @asynccontextmanager
    async def _subscription(self, user: str, access: Access) -> AsyncIterator[AsyncIterator[Event]]:
        send: MemoryObjectSendStream[Event]
        receive: MemoryObjectReceiveStream[Event]
        send, receive = anyio.create_memory_object_stream[Event](MAX_BEHIND)
        if self._closed:
            send.close()
        else:
            self._subscribers.setdefault(user, set()).add(send)
        try:
            with receive:
                yield receive if not access.restricted else _Visible(receive, access)
        finally:
            self._drop(user, send)

    def _drop(self, user: str, stream: MemoryObjectSendStream[Event]) -> None:
        streams = self._subscribers.get(user)
        if streams is not None:
            streams.discard(stream)
            if not streams:
                del self._subscribers[user]
        stream.close()


class _Visible:
    """The events of a subscription as ``access`` may see them (``quire.services.event_access``);
    a plain iterator, not an async generator, so nothing is left to finalise when it stops."""

    def __init__(self, events: AsyncIterator[Event], access: Access) -> None:
        self._events = events
        self._access = access

    def __aiter__(self) -> _Visible:
        return self

    async def __anext__(self) -> Event:
        while True:
            shown = visible_event(await anext(self._events), self._access)
            if shown is not None:
                return shown
