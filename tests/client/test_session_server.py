"""The keepalive's choice of server: the ``@alias`` of the session's last chat command, else
this machine's; an alias that cannot be linked is never the local server."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.client.servers import SavedServer, save_server, servers_file
from quire.client.session_server import (
    LocalServer,
    SignedInServer,
    UnlinkedServer,
    remote_chat,
    session_server,
)
from quire.client.transcript import ChatCommand

TOKEN = "qt_0123456789ab_" + "x" * 43
URL = "https://notes.example.com"


def wait(chat: str | None) -> ChatCommand:
    return ChatCommand("wait", f"quire chat wait {chat or ''}".strip(), chat)


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (None, None),
        (wait(None), None),
        (ChatCommand("leave", "", None), None),
        (wait("Chats/team.md"), None),
        (wait("/abs/Chats/team.md"), None),
        (wait("~/notes/@team.md"), None),
        (wait("@team/ws/Chats/room.md"), "@team/ws/Chats/room.md"),
        (ChatCommand("leave", "", "@team/ws/c.md"), "@team/ws/c.md"),
    ],
)
def test_only_an_alias_address_names_another_server(
    found: ChatCommand | None, expected: str | None
) -> None:
    assert remote_chat(found) == expected


@pytest.mark.parametrize("chat", [None, "Chats/team.md", "/w/Chats/team.md"])
def test_a_local_chat_or_none_asks_the_local_server(tmp_path: Path, chat: str | None) -> None:
    save_server(tmp_path, SavedServer("team", URL, TOKEN))
    found = None if chat is None else wait(chat)
    assert session_server(tmp_path, found) == LocalServer()


def test_a_saved_alias_is_linked_with_its_url_and_token(tmp_path: Path) -> None:
    save_server(tmp_path, SavedServer("team", URL, TOKEN))
    server = session_server(tmp_path, wait("@team/ws/Chats/room.md"))
    assert isinstance(server, SignedInServer)
    assert server.alias == "team" and server.link.remote
    assert server.link.fixed is not None
    assert (server.link.fixed.url, server.link.fixed.token) == (URL, TOKEN)


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("@gone/ws/c.md", "Sign in to it first with `quire login @gone URL`"),
        ("@../ws/c.md", "is not a server alias"),
        ("@team/ws/../../etc/c.md", "is not a clean address"),
    ],
)
def test_an_alias_that_cannot_be_linked_is_unlinked_not_local(
    tmp_path: Path, address: str, message: str
) -> None:
    save_server(tmp_path, SavedServer("team", URL, TOKEN))
    server = session_server(tmp_path, wait(address))
    assert isinstance(server, UnlinkedServer) and server.address == address
    assert message in server.reason and TOKEN not in server.reason


def test_a_broken_servers_file_or_ca_certificate_is_unlinked(tmp_path: Path) -> None:
    servers_file(tmp_path).write_text("[servers\n", encoding="utf-8")
    broken = session_server(tmp_path, wait("@team/ws/c.md"))
    assert isinstance(broken, UnlinkedServer) and "is not valid TOML" in broken.reason
    servers_file(tmp_path).unlink()
    save_server(tmp_path, SavedServer("team", URL, TOKEN, str(tmp_path / "missing.pem")))
    no_ca = session_server(tmp_path, wait("@team/ws/c.md"))
    assert isinstance(no_ca, UnlinkedServer) and "missing.pem" in no_ca.reason
    assert TOKEN not in no_ca.reason
