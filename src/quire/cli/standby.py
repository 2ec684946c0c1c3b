"""``quire serve --wait-for-start``: a server process started ahead of need.

It has loaded its modules (most of a start) by the time it waits here, and does nothing else
until its starter writes ``STANDBY_START`` on its standard input: no state folder, database or
port is touched before. Anything else (the starter ended and the pipe closed, other bytes, or
``STANDBY_S`` without a word) ends it unused.
"""

from __future__ import annotations

import os
import select
import time

from quire.client.autostart import STANDBY_START

STANDBY_S = 600.0
"""How long a standby waits to be started before it ends unused (seconds)."""


def wait_for_start(fd: int = 0, timeout: float = STANDBY_S) -> bool:
    """Whether ``fd`` said start within ``timeout``. Either way ``fd`` reads /dev/null after,
    so the server holds no pipe to a process that may end before it."""
    deadline = time.monotonic() + timeout
    received = b""
    try:
        while len(received) < len(STANDBY_START):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return False
            chunk = os.read(fd, len(STANDBY_START) - len(received))
            if not chunk or not STANDBY_START.startswith(received + chunk):
                return False
            received += chunk
        return True
    finally:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, fd)
        os.close(null)
