"""Who is waiting, thinking or working in a chat is the same through every replica."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.support.replicas import replica_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def _presence_until(
    client: httpx.AsyncClient, chat: str, check: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    with anyio.fail_after(5):
        while True:
            read = await client.get("/api/chats/read", params={"path": chat})
            assert read.status_code == 200, read.text
            presence: list[dict[str, Any]] = read.json()["presence"]
            if check(presence):
                return presence
            await anyio.sleep(0.05)


async def test_presence_on_one_replica_shows_through_another(tmp_path: Path) -> None:
    async with replica_cluster(tmp_path, count=2) as cluster:
        token = await cluster.account("alice")
        first, second = cluster.replicas
        chat = str(cluster.workspace / "room.md")
        async with first.client(token) as one, second.client(token) as two:
            assert (await one.post("/api/chats", json={"path": chat})).status_code == 200
            async with anyio.create_task_group() as group:

                async def wait() -> None:
                    body = {"path": chat, "as": "bot", "timeoutMs": 60_000}
                    assert (await one.post("/api/chats/wait", json=body)).status_code == 200

                group.start_soon(wait)
                waiting = await _presence_until(two, chat, lambda found: bool(found))
                assert [(item["name"], item["state"]) for item in waiting] == [("bot", "waiting")]
                status = {"path": chat, "as": "helper", "body": "/status reading the plan"}
                assert (await one.post("/api/chats/post", json=status)).status_code == 200
                both = await _presence_until(two, chat, lambda found: len(found) == 2)
                assert [(item["name"], item["state"], item["status"]) for item in both] == [
                    ("bot", "waiting", None),
                    ("helper", "working", "reading the plan"),
                ]
                post = {"path": chat, "as": "alice", "body": "over to you"}
                assert (await two.post("/api/chats/post", json=post)).status_code == 200
            thinking = await _presence_until(
                two,
                chat,
                lambda found: (
                    ("bot", "thinking") in {(item["name"], item["state"]) for item in found}
                ),
            )
            assert ("helper", "working") in {(item["name"], item["state"]) for item in thinking}
