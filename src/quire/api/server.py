"""The server's own answers: what ``/health`` says about the running server.

Models only; the version comes from ``quire.__version__``, the one place the package's
version is written (the build backend reads it too).
"""

from __future__ import annotations

from quire.api.base import Answer


class Health(Answer):
    """``GET /health``: the server is up, and which Quire it is (no token needed)."""

    ok: bool = True
    version: str
    """The running server's package version, as ``quire --version`` prints it."""
