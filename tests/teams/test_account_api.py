"""The account page's API: who is signed in, API tokens, the password, sign-out everywhere, and
which of those a browser session, an account's token and the server's own token may do."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from quire.services.app import open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.support.machines import machine_under
from tests.support.team import PASSWORD, TeamWorld, team_world
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

NEW_PASSWORD = "a brand new passphrase for today"


async def _close_code(socket: ClientConnection) -> int | None:
    with anyio.fail_after(5):
        try:
            while True:
                await socket.recv()
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None


async def _signed_in(world: TeamWorld, client: httpx.AsyncClient) -> bool:
    answer = await client.get("/api/account")
    assert answer.status_code in (200, 401), answer.text
    return answer.status_code == 200


async def test_the_account_says_who_is_signed_in_and_how(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice")
        await world.account("boss", role="superadmin")
        by_token = (await alice.api.get("/api/account")).json()
        assert by_token == {
            "mode": "multi",
            "username": "alice",
            "role": "collaborator",
            "admin": False,
            "signedInBy": "token",
        }
        browser = await world.browser("boss")
        seen = (await browser.get("/api/account")).json()
        assert (seen["role"], seen["admin"], seen["signedInBy"]) == ("superadmin", True, "browser")
        owner = (await world.owner.get("/api/account")).json()
        assert (owner["username"], owner["role"], owner["admin"]) == ("owner", None, True)


async def test_a_single_mode_server_says_single_and_serves_no_account_changes(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "notes"
    workspace.mkdir()
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=4747)
    async with open_services(
        settings, token="t" * 64, clock=lambda: 0, machine=machine_under(tmp_path)
    ) as services:
        transport = httpx.ASGITransport(app=create_app(services))
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://127.0.0.1:4747",
            headers={"Authorization": "Bearer " + "t" * 64},
        ) as client:
            seen = (await client.get("/api/account")).json()
            assert (seen["mode"], seen["role"], seen["admin"]) == ("single", None, False)
            assert (await client.get("/api/account/tokens")).status_code == 404
            assert (await client.get("/api/admin")).status_code == 404
            document = (await client.get("/api/openapi.json")).json()
            assert "/api/account" in document["paths"]
            assert "/api/admin" not in document["paths"]


async def test_a_token_made_in_the_browser_is_shown_once_and_signs_in(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        made = await browser.post("/api/account/tokens", json={"name": "laptop", "expires": "30d"})
        assert made.status_code == 200, made.text
        token = made.json()["token"]
        info = made.json()["info"]
        assert token.startswith("qt_")
        assert (info["name"], info["state"]) == ("laptop", "active")
        assert info["expiresAt"] == 1_700_000_000_000 + 30 * 86_400_000
        listed = await browser.get("/api/account/tokens")
        assert token not in listed.text
        assert sorted(each["name"] for each in listed.json()["tokens"]) == ["laptop", "tests"]
        fresh = world.client({"Authorization": f"Bearer {token}"})
        assert (await fresh.get("/api/workspaces")).status_code == 200


async def test_a_bad_expiry_or_name_is_refused_by_name(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        browser = await world.browser("alice")
        late = await browser.post("/api/account/tokens", json={"name": "x", "expires": "soon"})
        assert (late.status_code, late.json()["error"]["argument"]) == (400, "expires")
        blank = await browser.post("/api/account/tokens", json={"name": "  "})
        assert (blank.status_code, blank.json()["error"]["argument"]) == (400, "name")


@pytest.mark.parametrize("role", ["collaborator", "superadmin"])
async def test_no_api_token_may_make_another_token(tmp_path: Path, role: str) -> None:
    async with team_world(tmp_path) as world:
        agent = await world.account("agent", role=role)
        refused = await agent.api.post("/api/account/tokens", json={"name": "more"})
        assert refused.status_code == 403
        assert refused.json()["error"]["type"] == "BrowserLoginNeeded"
        assert "browser" in refused.json()["error"]["message"]
        assert len(await world.team.tokens.list("agent")) == 1


async def test_the_servers_own_token_has_no_account_to_change(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        refused = await world.owner.get("/api/account/tokens")
        assert refused.status_code == 403
        assert "no account" in refused.json()["error"]["message"]


async def test_revoking_a_token_ends_its_requests_and_open_sockets_at_once(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        (token,) = (await browser.get("/api/account/tokens")).json()["tokens"]
        async with (
            live_server(world.app) as port,
            connect(
                f"ws://127.0.0.1:{port}/ws/events",
                additional_headers={"Authorization": f"Bearer {alice.token}"},
            ) as socket,
        ):
            revoked = await browser.post("/api/account/tokens/revoke", json={"id": token["id"]})
            assert revoked.status_code == 200, revoked.text
            assert revoked.json()["tokens"][0]["state"] == "revoked"
            assert await _close_code(socket) == 4401
        assert (await alice.api.get("/api/workspaces")).status_code == 401
        again = await browser.post("/api/account/tokens/revoke", json={"id": token["id"]})
        assert (again.status_code, again.json()["error"]["argument"]) == (400, "token")


async def test_only_a_superadmins_token_may_revoke_tokens_or_sign_out_everywhere(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice")
        boss = await world.account("boss", role="superadmin")
        for client, allowed in ((alice.api, False), (boss.api, True)):
            ended = await client.post("/api/account/sign-out-everywhere", json={})
            assert ended.status_code == (200 if allowed else 403), ended.text
        (alice_token,) = await world.team.tokens.list("alice")
        refused = await alice.api.post("/api/account/tokens/revoke", json={"id": alice_token.id})
        assert refused.json()["error"]["type"] == "BrowserLoginNeeded"
        (boss_token,) = await world.team.tokens.list("boss")
        done = await boss.api.post("/api/account/tokens/revoke", json={"id": boss_token.id})
        assert done.status_code == 200
        assert (await boss.api.get("/api/account")).status_code == 401


async def test_changing_the_password_signs_out_the_other_browsers_only(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        here = await world.browser("alice")
        there = await world.browser("alice")
        async with (
            live_server(world.app) as port,
            connect(
                f"ws://127.0.0.1:{port}/ws/events",
                additional_headers={"Cookie": f"quire_session={there.cookies['quire_session']}"},
            ) as socket,
        ):
            changed = await here.post(
                "/api/account/password",
                json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
            )
            assert changed.status_code == 200, changed.text
            assert await _close_code(socket) == 4401
        assert await _signed_in(world, here)
        assert not await _signed_in(world, there)
        assert await _signed_in(world, alice.api), "API tokens stay"
        await world.browser("alice", NEW_PASSWORD)
        with pytest.raises(AssertionError):
            await world.browser("alice", PASSWORD)


async def test_a_password_change_needs_the_current_password_and_the_rules(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice")
        browser = await world.browser("alice")
        wrong = await browser.post(
            "/api/account/password",
            json={"current_password": "not it at all", "new_password": NEW_PASSWORD},
        )
        assert (wrong.status_code, wrong.json()["error"]["argument"]) == (400, "current_password")
        weak = await browser.post(
            "/api/account/password", json={"current_password": PASSWORD, "new_password": "short"}
        )
        assert (weak.status_code, weak.json()["error"]["argument"]) == (400, "password")
        by_token = await alice.api.post(
            "/api/account/password",
            json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
        )
        assert by_token.json()["error"]["type"] == "BrowserLoginNeeded"
        await world.browser("alice", PASSWORD)


async def test_wrong_current_passwords_count_toward_the_lockout(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        browser = await world.browser("alice")
        statuses = []
        for _ in range(6):
            answer = await browser.post(
                "/api/account/password",
                json={"current_password": "guess guess guess", "new_password": NEW_PASSWORD},
            )
            statuses.append(answer.status_code)
        assert statuses == [400] * 5 + [429]


async def test_signing_out_everywhere_ends_every_session_this_one_included(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        here = await world.browser("alice")
        there = await world.browser("alice")
        ended = await here.post("/api/account/sign-out-everywhere", json={})
        assert ended.status_code == 200, ended.text
        assert ended.json() == {"ended": 2}
        assert "quire_session" not in here.cookies
        assert not await _signed_in(world, there)
        stale = world.client({"Cookie": f"quire_session={there.cookies['quire_session']}"})
        assert not await _signed_in(world, stale)


async def test_a_password_change_keeps_only_this_session_on_each_database(
    tmp_path: Path, database_url: str
) -> None:
    async with team_world(tmp_path, db_url=database_url) as world:
        await world.account("alice")
        here = await world.browser("alice")
        there = await world.browser("alice")
        changed = await here.post(
            "/api/account/password",
            json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
        )
        assert changed.status_code == 200, changed.text
        assert await _signed_in(world, here)
        assert not await _signed_in(world, there)
