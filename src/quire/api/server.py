"""The server's own answers: what ``/health`` says about the running server.

Models only; the version comes from ``quire.__version__``, the one place the package's
version is written (the build backend reads it too).
"""

from __future__ import annotations

from quire.api.base import Answer, omitted_when_none


class Health(Answer):
    """``GET /health``: the server is up, and which Quire it is (no token needed)."""

    ok: bool = True
    version: str
    """The running server's package version, as ``quire --version`` prints it."""


class SignedInAs(Answer):
    """``GET /api/whoami``: which account the request's credential signs in as."""

    username: str
    """The account's username; ``owner`` for the server's own token (and single mode)."""
    owner: bool
    """Whether the credential is the server's own (server.json's token, or single mode): it
    reaches everything the server serves."""
    multi: bool
    """Whether the server runs in multi mode (accounts and grants)."""
    role: str | None = omitted_when_none()
    """The account's role in multi mode (superadmin, admin, collaborator); None for the owner."""
