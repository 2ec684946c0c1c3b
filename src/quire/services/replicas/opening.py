"""Which fanout a server runs with: Redis when the settings name one, else none (one replica)."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from quire.db.deployment import deployment_name
from quire.db.engine import Database
from quire.services.replicas.fanout import Alone, Fanout
from quire.services.replicas.redis_fanout import redis_fanout
from quire.settings.model import Settings


def replica_name(settings: Settings) -> str:
    """The replica's name: ``replica_id`` when set, else this host's name and process id."""
    if settings.replica_id is not None:
        return settings.replica_id
    return f"{socket.gethostname()}-{os.getpid()}"


@asynccontextmanager
async def open_fanout(settings: Settings, database: Database) -> AsyncIterator[Fanout]:
    """``async with open_fanout(settings, database) as fanout``: the signals between the
    replicas on ``database``, for the block."""
    name = replica_name(settings)
    if settings.redis_url is None:
        yield Alone(name)
        return
    deployment = await deployment_name(database)
    async with redis_fanout(settings.redis_url, name, deployment) as fanout:
        yield fanout
