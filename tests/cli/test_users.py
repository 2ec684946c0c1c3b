"""`quire user …`: accounts, passwords from stdin only, tokens printed once, grants, --json
and exit codes, on the state folder's database with no server running."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from quire.cli.main import cli
from quire.core.teams.credentials import digest

PASSWORD = "correct horse battery staple"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


def run(state: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["user", *args, "--state-dir", str(state)], input=stdin)


def rows(state: Path, query: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(state / "quire.db")
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def test_add_list_and_json(state: Path) -> None:
    added = run(state, "add", "Alice", "--role", "superadmin", "--password-stdin", stdin=PASSWORD)
    assert added.exit_code == 0, added.output
    assert "Added superadmin 'alice'." in added.output
    assert PASSWORD not in added.output
    assert run(state, "add", "bob", "--no-password").exit_code == 0
    listed = run(state, "list")
    assert listed.output.splitlines() == [
        "alice  superadmin, enabled",
        "bob  collaborator, enabled, no password",
    ]
    found = json.loads(run(state, "list", "--json").output)
    assert [(a["username"], a["has_password"], a["grants"]) for a in found] == [
        ("alice", True, []),
        ("bob", False, []),
    ]
    [(hashed,)] = rows(state, "SELECT password_hash FROM accounts WHERE username = 'alice'")
    assert isinstance(hashed, str) and hashed.startswith("$argon2id$v=19$m=65536,t=3,p=4$")


def test_a_password_is_never_an_argument_and_needs_a_terminal_or_stdin(state: Path) -> None:
    assert run(state, "add", "alice", "--password", PASSWORD).exit_code == 2
    refused = run(state, "add", "alice")
    assert refused.exit_code == 1
    assert "--password-stdin" in refused.output
    weak = run(state, "add", "alice", "--password-stdin", stdin="short\n")
    assert weak.exit_code == 1
    assert "at least 12" in weak.output
    assert rows(state, "SELECT username FROM accounts") == []


def test_passwd_disable_enable_and_delete(state: Path) -> None:
    run(state, "add", "root1", "--role", "superadmin", "--no-password")
    run(state, "add", "carol", "--no-password")
    assert run(state, "passwd", "carol", "--password-stdin", stdin=PASSWORD + "\r\n").exit_code == 0
    assert "carol  collaborator, enabled\n" in run(state, "list").output
    assert run(state, "disable", "carol").exit_code == 0
    assert "carol  collaborator, disabled" in run(state, "list").output
    assert run(state, "enable", "carol").exit_code == 0
    last = run(state, "disable", "root1")
    assert last.exit_code == 1 and "last enabled superadmin" in last.output
    unconfirmed = run(state, "delete", "carol", stdin="y\n")
    assert unconfirmed.exit_code == 1
    assert "pass --yes" in unconfirmed.output
    assert run(state, "delete", "carol", "--yes").exit_code == 0
    missing = run(state, "passwd", "carol", "--password-stdin", stdin=PASSWORD)
    assert missing.exit_code == 1
    assert "No account is named 'carol'" in missing.output


def test_a_token_is_printed_once_and_stored_as_its_digest(state: Path) -> None:
    run(state, "add", "bot", "--no-password")
    made = run(state, "token", "bot", "--name", "ci", "--expires", "30d")
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    assert token.startswith("qt_") and "\n" not in token
    [(token_id, name, stored)] = rows(state, "SELECT id, name, token_hash FROM api_tokens")
    assert (name, stored) == ("ci", digest(token))
    listed = run(state, "tokens", "bot")
    assert token not in listed.output and str(token_id) in listed.output
    as_json = json.loads(run(state, "tokens", "bot", "--json").output)
    assert as_json[0]["id"] == token_id and as_json[0]["expires_at_ms"] is not None
    assert "token" not in as_json[0]
    assert run(state, "revoke-token", "bot", str(token_id)).exit_code == 0
    again = run(state, "revoke-token", "bot", str(token_id))
    assert again.exit_code == 1
    assert run(state, "token", "bot", "--expires", "yesterday").exit_code == 1
    made_json = json.loads(run(state, "token", "bot", "--json").output)
    assert made_json["token"].startswith("qt_")


def test_grant_and_revoke_show_in_the_list(state: Path) -> None:
    run(state, "add", "dana", "--no-password")
    granted = run(state, "grant", "dana", "team", "/notes/", "--access", "write")
    assert granted.exit_code == 0, granted.output
    assert run(state, "grant", "dana", "team", "--access", "read").exit_code == 0
    assert run(state, "list").output.splitlines()[1:] == [
        "    read   team",
        "    write  team/notes",
    ]
    assert run(state, "grant", "dana", "team", "../up", "--access", "read").exit_code == 1
    assert run(state, "grant", "dana", "team", "--access", "admin").exit_code == 2
    assert run(state, "grant", "dana", "team").exit_code == 2
    assert run(state, "revoke", "dana", "team", "notes").exit_code == 0
    assert run(state, "revoke", "dana", "team", "notes").exit_code == 1
    assert json.loads(run(state, "list", "--json").output)[0]["grants"] == [
        {"workspace": "team", "prefix": "", "access": "read", "group": None}
    ]


def test_sign_out_everywhere_reports_how_many_sessions_ended(state: Path) -> None:
    run(state, "add", "erin", "--no-password")
    done = run(state, "sign-out", "erin")
    assert done.exit_code == 0
    assert "Ended 0 browser sessions of 'erin'." in done.output
