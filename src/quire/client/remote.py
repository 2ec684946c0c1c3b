"""Reaching a server signed in to with ``quire login``: its link, and ``@alias/…`` addresses.

A remote link is fixed to the saved URL and the account's token: nothing is started, no
server.json is read, and a refused token gets one message naming the fix. Addresses are
turned into the server's own absolute paths by asking it for its workspaces.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from quire.client.api import QuireApi
from quire.client.connection import ServerLink
from quire.client.servers import (
    RemoteAddress,
    SavedServer,
    parse_address,
    remote_path,
    saved_server,
    servers_file,
)
from quire.core.errors import FileMissing, InvalidArgument, StorageFailed


def refused_message(alias: str, url: str, state: Path) -> str:
    """The one message for a token a signed-in server refused (HTTP 401)."""
    return (
        f"The Quire server @{alias} ({url}) refused the token saved for it in "
        f"{servers_file(state)} (HTTP 401): it expired or was revoked, or the account was "
        "disabled. Make a new token (your account page, or `quire user token USER` on the "
        f"server) and sign in again with `quire login @{alias} {url}`."
    )


def verify_for(server: SavedServer) -> ssl.SSLContext | bool:
    """What HTTPS trusts for ``server``: the system's CAs, and its ``ca_cert`` when saved."""
    if server.ca_cert is None:
        return True
    try:
        return ssl.create_default_context(cafile=server.ca_cert)
    except (OSError, ssl.SSLError) as exc:
        raise StorageFailed(
            f"The CA certificate {server.ca_cert} saved for @{server.alias} cannot be read "
            f"({exc}). Sign in again with `quire login @{server.alias} {server.url} --ca-cert "
            "FILE` naming a readable PEM file."
        ) from None


def server_link(state: Path, server: SavedServer) -> ServerLink:
    """A link to the signed-in ``server`` that never starts or looks for a local one."""
    return ServerLink(
        state=state,
        fixed=server.info(),
        refused=refused_message(server.alias, server.url, state),
        verify=verify_for(server),
        remote=True,
    )


def alias_link(state: Path, raw: str, argument: str) -> tuple[ServerLink, RemoteAddress]:
    """The link and parsed address of an ``@alias…`` argument."""
    address = parse_address(raw, argument)
    return server_link(state, saved_server(state, address.alias)), address


async def workspace_folder(api: QuireApi, address: RemoteAddress, argument: str) -> str:
    """The server's absolute path of the workspace an address names (by its folder name)."""
    named = await api.named_workspaces()
    names = ", ".join(name for name, _ in named) or "none"
    if address.workspace is None:
        if len(named) == 1:
            return named[0][1]
        raise InvalidArgument(
            f"{argument}: @{address.alias} serves several workspaces ({names}). Name one: "
            f"@{address.alias}/WORKSPACE/path.md.",
            argument=argument,
        )
    matching = [path for name, path in named if name == address.workspace]
    if len(matching) != 1:
        raise FileMissing(
            f"@{address.alias} has no workspace named {address.workspace!r} (its workspaces: "
            f"{names}). Check the name, or ask a workspace admin for access."
        )
    return matching[0]


async def address_path(api: QuireApi, address: RemoteAddress, argument: str) -> str:
    """The server's absolute path that ``@alias/workspace/path`` names."""
    folder = await workspace_folder(api, address, argument)
    return remote_path(folder, address.path)
