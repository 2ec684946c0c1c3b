"""A loopback port that refuses connections for as long as a test needs it to.

Binding port 0 and closing the socket at once leaves a port that another test worker (or any
program) may take before the test connects to it. Held bound but not listening, the port is the
kernel's answer "connection refused", and no other socket is given it meanwhile.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that is bound (so no one else gets it) and refuses connections."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        port: int = held.getsockname()[1]
        yield port
