"""A chat wait that outlives a server restart: transient failures retried until the deadline.

A connection refused or reset, a request cut off by a stopping server (a bare HTTP 5xx) or a
server between two runs is retried with backoff, finding the server again through server.json
each time; anything else (a refused token, a bad argument) ends the wait at once. It never
starts a server after the first attempt, so a restarting server is waited for, not raced.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from quire.api.chats import Waited
from quire.client.api import QuireApi
from quire.client.chats import WAIT_TIMEOUT_MS, ChatApi
from quire.client.connection import ServerLink
from quire.core.errors import ServerInterrupted, ServerUnreachable

FIRST_BACKOFF = 0.1
MAX_BACKOFF = 2.0

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class WaitRequest:
    """One wait as a command asked for it; ``timeout`` in seconds bounds the retries too."""

    path: str
    reader: str
    timeout: float
    after: int | None = None
    mentions_only: bool = False
    session: str | None = None
    command: str | None = None


async def wait_for_messages(
    link: ServerLink,
    request: WaitRequest,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = anyio.sleep,
) -> Waited:
    """Wait on the chat through ``link`` until messages come, the timeout passes or it is gone.

    The first attempt may start a server (as every command may); a failure to reach it after
    that is retried until ``request.timeout`` has passed, then raised as ServerUnreachable.
    """
    deadline = clock() + request.timeout
    api: QuireApi | None = await link.api()
    backoff = FIRST_BACKOFF
    while True:
        remaining = deadline - clock()
        try:
            if api is None:
                api = await link.running()
            if api is None:
                raise ServerUnreachable(
                    "No Quire server is running right now (it may be restarting)."
                )
            return await ChatApi(api).wait(
                request.path,
                request.reader,
                after=request.after,
                mentions_only=request.mentions_only,
                timeout_ms=_timeout_ms(remaining),
                session=request.session,
                command=request.command,
            )
        except (ServerUnreachable, ServerInterrupted) as error:
            failure = error
            api = None
        remaining = deadline - clock()
        if remaining <= 0:
            raise ServerUnreachable(
                f"{failure} Quire kept trying for the whole wait ({request.timeout:g} s); start "
                "`quire serve` again if it stopped, then run the wait again."
            )
        await sleep(min(backoff, remaining))
        backoff = min(backoff * 2, MAX_BACKOFF)


def _timeout_ms(remaining: float) -> int:
    low, high, _ = WAIT_TIMEOUT_MS
    return max(low, min(high, round(remaining * 1000)))
