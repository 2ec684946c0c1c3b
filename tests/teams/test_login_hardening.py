"""Login hardening, proved over HTTP against a real multi-mode app and its raw database rows.

argon2id with the documented parameters as stored; five failures lock a username (429 with
Retry-After, the right password refused while locked); cross-site form posts and foreign
Origins refused; a session id planted before sign-in replaced (and a live one ended); and no
table ever holds a token, session id or password that signs anyone in.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import httpx
import pytest
from argon2 import PasswordHasher
from sqlalchemy import inspect, text

from quire.core.teams.credentials import TOKEN_PREFIX, token_id_of
from quire.services.users import passwords
from tests.support.team import PASSWORD, TeamWorld, team_world

pytestmark = pytest.mark.anyio


def _csrf(form: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert found is not None, form.text
    return found.group(1)


async def _try(client: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    form = await client.get("/login")
    return await client.post(
        "/login", data={"username": username, "password": password, "csrf": _csrf(form)}
    )


async def _rows(world: TeamWorld) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, read raw (no service in between)."""
    engine = world.services.database.engine
    async with engine.connect() as connection:
        names = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
        found: dict[str, list[tuple[object, ...]]] = {}
        for name in names:
            result = await connection.execute(text(f'SELECT * FROM "{name}"'))
            found[name] = [tuple(row) for row in result]
    return found


def _b64(part: str) -> bytes:
    return base64.b64decode(part + "=" * (-len(part) % 4))


