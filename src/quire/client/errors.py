"""The errors only a client of the server raises: no server, a refused token, a failed server.

Each message says what happened and the next step; the refused-token message is built here
once, so every tool and command gives the same one.
"""

from __future__ import annotations

from pathlib import Path

from quire.core.errors import QuireError


class ServerUnreachable(QuireError):
    """No Quire server answers: none is running, or it could not be started or reached."""


class TokenRefused(QuireError):
    """The server answered HTTP 401: the token in server.json is stale or not this server's."""


class ServerFailed(QuireError):
    """The server answered with an error it did not explain, or an answer of the wrong shape."""


class ServerInterrupted(ServerFailed):
    """The server answered a bare HTTP 5xx, without Quire's error body: what a request cut off
    by a server that is stopping (or a proxy in front of one) gets. Retrying may succeed."""


def token_refused_message(url: str, server_file: Path) -> str:
    """The one message for an HTTP 401, with its cause and its fix."""
    return (
        f"The Quire server at {url} refused the token in {server_file} (HTTP 401): that file "
        "is stale, or the address now belongs to another Quire server. Ask the person to stop "
        "every `quire serve` that uses this state folder and start it again (it writes a "
        "fresh server.json), then retry this call."
    )
