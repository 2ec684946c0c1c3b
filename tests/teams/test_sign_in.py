"""Multi mode's sign-in over HTTP: the form, sessions, API tokens, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.team import PASSWORD, team_world

pytestmark = pytest.mark.anyio


async def test_the_home_page_sends_a_stranger_to_the_sign_in_form(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        answer = await world.client().get("/")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/login?next=%2F"
        form = await world.client().get("/login")
        assert form.status_code == 200
        assert 'name="password"' in form.text
        assert "form-action 'self'" in form.headers["content-security-policy"]


async def test_an_account_signs_in_with_its_password_and_gets_a_new_session(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice", grants=[("team", "", "write")])
        browser = await world.browser("alice")
        answer = await browser.get("/api/workspaces")
        assert answer.status_code == 200
        cookie = browser.cookies.get("quire_session")
        assert cookie
        again = await world.browser("alice")
        assert again.cookies.get("quire_session") != cookie


async def test_a_wrong_password_is_refused_with_the_form_again(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        client = world.client()
        form = await client.get("/login")
        csrf = form.text.split('name="csrf" value="')[1].split('"')[0]
        answer = await client.post(
            "/login", data={"username": "alice", "password": PASSWORD + "x", "csrf": csrf}
        )
        assert answer.status_code == 401
        assert 'name="password"' in answer.text
        assert "quire_session" not in client.cookies


async def test_a_form_without_its_csrf_value_is_refused(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        client = world.client()
        await client.get("/login")
        answer = await client.post(
            "/login", data={"username": "alice", "password": PASSWORD, "csrf": "forged"}
        )
        assert answer.status_code == 403
        assert "quire_session" not in client.cookies


async def test_a_foreign_origin_cannot_post_the_sign_in_form(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        client = world.client()
        form = await client.get("/login")
        csrf = form.text.split('name="csrf" value="')[1].split('"')[0]
        answer = await client.post(
            "/login",
            data={"username": "alice", "password": PASSWORD, "csrf": csrf},
            headers={"Origin": "https://evil.example"},
        )
        assert answer.status_code == 403
        assert "quire_session" not in client.cookies


async def test_an_api_token_signs_in_until_it_is_revoked(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        assert (await alice.api.get("/api/workspaces")).status_code == 200
        (token,) = await world.team.tokens.list("alice")
        await world.team.tokens.revoke("alice", token.id)
        assert (await alice.api.get("/api/workspaces")).status_code == 401


async def test_a_disabled_account_is_refused_on_its_next_request(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("boss", role="superadmin")
        alice = await world.account("alice", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        await world.team.accounts.set_disabled("alice", True)
        assert (await alice.api.get("/api/workspaces")).status_code == 401
        assert (await browser.get("/api/workspaces")).status_code == 401


async def test_the_servers_own_token_still_signs_in_as_the_owner(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        assert (await world.owner.get("/api/workspaces")).status_code == 200


async def test_signing_out_ends_the_session(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        browser = await world.browser("alice")
        session = browser.cookies.get("quire_session")
        answer = await browser.post("/logout")
        assert answer.status_code == 303
        stale = world.client({"Cookie": f"quire_session={session}"})
        assert (await stale.get("/api/workspaces")).status_code == 401