async def test_passwords_are_stored_as_argon2id_with_the_documented_parameters(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        async with world.services.database.engine.connect() as connection:
            (stored,) = (
                await connection.execute(
                    text("SELECT password_hash FROM accounts WHERE username = 'alice'")
                )
            ).scalars()
        assert isinstance(stored, str)
        variant, version, parameters, salt, tag = stored.split("$")[1:]
        assert variant == "argon2id"
        assert version == "v=19"
        found = dict(item.split("=") for item in parameters.split(","))
        assert found == {
            "m": str(passwords.MEMORY_COST_KIB),
            "t": str(passwords.TIME_COST),
            "p": str(passwords.PARALLELISM),
        }
        assert (found["m"], found["t"], found["p"]) == ("65536", "3", "4")  # RFC 9106, 2nd option
        assert len(_b64(salt)) == 16
        assert len(_b64(tag)) == 32
        assert PASSWORD not in stored
        assert PasswordHasher().verify(stored, PASSWORD)


async def test_five_failures_lock_the_username_even_against_the_right_password(
    tmp_path: Path,
) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice", grants=[("team", "", "read")])
        await world.account("bob")
        client = world.client()
        for attempt in range(5):
            answer = await _try(client, "alice", f"wrong guess {attempt}")
            assert answer.status_code == 401, (attempt, answer.text)
        for password in (PASSWORD, "another guess"):
            locked = await _try(client, "ALICE", password)
            assert locked.status_code == 429, locked.text
            retry = int(locked.headers["Retry-After"])
            assert 0 < retry <= 15 * 60
            assert "Too many failed sign-ins" in locked.text
            assert "quire_session" not in client.cookies
        # The lock is the name's: another account still signs in from the same address.
        assert (await _try(world.client(), "bob", PASSWORD)).status_code == 303
        # A name that has no account locks the same way (a lock tells nothing about names).
        for attempt in range(5):
            assert (await _try(client, "nobody", f"x{attempt}")).status_code == 401
        assert (await _try(client, "nobody", "x")).status_code == 429


async def test_a_cross_site_form_post_is_refused(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        attacker = world.client()
        # The attacker's own page got a form value; the victim's browser, posting cross-site,
        # does not send the SameSite=Strict cookie that value belongs to.
        stolen = _csrf(await attacker.get("/login"))
        victim = world.client()
        answer = await victim.post(
            "/login", data={"username": "alice", "password": PASSWORD, "csrf": stolen}
        )
        assert answer.status_code == 403
        assert "quire_session" not in victim.cookies
        # With the cookie but a foreign Origin: refused before the form is read.
        form = await victim.get("/login")
        for origin in ("https://evil.example", "null", "http://127.0.0.1:4747.evil.example"):
            answer = await victim.post(
                "/login",
                data={"username": "alice", "password": PASSWORD, "csrf": _csrf(form)},
                headers={"Origin": origin},
            )
            assert answer.status_code == 403, origin
            assert "quire_session" not in victim.cookies
        # A value that is not even ASCII is a refusal, not an error.
        answer = await victim.post(
            "/login", data={"username": "alice", "password": PASSWORD, "csrf": "ünïcode"}
        )
        assert answer.status_code == 403
        # Signed in, a cross-site post to an API route carries a foreign Origin: refused.
        browser = await world.browser("alice")
        answer = await browser.post(
            "/logout", headers={"Origin": "https://evil.example"}, follow_redirects=False
        )
        assert answer.status_code == 403
        assert (await browser.get("/api/workspaces")).status_code == 200


async def test_the_cookies_are_httponly_and_samesite_strict(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice")
        client = world.client()
        form = await client.get("/login")
        assert "httponly" in form.headers["set-cookie"].lower()
        assert "samesite=strict" in form.headers["set-cookie"].lower()
        answer = await client.post(
            "/login", data={"username": "alice", "password": PASSWORD, "csrf": _csrf(form)}
        )
        session = next(
            value
            for value in answer.headers.get_list("set-cookie")
            if value.startswith("quire_session=")
        )
        assert "httponly" in session.lower()
        assert "samesite=strict" in session.lower()
        assert "path=/" in session.lower()


async def test_a_session_id_planted_before_sign_in_is_replaced(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice", grants=[("team", "", "read")])
        await world.account("mallory")
        # A made-up id: worth nothing, before or after.
        client = world.client()
        client.cookies.set("quire_session", "planted-by-someone-else", domain="127.0.0.1", path="/")
        answer = await _try(client, "alice", PASSWORD)
        assert answer.status_code == 303
        assert client.cookies.get("quire_session") not in (None, "planted-by-someone-else")
        planted = world.client({"Cookie": "quire_session=planted-by-someone-else"})
        assert (await planted.get("/api/workspaces")).status_code == 401
        # A real session of the attacker's own account, planted in the victim's browser: the
        # victim's sign-in gets a new id and ends the planted one.
        mallory = await world.browser("mallory")
        mallory_id = mallory.cookies.get("quire_session")
        assert mallory_id
        victim = world.client()
        victim.cookies.set("quire_session", mallory_id, domain="127.0.0.1", path="/")
        assert (await _try(victim, "alice", PASSWORD)).status_code == 303
        assert victim.cookies.get("quire_session") != mallory_id
        replayed = world.client({"Cookie": f"quire_session={mallory_id}"})
        assert (await replayed.get("/api/workspaces")).status_code == 401


async def test_the_database_holds_no_usable_token_session_id_or_password(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "read")])
        browser = await world.browser("alice")
        session_id = browser.cookies.get("quire_session")
        assert session_id
        assert (await alice.api.get("/api/workspaces")).status_code == 200
        assert (await browser.get("/api/workspaces")).status_code == 200
        rows = await _rows(world)
        # The token's secret part: the random text after its id (which may hold "_" itself).
        token_id = token_id_of(alice.token)
        assert token_id is not None
        secret_part = alice.token.removeprefix(f"{TOKEN_PREFIX}{token_id}_")
        assert len(secret_part) >= 32
        secrets = {alice.token, session_id, PASSWORD, secret_part}
        for table, found in rows.items():
            for row in found:
                for value in row:
                    shown = value.decode("latin-1") if isinstance(value, bytes) else str(value)
                    for secret in secrets:
                        assert secret not in shown, (table, secret[:6])
        # What is stored is a SHA-256 digest, which signs nobody in when presented.
        token_hash = hashlib.sha256(alice.token.encode()).hexdigest()
        session_hash = hashlib.sha256(session_id.encode()).hexdigest()
        stored_tokens = [value for row in rows["api_tokens"] for value in row]
        stored_sessions = [value for row in rows["browser_sessions"] for value in row]
        assert token_hash in stored_tokens
        assert session_hash in stored_sessions
        for presented in (
            {"Authorization": f"Bearer {token_hash}"},
            {"Cookie": f"quire_session={session_hash}"},
        ):
            assert (await world.client(presented).get("/api/workspaces")).status_code == 401
