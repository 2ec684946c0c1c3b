"""The Redis fanout against a real redis-server: signals cross in order, a replica ignores its
own, and while Redis is away listeners poll, then look again once when it is back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from quire.services.replicas.fanout import FLUSH_S, POLL_S
from quire.services.replicas.redis_fanout import RedisFanout, redis_fanout
from tests.support.replicas import RedisServer

pytestmark = pytest.mark.anyio

DEPLOYMENT = "0123abcd"


class Recorder:
    """A listener that writes down what it hears and sets an event each time."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        self.gaps: list[bool] = []
        self.changed = anyio.Event()

    def received(self, data: str) -> None:
        self.heard.append(data)
        self._changed()

    def missed(self, *, recovered: bool) -> None:
        self.gaps.append(recovered)
        self._changed()

    def _changed(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def until(self, check: object) -> None:
        with anyio.fail_after(15):
            while not check():  # type: ignore[operator]
                await self.changed.wait()


@pytest.fixture
async def redis(tmp_path: Path) -> AsyncIterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _connected(fanout: RedisFanout) -> None:
    with anyio.fail_after(15):
        while fanout.state != "connected":  # noqa: ASYNC110 - the state follows Redis
            await anyio.sleep(0.02)


async def test_a_signal_reaches_the_other_replica_and_not_its_sender(redis: RedisServer) -> None:
    async with (
        redis_fanout(redis.url, "a", DEPLOYMENT) as one,
        redis_fanout(redis.url, "b", DEPLOYMENT) as two,
    ):
        heard_one, heard_two = Recorder(), Recorder()
        one.listen("chat-posts", heard_one)
        two.listen("chat-posts", heard_two)
        assert (one.state, two.state) == ("connected", "connected")
        for number in range(100):
            one.send("chat-posts", f"post {number}")
        two.send("chat-posts", "from b")
        await heard_two.until(lambda: len(heard_two.heard) == 100)
        await heard_one.until(lambda: heard_one.heard == ["from b"])
        assert heard_two.heard == [f"post {number}" for number in range(100)]


async def test_without_redis_listeners_poll_and_look_again_once_it_is_back(
    redis: RedisServer,
) -> None:
    async with (
        redis_fanout(redis.url, "a", DEPLOYMENT) as one,
        redis_fanout(redis.url, "b", DEPLOYMENT) as two,
    ):
        heard = Recorder()
        two.listen("reviews", heard)
        await redis.stop()
        await heard.until(lambda: heard.gaps.count(False) >= 2)
        assert two.state == "polling"
        assert True not in heard.gaps
        # Pub/sub keeps nothing for a replica not subscribed yet: what is sent while Redis
        # is away may be lost, and the "look again" once it is back stands for it.
        one.send("reviews", "decided while Redis was away")
        await redis.start()
        await _connected(two)
        await heard.until(lambda: True in heard.gaps)
        await _connected(one)
        one.send("reviews", "decided after")
        await heard.until(lambda: "decided after" in heard.heard)


async def test_a_replica_started_while_redis_is_away_polls_until_it_answers(
    tmp_path: Path,
) -> None:
    redis = RedisServer(tmp_path / "redis")
    async with redis_fanout(redis.url, "a", DEPLOYMENT) as fanout:
        heard = Recorder()
        fanout.listen("approvals", heard)
        assert fanout.state == "polling"
        with anyio.fail_after(POLL_S * 10):
            await heard.until(lambda: heard.gaps.count(False) >= 2)
        await redis.start()
        try:
            await _connected(fanout)
            await heard.until(lambda: heard.gaps[-1] is True)
        finally:
            await redis.stop()


async def test_flush_returns_once_what_was_sent_has_gone_out(redis: RedisServer) -> None:
    async with (
        redis_fanout(redis.url, "a", DEPLOYMENT) as one,
        redis_fanout(redis.url, "b", DEPLOYMENT) as two,
    ):
        heard = Recorder()
        two.listen("chat-posts", heard)
        for number in range(50):
            one.send("chat-posts", str(number))
        await one.flush()
        assert one._sent_total == 50
        await heard.until(lambda: len(heard.heard) == 50)
        await redis.stop()
        await heard.until(lambda: two.state == "polling")
        with anyio.fail_after(FLUSH_S * 3):
            one.send("chat-posts", "while away")
            await one.flush()  # bounded: Redis is away


async def test_two_deployments_on_one_redis_do_not_hear_each_other(redis: RedisServer) -> None:
    async with (
        redis_fanout(redis.url, "a", DEPLOYMENT) as ours,
        redis_fanout(redis.url, "b", DEPLOYMENT) as colleague,
        redis_fanout(redis.url, "b", "another-team") as stranger,
    ):
        heard, overheard = Recorder(), Recorder()
        colleague.listen("events", heard)
        stranger.listen("events", overheard)
        ours.send("events", "for us only")
        await ours.flush()
        await heard.until(lambda: heard.heard == ["for us only"])
        stranger.send("events", "theirs")
        await stranger.flush()
        ours.send("events", "ours again")
        await heard.until(lambda: heard.heard[-1] == "ours again")
        assert heard.heard == ["for us only", "ours again"]
        assert overheard.heard == []
