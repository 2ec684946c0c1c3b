"""The message of a refused token, built here once so every tool and command gives the same one.

The client's error classes (ServerUnreachable, TokenRefused, ServerFailed…) are in the one
exception tree, ``quire.core.errors``.
"""

from __future__ import annotations

from pathlib import Path


def token_refused_message(url: str, server_file: Path) -> str:
    """The one message for an HTTP 401, with its cause and its fix."""
    return (
        f"The Quire server at {url} refused the token in {server_file} (HTTP 401): that file "
        "is stale, or the address now belongs to another Quire server. Ask the person to stop "
        "every `quire serve` that uses this state folder and start it again (it writes a "
        "fresh server.json), then retry this call."
    )
