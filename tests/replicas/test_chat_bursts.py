"""Many posters on one chat through two replicas: nothing lost, nothing doubled, one order.

40 posters post 25 messages each, alternating between the replicas, all at once. Both replicas
then read the same 1,000 messages in the same order, numbered 1 to 1,000, each poster's in the
order it sent them. Then the same burst with Redis stopped in the middle of it and started again
(the replicas keep serving, and say so in /health), and with one replica killed (SIGKILL) in the
middle of it (every post it acknowledged is in the chat; its posters carry on through the other).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest

from tests.support.replicas import Cluster, Replica

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

POSTERS = 40
POSTS = 25


class Burst:
    """The posters of one burst and what the replicas acknowledged."""

    def __init__(self, cluster: Cluster, token: str, chat: str) -> None:
        self.cluster = cluster
        self.token = token
        self.chat = chat
        self.acknowledged: list[str] = []
        self.unanswered: list[str] = []
        self.sent = 0
        self.progress = anyio.Event()
        self.at: dict[int, anyio.Event] = {}

    def when(self, count: int) -> anyio.Event:
        """Set once ``count`` posts were answered (acknowledged or not)."""
        return self.at.setdefault(count, anyio.Event())

    async def poster(self, number: int) -> None:
        replicas = self.cluster.replicas
        replica = replicas[number % len(replicas)]
        client = replica.client(self.token)
        try:
            for post in range(POSTS):
                body = f"poster {number} post {post}"
                try:
                    answer = await client.post(
                        "/api/chats/post",
                        json={"path": self.chat, "as": f"agent-{number}", "body": body},
                    )
                except httpx.TransportError:
                    answer = None
                if answer is not None and answer.status_code == 200:
                    self.acknowledged.append(body)
                else:
                    # Not acknowledged (the replica died under it): not retried, so a post
                    # that landed anyway is not doubled; carry on through a live replica.
                    self.unanswered.append(body)
                    replica = _other(replicas, replica)
                    await client.aclose()
                    client = replica.client(self.token)
                self.sent += 1
                event = self.at.pop(self.sent, None)
                if event is not None:
                    event.set()
        finally:
            await client.aclose()

    async def run(self) -> None:
        async with anyio.create_task_group() as group:
            for number in range(POSTERS):
                group.start_soon(self.poster, number)


def _other(replicas: list[Replica], replica: Replica) -> Replica:
    alive = [item for item in replicas if item is not replica and item.process.returncode is None]
    return alive[0] if alive else replica


async def _messages(replica: Replica, token: str, chat: str) -> list[dict[str, Any]]:
    async with replica.client(token) as client:
        answer = await client.get("/api/chats/read", params={"path": chat})
    assert answer.status_code == 200, answer.text
    messages: list[dict[str, Any]] = answer.json()["messages"]
    return messages


async def _start(cluster: Cluster) -> Burst:
    token = await cluster.account("alice")
    chat = str(cluster.workspace / "burst.md")
    async with cluster.replicas[0].client(token) as client:
        assert (await client.post("/api/chats", json={"path": chat})).status_code == 200
    return Burst(cluster, token, chat)


def _check_order(messages: list[dict[str, Any]]) -> None:
    assert [message["number"] for message in messages] == list(range(1, len(messages) + 1))
    bodies = [message["body"] for message in messages]
    assert len(set(bodies)) == len(bodies), "a post was doubled"
    for number in range(POSTERS):
        mine = [int(body.split()[-1]) for body in bodies if body.startswith(f"poster {number} ")]
        assert mine == sorted(mine), f"poster {number}'s posts are out of order"


async def test_forty_posters_through_two_replicas_make_one_chat_of_a_thousand(
    cluster: Cluster,
) -> None:
    burst = await _start(cluster)
    await burst.run()
    assert len(burst.acknowledged) == POSTERS * POSTS, cluster.logs()
    first, second = [
        await _messages(replica, burst.token, burst.chat) for replica in cluster.replicas
    ]
    assert first == second
    assert len(first) == POSTERS * POSTS
    assert {message["body"] for message in first} == set(burst.acknowledged)
    _check_order(first)


async def _health(replica: Replica) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=replica.url) as client:
        health: dict[str, Any] = (await client.get("/health")).json()
    return health


async def _until(check: Callable[[], Any]) -> None:
    with anyio.fail_after(20):
        while not await check():  # noqa: ASYNC110 - another process, no event to await
            await anyio.sleep(0.05)


async def test_redis_stopped_and_started_in_the_middle_of_a_burst_loses_nothing(
    cluster: Cluster,
) -> None:
    burst = await _start(cluster)
    first, second = cluster.replicas
    woken: list[int] = []

    async def reader() -> None:
        """A reader on replica 1 that waits for the next message, again and again."""
        after = 0
        async with first.client(burst.token, timeout=120) as client:
            while after < POSTERS * POSTS:
                body = {"path": burst.chat, "as": "reader", "after": after, "timeoutMs": 60_000}
                answer = await client.post("/api/chats/wait", json=body)
                assert answer.status_code == 200, answer.text
                after = answer.json()["next"]
                woken.append(after)

    async def outage() -> None:
        await burst.when(300).wait()
        await cluster.redis.stop()
        await _until(lambda: _says(second, "polling"))
        await burst.when(700).wait()
        await cluster.redis.start()
        await _until(lambda: _says(second, "connected"))

    async def _says(replica: Replica, state: str) -> bool:
        said: str = (await _health(replica))["fanout"]
        return said == state

    with anyio.fail_after(300):
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(outage)
            await burst.run()
    assert len(burst.acknowledged) == POSTERS * POSTS, cluster.logs()
    messages = await _messages(second, burst.token, burst.chat)
    assert len(messages) == POSTERS * POSTS
    _check_order(messages)
    assert woken[-1] == POSTERS * POSTS
    for replica in cluster.replicas:
        assert (await _health(replica))["fanout"] == "connected"


async def test_a_replica_killed_in_the_middle_of_a_burst_loses_no_acknowledged_post(
    cluster: Cluster,
) -> None:
    burst = await _start(cluster)
    first, second = cluster.replicas

    async def kill() -> None:
        await burst.when(400).wait()
        cluster.kill(second)

    async with anyio.create_task_group() as group:
        group.start_soon(kill)
        await burst.run()
    messages = await _messages(first, burst.token, burst.chat)
    bodies = [message["body"] for message in messages]
    assert set(burst.acknowledged) <= set(bodies), "an acknowledged post was lost"
    assert set(bodies) <= set(burst.acknowledged) | set(burst.unanswered)
    _check_order(messages)
    assert len(burst.acknowledged) >= POSTERS * POSTS - POSTERS  # one lost answer per poster
