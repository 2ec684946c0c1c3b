"""``quire login``, ``logout`` and ``whoami`` against a real ``quire serve --multi``."""

from __future__ import annotations

import json
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.teams.remote_world import RemoteServer, remote_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    with remote_server(tmp_path_factory.mktemp("remote")) as running:
        yield running


def test_login_checks_the_token_saves_it_private_and_never_prints_it(
    server: RemoteServer, tmp_path: Path
) -> None:
    token = server.account("alice", grants=[("team", "open", "read")])
    laptop = server.machine(tmp_path)
    done = laptop.quire("login", "@work", server.url + "/", "--token-stdin", stdin=token + "\n")
    assert done.returncode == 0, done.stderr
    assert "@work" in done.stdout and "alice" in done.stdout
    assert token not in done.stdout + done.stderr
    saved = laptop.state / "servers.toml"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    entry = tomllib.loads(saved.read_text(encoding="utf-8"))["servers"]["work"]
    assert entry == {"url": server.url, "token": token}

    who = laptop.quire("whoami", "@work")
    assert who.returncode == 0, who.stderr
    assert "alice" in who.stdout and "collaborator" in who.stdout and server.url in who.stdout
    assert token not in who.stdout + who.stderr
    answer = json.loads(laptop.quire("whoami", "@work", "--json").stdout)
    assert answer["username"] == "alice" and answer["role"] == "collaborator"
    assert answer["server"] == "work" and answer["mode"] == "multi"

    out = laptop.quire("logout", "@work")
    assert out.returncode == 0 and "Signed out of @work" in out.stdout
    assert "work" not in tomllib.loads(saved.read_text(encoding="utf-8")).get("servers", {})
    gone = laptop.quire("whoami", "@work")
    assert gone.returncode == 1 and "quire login @work URL" in gone.stderr
    again = laptop.quire("logout", "@work")
    assert again.returncode == 0 and "nothing to do" in again.stdout


def test_a_refused_token_is_not_saved_and_the_message_names_the_fix(
    server: RemoteServer, tmp_path: Path
) -> None:
    laptop = server.machine(tmp_path)
    wrong = "qt_000000000000_" + "B" * 43
    done = laptop.quire("login", "@work", server.url, "--token-stdin", stdin=wrong)
    assert done.returncode == 1
    assert "refused this token (HTTP 401)" in done.stderr
    assert "Nothing was saved" in done.stderr and "quire user token" in done.stderr
    assert wrong not in done.stdout + done.stderr
    assert not (laptop.state / "servers.toml").exists()


def test_a_token_revoked_after_login_gets_one_message_naming_the_fix(
    server: RemoteServer, tmp_path: Path
) -> None:
    token = server.account("carol", grants=[("team", "", "read")])
    laptop = server.machine(tmp_path)
    assert laptop.quire("login", "@w", server.url, "--token-stdin", stdin=token).returncode == 0
    server.user("disable", "carol")
    who = laptop.quire("whoami", "@w")
    assert who.returncode == 1
    assert "refused the token saved for it" in who.stderr
    assert f"quire login @w {server.url}" in who.stderr and "quire user token" in who.stderr
    assert token not in who.stdout + who.stderr


def test_the_token_is_never_an_argument_and_aliases_are_checked(
    server: RemoteServer, tmp_path: Path
) -> None:
    laptop = server.machine(tmp_path)
    no_terminal = laptop.quire("login", "@w", server.url)
    assert no_terminal.returncode == 1 and "--token-stdin" in no_terminal.stderr
    extra = laptop.quire("login", "@w", server.url, "qt_secret")
    assert extra.returncode == 2
    bad = laptop.quire("login", "@../x", server.url, "--token-stdin", stdin="t")
    assert bad.returncode == 1 and "is not a server alias" in bad.stderr
    url = laptop.quire("login", "@w", "ftp://example.com", "--token-stdin", stdin="t")
    assert url.returncode == 1 and "is not a server address" in url.stderr


def test_whoami_without_an_alias_asks_the_local_server_which_says_owner(
    server: RemoteServer, tmp_path: Path
) -> None:
    # The server's own machine: its state folder's server.json holds the owner's token.
    local = server.machine(tmp_path)
    local.state = server.state
    who = local.quire("whoami")
    assert who.returncode == 0, who.stderr
    assert "You are the owner of the local server" in who.stdout
    assert server.owner_token not in who.stdout
    nobody = server.machine(tmp_path / "other").quire("whoami")
    assert nobody.returncode == 1 and "quire whoami @alias" in nobody.stderr


def test_chat_commands_take_alias_addresses(server: RemoteServer, tmp_path: Path) -> None:
    token = server.account("ivan", grants=[("team", "", "write")])
    laptop = server.machine(tmp_path)
    assert laptop.quire("login", "@t", server.url, "--token-stdin", stdin=token).returncode == 0
    room = "@t/team/Chats/room.md"
    made = laptop.quire("chat", "new", room, "Room")
    assert made.returncode == 0, made.stderr
    assert (server.workspace / "Chats" / "room.md").is_file()
    posted = laptop.quire("chat", "post", room, "Hello from afar.", "--as", "scout")
    assert posted.returncode == 0, posted.stderr
    read = laptop.quire("chat", "read", room, "--as", "reader", "--json")
    assert read.returncode == 0, read.stderr
    assert [m["body"] for m in json.loads(read.stdout)["messages"]] == ["Hello from afar."]
    listed = laptop.quire("chat", "list", "@t", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [c["path"] for c in json.loads(listed.stdout)["chats"]] == [
        str(server.workspace / "Chats" / "room.md")
    ]
    in_workspace = laptop.quire("chat", "list", "@t/team", "--json")
    assert json.loads(in_workspace.stdout) == json.loads(listed.stdout)
    unknown = laptop.quire("chat", "read", "@t/nowhere/Chats/room.md")
    assert unknown.returncode == 1 and "no workspace named 'nowhere'" in unknown.stderr
    traversal = laptop.quire("chat", "read", "@t/team/../../etc/passwd.md")
    assert traversal.returncode == 1 and "not a clean address" in traversal.stderr
    no_note = laptop.quire("chat", "read", "@t/team")
    assert no_note.returncode == 1 and "names no note" in no_note.stderr
