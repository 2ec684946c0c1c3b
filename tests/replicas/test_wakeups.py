"""A wait on one replica wakes the moment the answer is recorded through another.

Two real ``quire serve --multi`` replicas on one PostgreSQL, one Redis and one workspace. A chat
wait, a review wait and an approval wait are held on replica 1 while the post, the verdict or
the decision goes through replica 2; each wait answers well within the one-second poll it would
fall back on without Redis. ``/health`` names each replica and says how signals travel.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.support.replicas import Cluster, browser_session, load_balancer

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

PUSHED_WITHIN_S = 0.5
"""A wake-up through Redis takes milliseconds; without it, a wait would look every second."""


async def test_health_names_each_replica_and_the_shared_parts(cluster: Cluster) -> None:
    for replica in cluster.replicas:
        async with httpx.AsyncClient(base_url=replica.url) as client:
            health = (await client.get("/health")).json()
        assert health["replica"] == replica.name
        assert (health["database"], health["fanout"]) == ("ok", "connected")


@dataclass
class Woken:
    """A wait held while something else happened: its answer, and how long after the answer
    was acknowledged (``answered``'s return) the wait returned."""

    answer: httpx.Response
    after_s: float


async def _woken(
    wait: Callable[[], Awaitable[httpx.Response]], answered: Callable[[], Awaitable[None]]
) -> Woken:
    """Hold ``wait``, then (once it is surely held) run ``answered`` elsewhere."""
    waited: dict[str, Any] = {}

    async def hold() -> None:
        waited["answer"] = await wait()
        waited["at"] = time.monotonic()

    async with anyio.create_task_group() as group:
        group.start_soon(hold)
        await anyio.sleep(0.5)  # the wait is held on its replica
        await answered()
        acknowledged = time.monotonic()
    return Woken(waited["answer"], waited["at"] - acknowledged)


async def test_a_chat_wait_wakes_when_the_post_goes_through_another_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    chat = str(cluster.workspace / "room.md")
    async with first.client(token) as one, second.client(token) as two:
        assert (await one.post("/api/chats", json={"path": chat})).status_code == 200

        async def post() -> None:
            body = {"path": chat, "as": "bob", "body": "hi"}
            assert (await two.post("/api/chats/post", json=body)).status_code == 200

        body = {"path": chat, "as": "reader", "timeoutMs": 60_000}
        woken = await _woken(lambda: one.post("/api/chats/wait", json=body), post)
    assert woken.answer.status_code == 200, woken.answer.text
    assert [message["body"] for message in woken.answer.json()["messages"]] == ["hi"]
    assert woken.after_s < PUSHED_WITHIN_S


async def _review(client: httpx.AsyncClient, cluster: Cluster) -> str:
    asked = await client.post("/api/reviews", json={"path": str(cluster.workspace / "plan.md")})
    assert asked.status_code == 200, asked.text
    review_id: str = asked.json()["reviewId"]
    return review_id


async def _decide(client: httpx.AsyncClient, review_id: str, verdict: dict[str, str]) -> None:
    decided = await client.post(f"/api/reviews/{review_id}/decision", json=verdict)
    assert decided.status_code == 200, decided.text


async def test_a_review_wait_wakes_when_the_verdict_goes_through_another_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as one, second.client(token) as two:
        review_id = await _review(one, cluster)

        async def decide() -> None:
            await _decide(two, review_id, {"verdict": "approved", "comments": "Go."})

        path = f"/api/reviews/{review_id}/wait"
        woken = await _woken(lambda: one.get(path, params={"wait_ms": 60_000}), decide)
        assert woken.answer.status_code == 200, woken.answer.text
        assert woken.answer.json()["verdict"] == "approved", woken.answer.text
        assert woken.after_s < PUSHED_WITHIN_S
        # The panel of either replica no longer shows it.
        for client in (one, two):
            assert (await client.get("/api/reviews/active")).json().get("review") is None


async def test_a_verdict_acknowledged_by_a_replica_killed_at_once_still_wakes_the_waiter(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as one, second.client(token) as two:
        review_id = await _review(one, cluster)

        async def decide_and_die() -> None:
            await _decide(two, review_id, {"verdict": "changes_requested"})
            cluster.kill(second)  # the moment the decision is acknowledged

        path = f"/api/reviews/{review_id}/wait"
        woken = await _woken(lambda: one.get(path, params={"wait_ms": 60_000}), decide_and_die)
    assert woken.answer.json()["verdict"] == "changes_requested"
    assert woken.after_s < PUSHED_WITHIN_S


APPROVAL = {
    "harness": "codex",
    "session_id": "s-42",
    "cwd": "/srv/project",
    "tool_name": "Bash",
    "tool_input": {"command": "git push --force"},
    "machine_label": "laptop",
}


async def _ask(agent: httpx.AsyncClient) -> tuple[str, str]:
    """Ask for an approval; its id and input hash."""
    asked = await agent.post("/api/approvals", json=APPROVAL)
    assert asked.status_code == 200, asked.text
    approval = asked.json()
    return approval["approvalId"], approval["inputHash"]


async def test_an_approval_wait_wakes_when_the_decision_goes_through_another_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as agent, browser_session(second.url, "alice") as browser:
        ident, input_hash = await _ask(agent)
        # The card is listed through the other replica at once.
        assert ident in (await browser.get("/api/approvals")).text
        decision = {"input_hash": input_hash, "behavior": "allow"}

        async def decide() -> None:
            done = await browser.post(f"/api/approvals/{ident}/decision", json=decision)
            assert done.status_code == 200, done.text

        path = f"/api/approvals/{ident}/wait"
        woken = await _woken(lambda: agent.get(path, params={"wait_ms": 60_000}), decide)
        assert woken.answer.status_code == 200, woken.answer.text
        assert woken.answer.json()["status"] == "decided", woken.answer.text
        assert woken.after_s < PUSHED_WITHIN_S
        # Decided once: a second decision through the first replica is refused.
        async with browser_session(first.url, "alice") as again:
            twice = await again.post(f"/api/approvals/{ident}/decision", json=decision)
        assert twice.status_code == 409, twice.text


async def test_an_approval_acknowledged_by_a_replica_killed_at_once_still_wakes_the_waiter(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with first.client(token) as agent, browser_session(second.url, "alice") as browser:
        ident, input_hash = await _ask(agent)
        decision = {"input_hash": input_hash, "behavior": "deny", "message": "No."}

        async def decide_and_die() -> None:
            done = await browser.post(f"/api/approvals/{ident}/decision", json=decision)
            assert done.status_code == 200, done.text
            cluster.kill(second)  # the moment the decision is acknowledged

        path = f"/api/approvals/{ident}/wait"
        woken = await _woken(lambda: agent.get(path, params={"wait_ms": 60_000}), decide_and_die)
    assert woken.answer.status_code == 200, woken.answer.text
    assert woken.answer.json()["status"] == "decided", woken.answer.text
    assert woken.after_s < PUSHED_WITHIN_S


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


async def test_a_review_whose_replica_died_still_times_out_on_time(cluster: Cluster) -> None:
    """Every replica keeps the pending reviews and their deadlines: the one a review was
    requested through may die, and another records its timeout when its window closes, with
    no one asking."""
    token = await cluster.account("alice")
    first, second = cluster.replicas
    async with second.client(token) as two:
        body = {"path": str(cluster.workspace / "plan.md"), "timeout_ms": 5_000}
        asked = await two.post("/api/reviews", json=body)
        assert asked.status_code == 200, asked.text
    cluster.kill(second)
    engine = create_async_engine(cluster.db_url)
    try:
        with anyio.fail_after(20):
            while True:
                async with engine.connect() as connection:
                    status = (await connection.execute(text("SELECT status FROM reviews"))).scalar()
                if status == "timeout":
                    break
                await anyio.sleep(0.2)
    finally:
        await engine.dispose()
    async with first.client(token) as one:
        assert (await one.get("/api/reviews/active")).json().get("review") is None
