"""The server's own answers: what ``/health`` says about the running server.

Models only; the version comes from ``quire.__version__``, the one place the package's
version is written (the build backend reads it too).
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer


class Health(Answer):
    """``GET /health``: the server is up, which Quire it is, and whether what it shares with
    its replicas answers (no token needed). Sent with status 503 when ``ok`` is false."""

    ok: bool = True
    """Whether the server can serve: false when its database does not answer."""
    version: str
    """The running server's package version, as ``quire --version`` prints it."""
    replica: str
    """This replica's name (``--replica-id``, else the host name and process id)."""
    database: Literal["ok", "unreachable"]
    """Whether the database answered a query just now (within a second)."""
    fanout: Literal["alone", "connected", "polling"]
    """How changes reach the other replicas: ``alone`` (one server, no Redis), ``connected``
    (through Redis), or ``polling`` (Redis is away: replicas look for each other's changes
    every second until it is back)."""
