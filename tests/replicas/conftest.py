"""The replica tests' cluster: two real replicas on PostgreSQL and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.replicas import Cluster, replica_cluster


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[Cluster]:
    """Two replicas, r1 and r2, for this test alone."""
    async with replica_cluster(tmp_path, count=2) as running:
        yield running
