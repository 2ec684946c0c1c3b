"""Which fanout a server runs with: Redis when the settings name one, else none (one replica)."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from quire.services.replicas.fanout import Alone, Fanout
from quire.services.replicas.redis_fanout import redis_fanout
from quire.settings.model import Settings


def replica_name(settings: Settings) -> str:
    """The replica's name: ``replica_id`` when set, else this host's name and process id."""
    if settings.replica_id is not None:
        return settings.replica_id
    return f"{socket.gethostname()}-{os.getpid()}"


@asynccontextmanager
async def open_fanout(settings: Settings) -> AsyncIterator[Fanout]:
    """``async with open_fanout(settings) as fanout``: the replicas' signals, for the block."""
    name = replica_name(settings)
    if settings.redis_url is None:
        yield Alone(name)
        return
    async with redis_fanout(settings.redis_url, name) as fanout:
        yield fanout
