"""Grants and groups through the service, and `can`, which fails closed."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from quire.core.errors import AccountNotFound, InvalidArgument
from quire.db import grants as grant_rows
from quire.db.engine import Database
from quire.db.models import Account
from quire.services.users.identity import GrantInfo
from tests.services.users.world import World

pytestmark = pytest.mark.anyio


async def _user_id(database: Database, username: str) -> str:
    async with database.session() as session:
        found = await session.scalar(select(Account.user_id).where(Account.username == username))
    assert found is not None
    return found


async def test_a_grant_on_a_prefix_covers_whole_segments_below_it(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice")
    await world.grants.grant("alice", "team", "/notes/", access="read")
    alice = await _user_id(database, "alice")
    assert await world.grants.can(alice, "team", "notes/a.md", "read")
    assert not await world.grants.can(alice, "team", "notes/a.md", "write")
    assert not await world.grants.can(alice, "team", "notes-old/a.md", "read")
    assert not await world.grants.can(alice, "team", "notes/../secret.md", "read")
    assert not await world.grants.can(alice, "other", "notes/a.md", "read")
    assert await world.grants.grants_of("alice") == [GrantInfo("team", "notes", "read", None)]


async def test_granting_again_replaces_the_access_and_revoke_removes_it(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("alice")
    alice = await _user_id(database, "alice")
    await world.grants.grant("alice", "team", access="write")
    await world.grants.grant("alice", "team", "", access="read")
    assert await world.grants.grants_of("alice") == [GrantInfo("team", "", "read", None)]
    await world.grants.revoke("alice", "team")
    assert not await world.grants.can(alice, "team", "a.md", "read")
    with pytest.raises(InvalidArgument):
        await world.grants.revoke("alice", "team")
    with pytest.raises(InvalidArgument):
        await world.grants.grant("alice", "team", "../x", access="read")
    with pytest.raises(InvalidArgument):
        await world.grants.grant("alice", "team", access="admin")
    with pytest.raises(AccountNotFound):
        await world.grants.grant("nobody", "team", access="read")


async def test_a_group_grant_reaches_its_members_only_while_they_are_members(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("alice")
    await world.accounts.add("bob")
    alice, bob = await _user_id(database, "alice"), await _user_id(database, "bob")
    await world.grants.add_group("Editors")
    await world.grants.add_member("editors", "alice")
    await world.grants.grant_group("editors", "team", "docs", access="write")
    assert await world.grants.can(alice, "team", "docs/x.md", "write")
    assert not await world.grants.can(bob, "team", "docs/x.md", "read")
    assert await world.grants.grants_of("alice") == [GrantInfo("team", "docs", "write", "editors")]
    await world.grants.remove_member("editors", "alice")
    assert not await world.grants.can(alice, "team", "docs/x.md", "read")
    await world.grants.add_member("editors", "bob")
    await world.grants.revoke_group("editors", "team", "docs")
    assert not await world.grants.can(bob, "team", "docs/x.md", "read")
    with pytest.raises(InvalidArgument):
        await world.grants.add_group("editors")


async def test_can_fails_closed(database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(database)
    await world.accounts.add("boss", role="superadmin")
    await world.accounts.add("alice")
    await world.accounts.add("carol")
    root, alice = await _user_id(database, "boss"), await _user_id(database, "alice")
    await world.grants.grant("alice", "team", access="write")
    await world.grants.grant("carol", "team", access="write")
    # A role gives no access to content.
    assert not await world.grants.can(root, "team", "a.md", "read")
    assert not await world.grants.can("acct-unknown", "team", "a.md", "read")
    await world.accounts.set_disabled("alice", True)
    assert not await world.grants.can(alice, "team", "a.md", "read")
    await world.accounts.set_disabled("alice", False)
    assert await world.grants.can(alice, "team", "a.md", "read")

    async def broken(*_: object) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(grant_rows, "grants_reaching", broken)
    assert not await world.grants.can(alice, "team", "a.md", "read")
