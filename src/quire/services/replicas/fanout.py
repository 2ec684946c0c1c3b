"""Signals between replicas: what one replica tells the others (a chat post, an ended review, a
window event) so their waiters wake and their windows hear of it.

A signal is a hint, never the truth: the state it speaks of is already in the shared database or
the shared workspace when it is sent, and a receiver looks there. So a lost signal costs time,
not data: while signals may be lost (the broker is away) each listener is told ``missed`` at a
bounded rate and once more when the broker is back, and looks at everything again.

``Fanout`` is the seam; ``Alone`` is the one-replica fanout (nothing to tell anyone), and
``quire.services.replicas.redis_fanout`` the Redis one. A replica never hears its own signals.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

logger = logging.getLogger(__name__)

FanoutState = Literal["alone", "connected", "polling"]
"""``alone``: one replica, nothing to fan out. ``connected``: signals go through the broker.
``polling``: the broker is away; listeners look again every ``POLL_S`` instead."""

POLL_S = 1.0
"""How often listeners look at everything again while the broker is away."""


class Listener(Protocol):
    """What a service hears on one topic."""

    def received(self, data: str) -> None:
        """Another replica sent ``data`` on the topic; runs on the event loop, must not block."""

    def missed(self, *, recovered: bool) -> None:
        """Signals may have been lost: look at the shared state again. ``recovered`` is True
        once when the broker is back, False at each poll while it is away."""


class Fanout(Protocol):
    """The signals of one replica to the others."""

    @property
    def replica(self) -> str:
        """This replica's name (``--replica-id``)."""

    @property
    def state(self) -> FanoutState:
        """How signals travel now."""

    def send(self, topic: str, data: str) -> None:
        """Tell the other replicas ``data`` on ``topic``; never blocks, never raises."""

    def listen(self, topic: str, listener: Listener) -> None:
        """Hand ``listener`` what the other replicas send on ``topic`` (one per topic)."""

    async def flush(self) -> None:
        """Return once every signal sent so far has gone out (at once while the broker is
        away, and after ``FLUSH_S`` at most): call it before acknowledging a write that others
        wait on, so a replica that dies just after still told them."""


FLUSH_S = 0.5
"""The longest ``flush`` waits for the broker."""


class Alone:
    """The fanout of a server that is the only replica: nobody to tell, nothing to hear."""

    def __init__(self, replica: str = "") -> None:
        self._replica = replica

    @property
    def replica(self) -> str:
        return self._replica

    @property
    def state(self) -> FanoutState:
        return "alone"

    def send(self, topic: str, data: str) -> None:
        pass

    def listen(self, topic: str, listener: Listener) -> None:
        pass

    async def flush(self) -> None:
        pass


@dataclass(frozen=True)
class Signal:
    """One signal as it travels: who sent it, on which topic, and what it says."""

    replica: str
    topic: str
    data: str

    def encode(self) -> bytes:
        """The signal as the bytes the broker carries."""
        return json.dumps({"replica": self.replica, "topic": self.topic, "data": self.data}).encode(
            "utf-8"
        )

    @classmethod
    def decode(cls, raw: bytes | str) -> Signal | None:
        """The signal in ``raw``, or None (logged) when it is not one."""
        try:
            value = json.loads(raw)
            fields = (value["replica"], value["topic"], value["data"])
        except (ValueError, TypeError, KeyError):
            logger.warning("Ignored a message on the replicas' channel that is not a signal.")
            return None
        if not all(isinstance(field, str) for field in fields):
            logger.warning("Ignored a signal whose fields are not text.")
            return None
        return cls(*fields)


class Topics:
    """The listeners of one replica by topic, and the rule that a replica ignores its own
    signals; shared by every fanout that receives."""

    def __init__(self, replica: str) -> None:
        self.replica = replica
        self._listeners: dict[str, Listener] = {}

    def add(self, topic: str, listener: Listener) -> None:
        """Register ``listener`` for ``topic``; a second one for a topic is a programming error."""
        if topic in self._listeners:
            raise ValueError(f"the topic {topic!r} has a listener already")
        self._listeners[topic] = listener

    def deliver(self, signal: Signal) -> None:
        """Hand ``signal`` to its topic's listener (unless this replica sent it)."""
        if signal.replica == self.replica:
            return
        listener = self._listeners.get(signal.topic)
        if listener is None:
            return
        try:
            listener.received(signal.data)
        except Exception:
            logger.exception("A listener of the topic %r failed on a signal", signal.topic)

    def missed(self, *, recovered: bool) -> None:
        """Tell every listener that signals may have been lost."""
        for topic, listener in list(self._listeners.items()):
            try:
                listener.missed(recovered=recovered)
            except Exception:
                logger.exception("A listener of the topic %r failed to look again", topic)


class Wakeups:
    """A listener that wakes the local waiters of what another replica changed: ``one(key)``
    for a signal naming it, ``every()`` when signals may have been lost (they look again)."""

    def __init__(self, one: Callable[[str], None], every: Callable[[], None]) -> None:
        self._one = one
        self._every = every

    def received(self, data: str) -> None:
        self._one(data)

    def missed(self, *, recovered: bool) -> None:
        self._every()
