"""A wait on one replica wakes the moment the answer is recorded through another.

Two real ``quire serve --multi`` replicas on one PostgreSQL, one Redis and one workspace. A chat
wait, a review wait and an approval wait are held on replica 1 while the post, the verdict or
the decision goes through replica 2; each wait answers well within the one-second poll it would
fall back on without Redis. ``/health`` names each replica and says how signals travel.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.support.replicas import Cluster, browser_session, load_balancer, replica_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

PUSHED_WITHIN_S = 0.5
"""A wake-up through Redis takes milliseconds; without it, a wait would look every second."""


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[Cluster]:
    async with replica_cluster(tmp_path, count=2) as running:
        yield running


async def test_health_names_each_replica_and_the_shared_parts(cluster: Cluster) -> None:
    for replica in cluster.replicas:
        async with httpx.AsyncClient(base_url=replica.url) as client:
            health = (await client.get("/health")).json()
        assert health["replica"] == replica.name
        assert (health["database"], health["fanout"]) == ("ok", "connected")


async def _timed(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    answer = await call
    return answer, time.monotonic() - started


async def test_a_chat_wait_wakes_when_the_post_goes_through_another_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    chat = str(cluster.workspace / "room.md")
    async with first.client(token) as one, second.client(token) as two:
        assert (await one.post("/api/chats", json={"path": chat})).status_code == 200
        waited: dict[str, Any] = {}

        async def wait() -> None:
            body = {"path": chat, "as": "reader", "timeoutMs": 60_000}
            answer = await one.post("/api/chats/wait", json=body)
            waited["answer"] = answer
            waited["at"] = time.monotonic()

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.sleep(0.5)  # the wait is held on replica 1
            posted_at = time.monotonic()
            post = await two.post("/api/chats/post", json={"path": chat, "as": "bob", "body": "hi"})
            assert post.status_code == 200, post.text
        answer = waited["answer"]
        assert answer.status_code == 200, answer.text
        assert [message["body"] for message in answer.json()["messages"]] == ["hi"]
        assert waited["at"] - posted_at < PUSHED_WITHIN_S


async def test_a_review_wait_wakes_when_the_verdict_goes_through_another_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as one, second.client(token) as two:
        asked = await one.post("/api/reviews", json={"path": str(cluster.workspace / "plan.md")})
        assert asked.status_code == 200, asked.text
        review_id = asked.json()["reviewId"]
        waited: dict[str, Any] = {}

        async def wait() -> None:
            answer = await one.get(f"/api/reviews/{review_id}/wait", params={"wait_ms": 60_000})
            waited["answer"] = answer
            waited["at"] = time.monotonic()

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.sleep(0.5)
            decided_at = time.monotonic()
            verdict = {"verdict": "approved", "comments": "Go."}
            decided = await two.post(f"/api/reviews/{review_id}/decision", json=verdict)
            assert decided.status_code == 200, decided.text
        answer = waited["answer"]
        assert answer.status_code == 200, answer.text
        assert answer.json()["verdict"] == "approved", answer.text
        assert waited["at"] - decided_at < PUSHED_WITHIN_S
        # The panel of either replica no longer shows it.
        for client in (one, two):
            assert (await client.get("/api/reviews/active")).json().get("review") is None


APPROVAL = {
    "harness": "claude-code",
    "session_id": "s1",
    "cwd": "/work",
    "tool_name": "Bash",
    "tool_input": {"command": "git push"},
    "machine_label": "box",
}


async def test_an_approval_wait_wakes_when_the_decision_goes_through_another_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as agent, browser_session(second.url, "alice") as browser:
        asked = await agent.post("/api/approvals", json=APPROVAL)
        assert asked.status_code == 200, asked.text
        approval = asked.json()
        ident = approval["approvalId"]
        # The card is listed through the other replica at once.
        assert ident in (await browser.get("/api/approvals")).text
        waited: dict[str, Any] = {}

        async def wait() -> None:
            path = f"/api/approvals/{ident}/wait"
            answer = await agent.get(path, params={"wait_ms": 60_000})
            waited["answer"] = answer
            waited["at"] = time.monotonic()

        decision = {"input_hash": approval["inputHash"], "behavior": "allow"}
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.sleep(0.5)
            decided_at = time.monotonic()
            done = await browser.post(f"/api/approvals/{ident}/decision", json=decision)
            assert done.status_code == 200, done.text
        answer = waited["answer"]
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "decided", answer.text
        assert waited["at"] - decided_at < PUSHED_WITHIN_S
        # Decided once: a second decision through the first replica is refused.
        async with browser_session(first.url, "alice") as again:
            twice = await again.post(f"/api/approvals/{ident}/decision", json=decision)
        assert twice.status_code == 409, twice.text


async def test_the_load_balancer_passes_the_public_address_and_websockets(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    async with load_balancer(cluster) as balancer:
        seen: set[str] = set()
        async with httpx.AsyncClient(base_url=balancer.url) as client:
            for _ in range(6):
                health = await client.get("/health")
                assert health.status_code == 200, health.text
                seen.add(health.json()["replica"])
            auth = {"Authorization": f"Bearer {token}"}
            assert (await client.get("/api/workspaces", headers=auth)).status_code == 200
        assert seen == {"r1", "r2"}
        async with browser_session(balancer.url, "alice") as browser:
            # The session cookie made through one replica signs in on the other too.
            for _ in range(4):
                assert (await browser.get("/api/window")).status_code == 200


async def test_a_verdict_acknowledged_by_a_replica_killed_at_once_still_wakes_the_waiter(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as one, second.client(token) as two:
        asked = await one.post("/api/reviews", json={"path": str(cluster.workspace / "plan.md")})
        review_id = asked.json()["reviewId"]
        waited: dict[str, Any] = {}

        async def wait() -> None:
            answer = await one.get(f"/api/reviews/{review_id}/wait", params={"wait_ms": 60_000})
            waited["answer"] = answer
            waited["at"] = time.monotonic()

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.sleep(0.5)
            decided = await two.post(
                f"/api/reviews/{review_id}/decision", json={"verdict": "changes_requested"}
            )
            assert decided.status_code == 200, decided.text
            cluster.kill(second)  # the moment the decision is acknowledged
            killed_at = time.monotonic()
        assert waited["answer"].json()["verdict"] == "changes_requested"
        assert waited["at"] - killed_at < PUSHED_WITHIN_S
