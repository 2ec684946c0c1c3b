"""Which server the keepalive hook asks about an agent session: the one signed in to as
``@alias`` when the session's last chat command named an ``@alias/…`` chat, else this
machine's own.

It picks the server and makes its link (reading servers.toml); it never sends a request and
never reads the transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from quire.client.connection import ServerLink
from quire.client.remote import alias_link
from quire.client.servers import RemoteAddress
from quire.client.transcript import ChatCommand
from quire.core.errors import QuireError

Linker = Callable[[Path, str, str], tuple[ServerLink, RemoteAddress]]
"""How an ``@alias/…`` address becomes a link: ``client.remote.alias_link``'s signature."""


@dataclass(frozen=True)
class LocalServer:
    """The session chats on this machine's server (or no chat command names a server)."""


@dataclass(frozen=True)
class SignedInServer:
    """The session chats on the server signed in to as ``@alias``; ``link`` reaches it with
    the account's token."""

    alias: str
    link: ServerLink


@dataclass(frozen=True)
class UnlinkedServer:
    """The session chats on a server that cannot be asked from here; ``reason`` says why and
    what to do (sign in with ``quire login``, fix servers.toml…)."""

    address: str
    reason: str


SessionServer = LocalServer | SignedInServer | UnlinkedServer


def remote_chat(found: ChatCommand | None) -> str | None:
    """The ``@alias/…`` chat the command named, or None (a chat on this machine, or none)."""
    if found is None or found.chat is None or not found.chat.startswith("@"):
        return None
    return found.chat


def session_server(
    state: Path, found: ChatCommand | None, linker: Linker = alias_link
) -> SessionServer:
    """The server to ask about the session whose last chat command was ``found``.

    An ``@alias/…`` chat gives that saved server's link; an alias that is not saved (or a
    servers.toml, address or CA certificate that cannot be used) gives UnlinkedServer, never
    the local server, which does not hold that chat.
    """
    address = remote_chat(found)
    if address is None:
        return LocalServer()
    try:
        link, parsed = linker(state, address, "CHAT")
    except QuireError as error:
        return UnlinkedServer(address, str(error))
    return SignedInServer(parsed.alias, link)
