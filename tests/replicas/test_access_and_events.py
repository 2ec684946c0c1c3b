"""What one replica does reaches the windows and connections held on the others.

A window's event stream on replica 1 hears a chat post made through replica 2. Disabling an
account (from another process, against the shared database) closes its event streams and waits
on every replica, and its token is refused by each.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.replicas import Cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CLOSE_WITHIN_S = 2.5
"""Every replica reads the access-change counter each second; a check is a few queries."""


async def test_a_window_on_one_replica_hears_a_post_made_through_another(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    chat = str(cluster.workspace / "room.md")
    auth = {"Authorization": f"Bearer {token}"}
    async with (
        second.client(token) as agent,
        connect(first.ws("/ws/events"), additional_headers=auth) as events,
    ):
        assert (await agent.post("/api/chats", json={"path": chat})).status_code == 200
        posted = await agent.post("/api/chats/post", json={"path": chat, "as": "bot", "body": "x"})
        assert posted.status_code == 200, posted.text
        with anyio.fail_after(5):
            while True:
                event: dict[str, Any] = json.loads(await events.recv())
                if event["kind"] == "chat":
                    break
        assert event["data"] == {"path": chat, "number": 1, "author": "bot (via alice)"}


async def test_disabling_an_account_closes_what_it_holds_on_every_replica(
    cluster: Cluster,
) -> None:
    token = await cluster.account("alice")
    chat = str(cluster.workspace / "room.md")
    auth = {"Authorization": f"Bearer {token}"}
    ended: dict[str, tuple[int | None, float]] = {}

    async def hold_events(name: str, url: str) -> None:
        async with connect(url, additional_headers=auth) as socket:
            try:
                while True:
                    await socket.recv()
            except ConnectionClosed as closed:
                code = None if closed.rcvd is None else closed.rcvd.code
                ended[name] = (code, time.monotonic())

    async def hold_wait(name: str, client: httpx.AsyncClient) -> None:
        body = {"path": chat, "as": "alice", "timeoutMs": 600_000}
        answer = await client.post("/api/chats/wait", json=body)
        ended[name] = (answer.status_code, time.monotonic())

    first, second = cluster.replicas
    async with first.client(token, timeout=60) as one, second.client(token, timeout=60) as two:
        assert (await one.post("/api/chats", json={"path": chat})).status_code == 200
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                for replica, client in ((first, one), (second, two)):
                    group.start_soon(
                        hold_events, f"events on {replica.name}", replica.ws("/ws/events")
                    )
                    group.start_soon(hold_wait, f"wait on {replica.name}", client)
                await anyio.sleep(0.5)  # everything is held open
                assert not ended
                await cluster.user("disable", "alice")
                disabled = time.monotonic()
        for name, (how, at) in ended.items():
            assert how == (401 if name.startswith("wait") else 4401), (name, how)
            assert at - disabled <= CLOSE_WITHIN_S, (name, at - disabled)
        for client in (one, two):
            assert (await client.get("/api/workspaces")).status_code == 401


async def test_a_window_read_on_one_replica_shows_what_another_changed(cluster: Cluster) -> None:
    token = await cluster.account("alice")
    first, second = cluster.replicas
    plan = str(cluster.workspace / "plan.md")
    async with first.client(token) as one, second.client(token) as two:
        assert (await one.get("/api/window")).json()["tabs"] == []  # now cached on replica 1
        opened = await two.post("/api/documents/open", json={"path": plan})
        assert opened.status_code == 200, opened.text
        with anyio.fail_after(2):
            while not (await one.get("/api/window")).json()["tabs"]:  # noqa: ASYNC110 - another process
                await anyio.sleep(0.01)
        window = (await one.get("/api/window")).json()
        assert [tab["path"] for tab in window["tabs"]] == [plan]


async def test_window_changes_through_two_replicas_at_once_lose_none(cluster: Cluster) -> None:
    token = await cluster.account("alice")
    notes = [cluster.workspace / f"note-{number}.md" for number in range(30)]
    for note in notes:
        note.write_text(f"# {note.stem}\n", encoding="utf-8")

    async def open_all(replica_index: int) -> None:
        async with cluster.replicas[replica_index].client(token) as client:
            for note in notes[replica_index::2]:
                opened = await client.post("/api/documents/open", json={"path": str(note)})
                assert opened.status_code == 200, opened.text

    async with anyio.create_task_group() as group:
        group.start_soon(open_all, 0)
        group.start_soon(open_all, 1)
    for replica in cluster.replicas:
        async with replica.client(token) as client:
            window = (await client.get("/api/window")).json()
        assert sorted(tab["path"] for tab in window["tabs"]) == sorted(map(str, notes))
