"""Window events, published by the services and delivered to each user's open browsers.

An event is one of the ``quire.api.events`` models, so what the browser receives is what the
contract says; the bus never looks inside one itself. A subscription made by an account in
multi mode keeps only what ``quire.services.event_access`` lets that account see.

In-process pub/sub on the event loop: publishing never blocks and never fails because of a
slow reader. It holds no history: a browser that connects later reads the state from the API.
With several replicas every event is also sent to the others (``quire.services.replicas``),
which deliver it to their own subscribers; after a gap in those signals every subscription is
ended, so each window reconnects and reloads the state it may have missed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from quire.api.events import EVENTS, Event
from quire.services.event_access import visible_event
from quire.services.replicas.fanout import Alone, Fanout, Wakeups
from quire.services.users.access import Access, current_access

MAX_BEHIND = 1000
"""How many undelivered events a subscriber may hold before it is cut off."""
TOPIC = "events"
"""The replicas' topic of window events: ``{"user": name or null for everyone, "event": …}``."""
ACCESS_TOPIC = "access"
"""The replicas' topic that says who may read what changed (no data)."""

logger = logging.getLogger(__name__)


class EventBus:
    """Per-user fan-out of events to subscribers; call it from the event loop only.

    A subscriber that falls ``MAX_BEHIND`` events behind is cut off: it receives what it
    already holds, then its stream ends, so its browser reconnects and reloads the state
    instead of silently missing events.
    """

    def __init__(self, fanout: Fanout | None = None) -> None:
        self._subscribers: dict[str, set[MemoryObjectSendStream[Event]]] = {}
        self._closed = False
        self._access_epoch = 0
        self._fanout = fanout or Alone()
        self._fanout.listen(TOPIC, _Replicated(self))
        self._fanout.listen(
            ACCESS_TOPIC, Wakeups(lambda _: self.look_up_access_again(), self.look_up_access_again)
        )

    def access_changed(self) -> None:
        """Say that who may read what has changed (a private chat made, or its members
        changed): every account's subscription looks its access up again before it lets the
        next event through, so a private chat made after a window connected stays hidden."""
        self.look_up_access_again()
        self._fanout.send(ACCESS_TOPIC, "")

    def look_up_access_again(self) -> None:
        """Make every account's subscription on this replica look its access up again before
        the next event (another replica changed it, or may have)."""
        self._access_epoch += 1

    @property
    def access_epoch(self) -> int:
        """How many times ``access_changed`` was called."""
        return self._access_epoch

    def publish(self, user: str, event: Event) -> None:
        """Deliver ``event`` to every subscriber of ``user`` (on every replica); never blocks."""
        self.deliver(user, event)
        self._send(user, event)

    def publish_all(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber of every user (the workspaces' tree is
        everyone's), on every replica; never blocks."""
        self.deliver_all(event)
        self._send(None, event)

    def deliver(self, user: str, event: Event) -> None:
        """Deliver ``event`` to the subscribers of ``user`` on this replica only."""
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

    def deliver_all(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber on this replica only."""
        for user in list(self._subscribers):
            self.deliver(user, event)

    def cut_off(self) -> None:
        """End every subscription now (their windows reconnect and reload the state); later
        ones are served as usual."""
        for user, streams in list(self._subscribers.items()):
            for stream in list(streams):
                self._drop(user, stream)

    def _send(self, user: str | None, event: Event) -> None:
        if self._fanout.state != "alone":
            payload = {"user": user, "event": event.dump()}
            self._fanout.send(TOPIC, json.dumps(payload))

    def subscribe(
        self, user: str, refresh: Callable[[], Awaitable[Access]] | None = None
    ) -> AbstractAsyncContextManager[AsyncIterator[Event]]:
        """``async with bus.subscribe(user) as events: async for event in events: …``.

        Events published after the ``async with`` is entered are delivered in order; the
        iteration ends when the bus closes or the subscriber falls too far behind. The
        request's access (``current_access``) decides what is delivered: an account hears only
        of what it may read. ``refresh`` looks that access up again; it is called after
        ``access_changed`` (without it, or when it fails, the subscription ends rather than
        deliver by an access that may be stale).
        """
        return self._subscription(user, current_access(), refresh)

    def subscriber_count(self, user: str) -> int:
        """How many subscribers ``user`` has now."""
        return len(self._subscribers.get(user, ()))

    def close(self) -> None:
        """End every subscription; later subscriptions end at once."""
        self._closed = True
        self.cut_off()

    @asynccontextmanager
    async def _subscription(
        self, user: str, access: Access, refresh: Callable[[], Awaitable[Access]] | None
    ) -> AsyncIterator[AsyncIterator[Event]]:
        send: MemoryObjectSendStream[Event]
        receive: MemoryObjectReceiveStream[Event]
        send, receive = anyio.create_memory_object_stream[Event](MAX_BEHIND)
        if self._closed:
            send.close()
        else:
            self._subscribers.setdefault(user, set()).add(send)
        try:
            with receive:
                yield receive if not access.restricted else _Visible(receive, access, self, refresh)
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

    def __init__(
        self,
        events: AsyncIterator[Event],
        access: Access,
        bus: EventBus,
        refresh: Callable[[], Awaitable[Access]] | None,
    ) -> None:
        self._events = events
        self._access = access
        self._bus = bus
        self._refresh = refresh
        self._epoch = bus.access_epoch

    def __aiter__(self) -> _Visible:
        return self

    async def __anext__(self) -> Event:
        while True:
            event = await anext(self._events)
            if self._epoch != self._bus.access_epoch:
                self._epoch = self._bus.access_epoch
                self._access = await self._fresh_access()
            shown = visible_event(event, self._access)
            if shown is not None:
                return shown

    async def _fresh_access(self) -> Access:
        """The subscriber's access looked up again; the subscription ends (the browser
        reconnects and reloads) when it cannot be."""
        if self._refresh is None:
            raise StopAsyncIteration
        try:
            return await self._refresh()
        except Exception:
            logger.exception("Looking up an event listener's access failed; ending it")
            raise StopAsyncIteration from None


class _Replicated:
    """Window events sent by the other replicas, delivered to this one's subscribers."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus

    def received(self, data: str) -> None:
        try:
            payload = json.loads(data)
            user = payload["user"]
            event = EVENTS.validate_python(payload["event"])
        except (ValueError, TypeError, KeyError):
            logger.warning("Ignored a window event from another replica that is not one.")
            return
        if user is None:
            self._bus.deliver_all(event)
        elif isinstance(user, str):
            self._bus.deliver(user, event)

    def missed(self, *, recovered: bool) -> None:
        if recovered:
            self._bus.cut_off()
