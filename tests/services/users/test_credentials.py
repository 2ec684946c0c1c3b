"""API tokens and browser sessions: shown once, stored as digests, refused once revoked,
expired, idle or of a disabled account; sign-out everywhere."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from quire.core.errors import InvalidArgument
from quire.core.teams.credentials import DEFAULT_SESSION_POLICY, digest
from quire.db.engine import Database
from quire.db.models import ApiToken, BrowserSession
from tests.services.users.world import PASSWORD, World

pytestmark = pytest.mark.anyio
DAY = 86_400_000


async def test_a_token_is_shown_once_and_only_its_digest_is_stored(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice")
    issued = await world.tokens.issue("alice", name="ci-bot")
    assert issued.token.startswith("qt_")
    async with database.session() as session:
        rows = (await session.scalars(select(ApiToken))).all()
    assert [(row.name, row.token_hash) for row in rows] == [("ci-bot", digest(issued.token))]
    assert all(issued.token not in str(vars(row)) for row in rows)
    identity = await world.tokens.verify(issued.token)
    assert identity is not None and identity.username == "alice"
    [listed] = await world.tokens.list("alice")
    assert listed.last_used_at_ms == world.clock.now
    assert listed.name == "ci-bot"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),
        lambda t: t.upper(),
        lambda t: t + " ",
        lambda t: " " + t,
        lambda t: "qt_000000000000_" + t.split("_", 2)[2],
        lambda t: t.split("_", 2)[0] + "_" + t.split("_", 2)[1],
        lambda t: "",
        lambda t: "Bearer " + t,
    ],
)
async def test_anything_but_the_exact_token_is_refused(database: Database, mangle: object) -> None:
    world = World(database)
    await world.accounts.add("alice")
    issued = await world.tokens.issue("alice")
    assert callable(mangle)
    assert await world.tokens.verify(mangle(issued.token)) is None


async def test_a_revoked_or_expired_token_or_one_of_a_disabled_account_is_refused(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("alice")
    await world.accounts.add("bob")
    revoked = await world.tokens.issue("alice", name="old")
    expiring = await world.tokens.issue("alice", expires_at_ms=world.clock.now + DAY)
    bobs = await world.tokens.issue("bob")
    await world.tokens.revoke("alice", revoked.info.id)
    assert await world.tokens.verify(revoked.token) is None
    with pytest.raises(InvalidArgument):
        await world.tokens.revoke("alice", revoked.info.id)
    with pytest.raises(InvalidArgument):
        await world.tokens.revoke("alice", bobs.info.id)
    assert await world.tokens.verify(expiring.token) is not None
    world.clock.advance(DAY)
    assert await world.tokens.verify(expiring.token) is None
    await world.accounts.set_disabled("bob", True)
    assert await world.tokens.verify(bobs.token) is None
    await world.accounts.set_disabled("bob", False)
    assert await world.tokens.verify(bobs.token) is not None


async def test_a_session_is_a_fresh_random_id_stored_as_a_digest(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice", password=PASSWORD)
    identity = await world.sign_in.authenticate("alice", PASSWORD, address=None)
    first = await world.sessions.create(identity)
    second = await world.sessions.create(identity)
    assert first != second
    async with database.session() as session:
        keys = set((await session.scalars(select(BrowserSession.id_hash))).all())
    assert keys == {digest(first), digest(second)}
    assert await world.sessions.verify(first) == identity
    assert await world.sessions.verify(digest(first)) is None
    await world.sessions.sign_out(first)
    assert await world.sessions.verify(first) is None
    assert await world.sessions.verify(second) == identity


async def test_sessions_end_when_idle_too_old_disabled_or_signed_out_everywhere(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("alice", role="superadmin", password=PASSWORD)
    await world.accounts.add("bob", password=PASSWORD)
    alice = await world.sign_in.authenticate("alice", PASSWORD, address=None)
    bob = await world.sign_in.authenticate("bob", PASSWORD, address=None)
    idle = await world.sessions.create(alice)
    world.clock.advance(DEFAULT_SESSION_POLICY.idle_ms)
    assert await world.sessions.verify(idle) is None
    kept = await world.sessions.create(alice)
    for _ in range(4):
        world.clock.advance(DEFAULT_SESSION_POLICY.idle_ms - 1000)
        assert await world.sessions.verify(kept) == alice
    world.clock.advance(DEFAULT_SESSION_POLICY.idle_ms - 1000)
    assert await world.sessions.verify(kept) is None  # past the 30-day lifetime
    phone, laptop = await world.sessions.create(alice), await world.sessions.create(alice)
    bobs = await world.sessions.create(bob)
    assert await world.sessions.sign_out_everywhere("alice") == 2
    assert await world.sessions.verify(phone) is None
    assert await world.sessions.verify(laptop) is None
    assert await world.sessions.verify(bobs) == bob
    await world.accounts.set_disabled("bob", True)
    assert await world.sessions.verify(bobs) is None


async def test_a_new_password_signs_the_account_out_everywhere(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice", password=PASSWORD)
    session_id = await world.sessions.create(
        await world.sign_in.authenticate("alice", PASSWORD, address=None)
    )
    token = await world.tokens.issue("alice")
    await world.accounts.set_password("alice", "a brand new passphrase")
    assert await world.sessions.verify(session_id) is None
    assert await world.tokens.verify(token.token) is not None
