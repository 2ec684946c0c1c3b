"""Each replica keeps its own search index of the shared workspace: a note written through one
replica is found through another a moment later."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.support.replicas import replica_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

FRESH_WITHIN_S = 3.0
"""The target is a second; the margin is for a loaded test machine."""


async def test_a_note_written_through_one_replica_is_found_through_the_other(
    tmp_path: Path,
) -> None:
    async with replica_cluster(tmp_path, count=2) as cluster:
        token = await cluster.account("alice")
        first, second = cluster.replicas
        note = str(cluster.workspace / "zebra.md")
        async with first.client(token) as one, second.client(token) as two:
            made = await two.post(
                "/api/files/note", json={"path": note, "content": "# Zebra\n\nquagga stripes\n"}
            )
            assert made.status_code == 200, made.text
            with anyio.fail_after(FRESH_WITHIN_S):
                while True:
                    found = await one.get("/api/search", params={"q": "quagga"})
                    assert found.status_code == 200, found.text
                    if [hit["path"] for hit in found.json()["hits"]] == [note]:
                        break
                    await anyio.sleep(0.05)
