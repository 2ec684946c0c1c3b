"""Two replicas committing to one git repository at once: every note's commit made once."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.support.replicas import Cluster, Replica, replica_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

NOTES = 20


async def _create(cluster: Cluster, replica: Replica, token: str) -> None:
    async with replica.client(token) as client:
        for number in range(NOTES):
            path = str(cluster.workspace / f"{replica.name}-{number}.md")
            made = await client.post("/api/files/note", json={"path": path, "content": "x\n"})
            assert made.status_code == 200, made.text


async def test_notes_created_through_two_replicas_are_each_committed_once(
    tmp_path: Path,
) -> None:
    async with replica_cluster(tmp_path, count=2, git=True) as cluster:
        token = await cluster.account("alice")
        async with anyio.create_task_group() as group:
            for replica in cluster.replicas:
                group.start_soon(_create, cluster, replica, token)
        workspace = cluster.workspace
    # The replicas have stopped: every commit owed is made.
    done = await anyio.run_process(
        ["git", "-C", str(workspace), "log", "--name-only", "--format=%x00"]
    )
    log = done.stdout.decode()
    committed = [line for line in log.splitlines() if line.endswith(".md")]
    expected = [f"{name}-{number}.md" for name in ("r1", "r2") for number in range(NOTES)]
    assert sorted(committed) == sorted(expected)
