"""The fanout of replicas that share a Redis: signals are published on one pub/sub channel.

One connection subscribes and hands each signal to its topic's listener; sending is queued and
published in order by one task, so ``send`` never waits on the network. When Redis goes away the
fanout says ``polling``: listeners are told ``missed`` every ``POLL_S`` and look at the shared
state themselves; it reconnects by itself, tells them once more, and says ``connected`` again.
Unsent signals wait (up to ``MAX_QUEUED``) and go out once Redis is back.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from quire.core.errors import InvalidArgument
from quire.services.replicas.fanout import (
    FLUSH_S,
    POLL_S,
    FanoutState,
    Listener,
    Signal,
    Topics,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis

logger = logging.getLogger(__name__)


def channel_of(deployment: str) -> str:
    """The pub/sub channel every replica of ``deployment`` publishes on and listens to (pub/sub
    channels span a Redis's numbered databases, so the deployment's name keeps two Quires on
    one Redis apart)."""
    return f"quire:{deployment}:signals"


MAX_QUEUED = 10_000
"""Signals kept for sending while Redis is away; older ones are dropped past that (the
receivers then only learn of them at their next look, as after any gap)."""
CONNECT_TIMEOUT_S = 1.0
"""How long one attempt to reach Redis may take."""
RETRY_S = 0.25
"""The first pause between attempts to reach Redis again; doubles up to ``POLL_S``."""
HEALTH_CHECK_S = 5
"""How often an idle connection is pinged, so a vanished Redis is noticed."""


class RedisFanout:
    """Signals between the replicas through Redis; open it with ``opened``."""

    def __init__(self, client: Redis, replica: str, channel: str) -> None:
        self._client = client
        self._channel = channel
        self._topics = Topics(replica)
        self._state: FanoutState = "polling"
        self._queue: deque[bytes] = deque(maxlen=MAX_QUEUED)
        self._queued = anyio.Event()
        self._subscribed = anyio.Event()
        self._had_gap = False
        """Whether signals may have been lost since the last time Redis answered."""
        self._queued_total = 0
        self._sent_total = 0
        self._went_out = anyio.Event()

    @property
    def replica(self) -> str:
        return self._topics.replica

    @property
    def state(self) -> FanoutState:
        return self._state

    def send(self, topic: str, data: str) -> None:
        if len(self._queue) == MAX_QUEUED:
            logger.warning("Dropped a signal to the other replicas: %d are waiting", MAX_QUEUED)
        self._queue.append(Signal(self.replica, topic, data).encode())
        self._queued_total += 1
        self._queued.set()

    async def flush(self) -> None:
        wanted = self._queued_total
        with anyio.move_on_after(FLUSH_S):
            while self._sent_total < wanted and self._state == "connected":
                await self._went_out.wait()

    def listen(self, topic: str, listener: Listener) -> None:
        self._topics.add(topic, listener)

    async def subscribed(self) -> None:
        """Return once the fanout has listened on the channel at least once."""
        await self._subscribed.wait()

    async def run_receiving(self) -> None:
        """Listen on the channel until cancelled, reconnecting (and polling) when Redis goes."""
        delay = RETRY_S
        while True:
            try:
                async with self._client.pubsub() as pubsub:
                    await pubsub.subscribe(self._channel)
                    delay = RETRY_S
                    self._connected()
                    await self._receive(pubsub)
            except Exception as exc:
                # redis-py raises its own ConnectionError/TimeoutError, OSError and, for a
                # connection that dies mid-read, sometimes other errors: all mean "away".
                self._lost(exc)
            self._topics.missed(recovered=False)
            await anyio.sleep(delay)
            delay = min(delay * 2, POLL_S)

    async def run_sending(self) -> None:
        """Publish queued signals in order until cancelled; on failure wait and try again."""
        delay = RETRY_S
        while True:
            await self._queued.wait()
            self._queued = anyio.Event()
            while self._queue:
                batch = list(self._queue)
                try:
                    async with self._client.pipeline(transaction=False) as pipe:
                        for raw in batch:
                            pipe.publish(self._channel, raw)
                        await pipe.execute()
                except Exception as exc:
                    logger.debug("Publishing %d signals failed: %s", len(batch), exc)
                    await anyio.sleep(delay)
                    delay = min(delay * 2, POLL_S)
                    continue
                delay = RETRY_S
                for _ in batch:
                    if self._queue:
                        self._queue.popleft()
                self._sent_total += len(batch)
                self._went_out.set()
                self._went_out = anyio.Event()

    async def _receive(self, pubsub: Any) -> None:
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=POLL_S)
            if message is None or message.get("type") != "message":
                continue
            signal = Signal.decode(message["data"])
            if signal is not None:
                self._topics.deliver(signal)

    def _connected(self) -> None:
        self._state = "connected"
        self._subscribed.set()
        if self._had_gap:
            self._had_gap = False
            logger.warning("Redis answers: the replicas' signals are pushed again.")
            self._topics.missed(recovered=True)

    def _lost(self, exc: BaseException) -> None:
        if self._state == "connected":
            logger.warning(
                "Lost Redis (%s): replicas look for each other's changes every %.0f s until it "
                "is back.",
                exc,
                POLL_S,
            )
        elif not self._had_gap:
            logger.warning(
                "Cannot reach Redis (%s): replicas look for each other's changes every %.0f s "
                "until it answers.",
                exc,
                POLL_S,
            )
        self._state = "polling"
        self._had_gap = True


@asynccontextmanager
async def redis_fanout(url: str, replica: str, deployment: str) -> AsyncIterator[RedisFanout]:
    """``async with redis_fanout(url, replica, deployment) as fanout``: connected (or polling,
    when Redis does not answer yet) until the block ends; it hears the replicas of
    ``deployment`` (``quire.db.deployment``) only.

    Raises InvalidArgument when the Redis client library is not installed.
    """
    try:
        from redis.asyncio import Redis
    except ImportError:
        raise InvalidArgument(
            "--redis needs the Redis client library, which is not installed. Install the "
            "`replicas` extra (`pip install 'quire[replicas]'`), or leave out --redis to run "
            "one replica.",
            argument="redis",
        ) from None
    client = Redis.from_url(
        url,
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        health_check_interval=HEALTH_CHECK_S,
    )
    fanout = RedisFanout(client, replica, channel_of(deployment))
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(fanout.run_receiving)
            group.start_soon(fanout.run_sending)
            with anyio.move_on_after(CONNECT_TIMEOUT_S * 2):
                await fanout.subscribed()
            try:
                yield fanout
            finally:
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await client.aclose()
