"""The sign-in plumbing of multi mode: the sign-in cache and what ends it, open connections
closed when access shrinks, refusal messages, TLS origins, and attribution.

The cache keeps who a credential signs in as while the database's access-change counter has
not moved (on SQLite it is read straight from the file, on the event loop's thread); these tests
prove a change made by ANOTHER process (``quire user …``, or a second engine on the same file)
is seen on the very next request, with no wait, and that commits which change no access (an
edit's journal, a window's state) leave the cache alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.requests import HTTPConnection
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from quire.db.access_changes import QuickCounter
from quire.services.users.access import GrantedAccess, acting_as
from quire.services.users.identity import Identity
from quire.web.auth import TeamSignIn
from quire.web.authors import request_author, requesting_agent
from quire.web.connections import RECHECK_S
from quire.web.context import USER_SCOPE_KEY
from quire.web.events import CLOSE_RECONNECT
from tests.support.team import TeamWorld, team_world
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio


def _sign_in(world: TeamWorld) -> TeamSignIn:
    sign_in = world.app.state.connections.sign_in
    assert isinstance(sign_in, TeamSignIn)
    return sign_in


async def _commit_elsewhere(world: TeamWorld, statement: str) -> None:
    """Commit ``statement`` through an engine of its own (another connection, as another
    process would)."""
    other = create_async_engine(world.services.settings.database_url)
    try:
        async with other.begin() as connection:
            await connection.execute(text(statement))
    finally:
        await other.dispose()


def _quire_user(world: TeamWorld, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``quire user ARGS…`` in another process, against the world's state folder."""
    state = world.services.settings.state_dir
    env = {**os.environ, "QUIRE_HOME": str(state)}
    env.pop("QUIRE_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "quire.cli.main", "user", *args, "--state-dir", str(state)],
        capture_output=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done


async def test_the_access_counter_read_quickly_sees_another_connections_commit(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        path = make_url(world.services.settings.database_url).database
        assert path is not None
        quick = QuickCounter(path)
        try:
            before = quick.read()
            assert before is not None
            assert before == await world.team.changes()
            await _commit_elsewhere(world, "UPDATE accounts SET disabled = 1")
            assert quick.read() == before + 1
        finally:
            quick.close()
    # A file that cannot be read answers None: the engine is asked instead.
    missing = QuickCounter(str(tmp_path / "gone" / "quire.db"))
    assert missing.read() is None


async def test_repeated_requests_are_answered_from_the_cache(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        sign_in = _sign_in(world)
        assert (await alice.api.get("/api/workspaces")).status_code == 200
        before = sign_in.lookups
        for _ in range(20):
            assert (await alice.api.get("/api/workspaces")).status_code == 200
        assert sign_in.lookups - before <= 2  # at most one more, when a second went by


async def test_interleaved_accounts_each_sign_in_as_themselves_from_the_cache(
    tmp_path: Path,
) -> None:
    """The cache remembers the last credential's key beside it: another credential, a token
    and a session with the same account, or a token that differs in its last character, never
    takes that key."""
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        bob = await world.account("bob", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        near = world.client({"Authorization": f"Bearer {alice.token[:-1]}x"})
        sign_in = _sign_in(world)
        clients = [(alice.api, "alice"), (bob.api, "bob"), (browser, "alice")]
        for client, username in clients * 2:
            assert (await client.get("/api/account")).json()["username"] == username
        before = sign_in.lookups
        for client, username in [*clients, (alice.api, "alice"), (alice.api, "alice")] * 3:
            account = (await client.get("/api/account")).json()
            assert account["username"] == username
        assert sign_in.lookups - before <= 6  # at most three more each, when a second went by
        assert (await near.get("/api/account")).status_code == 401
        assert (await alice.api.get("/api/account")).json()["username"] == "alice"
        assert (await near.get("/api/account")).status_code == 401


UNRELATED = {
    "a failed sign-in": (
        "INSERT INTO login_failures (username, address, at_ms) VALUES ('x', 'y', 1)"
    ),
    "a session touched": "UPDATE browser_sessions SET last_seen_at_ms = last_seen_at_ms + 1",
    "a token used": "UPDATE api_tokens SET last_used_at_ms = 1",
    "a window's state": "INSERT INTO users (id, name, created_at_ms) VALUES ('u-x', 'x', 1)",
}


@pytest.mark.parametrize("quick", [True, False], ids=["quick read", "through the engine"])
async def test_commits_that_change_no_access_leave_the_cache_and_one_that_does_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick: bool
) -> None:
    """The counter read through the engine (as on PostgreSQL) keeps the cache the same way."""
    monkeypatch.setattr("quire.web.auth.CACHE_MAX_AGE_S", 3600.0)
    if not quick:
        monkeypatch.setattr(QuickCounter, "read", lambda self: None)
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        sign_in = _sign_in(world)
        assert (await alice.api.get("/api/workspaces")).status_code == 200
        assert (await browser.get("/api/workspaces")).status_code == 200
        before = sign_in.lookups
        for statement in UNRELATED.values():
            await _commit_elsewhere(world, statement)
            assert (await alice.api.get("/api/workspaces")).status_code == 200
            assert (await browser.get("/api/workspaces")).status_code == 200
        # An edit commits to the journal: still no sign-in looked up again.
        note = str(world.workspace / "open" / "plan.md")
        for body in ({"path": note}, {"path": note, "find": "Plan", "replace": "Plan!"}):
            url = "/api/documents/open" if len(body) == 1 else "/api/documents/edit"
            edited = await world.owner.post(url, json=body)
            assert edited.status_code == 200, edited.text
        assert (await alice.api.get("/api/workspaces")).status_code == 200
        assert sign_in.lookups == before
        await _commit_elsewhere(world, "UPDATE accounts SET disabled = 1")
        assert (await alice.api.get("/api/workspaces")).status_code == 401
        assert (await browser.get("/api/workspaces")).status_code == 401
        assert sign_in.lookups == before + 2


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (("revoke-token", "alice", "{token_id}"), 401),
        (("disable", "alice"), 401),
        (("sign-out", "alice"), None),
        (("revoke", "alice", "team"), None),
    ],
)
async def test_a_quire_user_command_in_another_process_counts_on_the_very_next_request(
    tmp_path: Path, command: tuple[str, ...], status: int | None
) -> None:
    async with team_world(tmp_path) as world:
        await world.account("boss", role="superadmin")
        alice = await world.account("alice", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        sign_in = _sign_in(world)
        for _ in range(3):
            assert (await alice.api.get("/api/workspaces")).status_code == 200
            assert (await browser.get("/api/workspaces")).status_code == 200
        (token,) = await world.team.tokens.list("alice")
        before = sign_in.lookups
        _quire_user(world, *(part.format(token_id=token.id) for part in command))
        # No sleep: the next request reads the database again.
        answer = await alice.api.get("/api/workspaces")
        assert sign_in.lookups > before
        if status is not None:
            assert answer.status_code == status
            # A revoked token leaves the browser signed in; a disabled account is signed out.
            browsing = 200 if command[0] == "revoke-token" else status
            assert (await browser.get("/api/workspaces")).status_code == browsing
        elif command[0] == "sign-out":
            assert answer.status_code == 200  # tokens stay; browsers are signed out
            assert (await browser.get("/api/workspaces")).status_code == 401
        else:
            assert answer.status_code == 200


async def test_a_commit_by_another_connection_counts_on_the_very_next_request(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        for _ in range(3):
            assert (await alice.api.get("/api/workspaces")).status_code == 200
        await _commit_elsewhere(world, "UPDATE accounts SET disabled = 1")
        assert (await alice.api.get("/api/workspaces")).status_code == 401


async def test_a_new_grant_asks_a_window_to_reload_and_a_shrunk_one_closes_it(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account(
            "alice", grants=[("team", "open", "read"), ("team", "secret", "write")]
        )
        auth = {"Authorization": f"Bearer {alice.token}"}
        async with live_server(world.app) as port:
            url = f"ws://127.0.0.1:{port}/ws/events"
            async with connect(url, additional_headers=auth) as socket:
                await world.team.grants.grant("alice", "team", "", access="read")
                await world.app.state.connections.recheck()
                with anyio.fail_after(5), pytest.raises(ConnectionClosed) as grew:
                    while True:
                        await socket.recv()
                assert grew.value.rcvd is not None
                assert grew.value.rcvd.code == CLOSE_RECONNECT  # reconnect and reload
            async with connect(url, additional_headers=auth) as socket:
                await world.team.grants.revoke("alice", "team", "secret")
                await world.app.state.connections.recheck()
                with anyio.fail_after(5), pytest.raises(ConnectionClosed) as caught:
                    while True:
                        await socket.recv()
                assert caught.value.rcvd is not None
                assert caught.value.rcvd.code == 4403


async def test_open_sockets_are_signed_in_again_only_when_the_counter_moves(
    tmp_path: Path,
) -> None:
    """The once-a-second loop reads the access-change counter; with nothing changed it signs
    no one in again, and a grant taken away by another connection closes the socket."""
    async with team_world(tmp_path) as world:
        alice = await world.account(
            "alice", grants=[("team", "open", "read"), ("team", "secret", "write")]
        )
        sign_in = _sign_in(world)
        auth = {"Authorization": f"Bearer {alice.token}"}
        async with live_server(world.app) as port:
            url = f"ws://127.0.0.1:{port}/ws/events"
            async with connect(url, additional_headers=auth) as socket:
                # The loop's first turn counts alice's account and grants, made after it began.
                await anyio.sleep(RECHECK_S * 1.5)
                before = sign_in.lookups
                await anyio.sleep(RECHECK_S * 2.5)
                assert sign_in.lookups == before
                await _commit_elsewhere(world, "DELETE FROM grants WHERE prefix = 'secret'")
                with anyio.fail_after(RECHECK_S * 5), pytest.raises(ConnectionClosed) as caught:
                    while True:
                        await socket.recv()
                assert caught.value.rcvd is not None
                assert caught.value.rcvd.code == 4403
                assert sign_in.lookups > before


async def test_refusals_in_multi_mode_say_what_to_do(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice")
        (token,) = await world.team.tokens.list("alice")
        await world.team.tokens.revoke("alice", token.id)
        revoked = await alice.api.get("/api/workspaces")
        assert revoked.status_code == 401
        assert "quire user token" in revoked.json()["error"]["message"]
        assert alice.token not in revoked.text
        nothing = await world.client().get("/api/workspaces")
        assert "/login" in nothing.json()["error"]["message"]
        ended = await world.client({"Cookie": "quire_session=gone"}).get("/api/workspaces")
        assert "Sign in again" in ended.json()["error"]["message"]


def _connection(headers: dict[str, str]) -> HTTPConnection:
    raw = [(key.lower().encode(), value.encode()) for key, value in headers.items()]
    return HTTPConnection({"type": "http", "headers": raw, USER_SCOPE_KEY: "alice"})


def test_an_agent_is_a_label_written_with_its_account_in_multi_mode(tmp_path: Path) -> None:
    access = GrantedAccess(Identity("acct-1", "alice", "collaborator"), (), ())
    token = {"Authorization": "Bearer qt_x"}
    with acting_as(access):
        assert request_author(_connection({**token, "X-Quire-Agent": "claude"})) == (
            "claude (via alice)"
        )
        assert request_author(_connection({**token, "X-Quire-Agent": "Alice"})) == "alice"
        assert request_author(_connection(token)) == "alice"
        assert requesting_agent(_connection(token)) == "alice"
        assert request_author(_connection({})) == "alice"
        assert requesting_agent(_connection({})) is None
    # Single mode (and the server's own token) keeps the agent's bare name.
    assert request_author(_connection({**token, "X-Quire-Agent": "claude"})) == "claude"
    assert request_author(_connection(token)) == "agent"
