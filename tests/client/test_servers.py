"""servers.toml and ``@alias/…`` addresses: the file's shape and mode, and every parser case."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from quire.client.approval_hook import Machine, policy_link
from quire.client.remote import refused_message, server_link
from quire.client.servers import (
    RemoteAddress,
    SavedServer,
    check_url,
    forget_server,
    names_only_a_server,
    parse_address,
    read_servers,
    save_server,
    saved_server,
    servers_file,
)
from quire.core.approvals.policy import Policy
from quire.core.errors import DocumentInvalid, InvalidArgument

TOKEN = "qt_0123456789ab_" + "x" * 43


def test_servers_are_saved_0600_read_back_and_forgotten(tmp_path: Path) -> None:
    state = tmp_path / "state"
    save_server(state, SavedServer("work", "https://notes.example.com", TOKEN))
    save_server(state, SavedServer("lab", "http://127.0.0.1:4747", 'tok"en\\\n', "/c.pem"))
    assert stat.S_IMODE(servers_file(state).stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    saved = read_servers(state)
    assert saved["work"].token == TOKEN and saved["lab"].token == 'tok"en\\\n'
    assert saved["lab"].ca_cert == "/c.pem" and saved["work"].ca_cert is None
    assert TOKEN not in repr(saved["work"])
    assert forget_server(state, "work") and not forget_server(state, "work")
    assert list(read_servers(state)) == ["lab"]


def test_no_file_is_no_servers_and_a_missing_alias_names_quire_login(tmp_path: Path) -> None:
    assert read_servers(tmp_path) == {}
    with pytest.raises(InvalidArgument, match="quire login @nope URL"):
        saved_server(tmp_path, "nope")


@pytest.mark.parametrize(
    "text",
    ["servers = 3\n", "[servers.w]\nurl = 1\n", "[servers.w]\nurl = 'http://x'\n", "= nope"],
)
def test_a_malformed_file_names_itself_and_the_fix(tmp_path: Path, text: str) -> None:
    servers_file(tmp_path).write_text(text, encoding="utf-8")
    with pytest.raises(DocumentInvalid, match="quire login @alias URL"):
        read_servers(tmp_path)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("@mini", RemoteAddress("mini", None, None)),
        ("@mini/", RemoteAddress("mini", None, None)),
        ("@mini/notes", RemoteAddress("mini", "notes", None)),
        ("@mini/notes/Chats/release.md", RemoteAddress("mini", "notes", "Chats/release.md")),
        ("@a.b-c_d/ws/é/ñ.md", RemoteAddress("a.b-c_d", "ws", "é/ñ.md")),
    ],
)
def test_addresses_split_into_server_workspace_and_path(raw: str, expected: RemoteAddress) -> None:
    assert parse_address(raw, "CHAT") == expected


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("@", "is not a server alias"),
        ("@/ws/a.md", "is not a server alias"),
        ("@-x/ws", "is not a server alias"),
        ("@" + "a" * 64, "is not a server alias"),
        ("@a b/ws", "is not a server alias"),
        ("@mini/ws/../secret/keys.md", "not a clean address"),
        ("@mini/../ws/a.md", "not a clean address"),
        ("@mini/ws//a.md", "not a clean address"),
        ("@mini/ws/./a.md", "not a clean address"),
        ("@mini/ws/a\\..\\b.md", "not a clean address"),
        ("@mini/ws/a\0.md", "not a clean address"),
        ("mini/ws/a.md", "is not an @alias address"),
    ],
)
def test_bad_addresses_are_refused(raw: str, says: str) -> None:
    with pytest.raises(InvalidArgument, match=says):
        parse_address(raw, "CHAT")


def test_a_bare_alias_names_every_workspace() -> None:
    assert names_only_a_server("@mini") and names_only_a_server("@mini/")
    assert not names_only_a_server("@mini/notes") and not names_only_a_server("notes")


@pytest.mark.parametrize(
    "raw", ["ftp://x", "https://", "https://x/?q", "https://u@x", "notes.example.com", " "]
)
def test_a_server_url_needs_http_and_a_host(raw: str) -> None:
    with pytest.raises(InvalidArgument, match="is not a server address"):
        check_url(raw)


def test_a_saved_server_link_is_fixed_and_remote(tmp_path: Path) -> None:
    server = SavedServer("work", "https://notes.example.com", TOKEN)
    link = server_link(tmp_path, server)
    assert link.remote and link.fixed is not None and link.fixed.url == server.url
    assert "quire login @work https://notes.example.com" in refused_message(
        "work", server.url, tmp_path
    )


def test_the_approval_hooks_reach_the_server_the_policy_names(tmp_path: Path) -> None:
    machine = Machine(state=tmp_path, hostname="box")
    assert not policy_link(Policy(), machine).remote
    with pytest.raises(InvalidArgument, match="quire login @team URL"):
        policy_link(Policy(server="@team"), machine)
    save_server(tmp_path, SavedServer("team", "https://notes.example.com", TOKEN))
    link = policy_link(Policy(server="@team"), machine)
    assert link.remote and link.fixed is not None and link.fixed.token == TOKEN
