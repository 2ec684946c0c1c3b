"""Accounts: add, list, passwords hashed with argon2id, disable and delete, the last superadmin."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text

from quire.core.errors import AccountNotFound, InvalidArgument
from quire.db.engine import Database
from quire.db.models import Account, Grant, User
from quire.services.users.passwords import (
    MEMORY_COST_KIB,
    PARALLELISM,
    TIME_COST,
    Passwords,
)
from tests.services.users.world import PASSWORD, World

pytestmark = pytest.mark.anyio


async def test_an_added_account_is_listed_without_its_hash(database: Database) -> None:
    world = World(database)
    added = await world.accounts.add("Alice", role="superadmin", password=PASSWORD)
    await world.accounts.add("bob")
    assert added.username == "alice"
    assert [(a.username, a.role, a.has_password) for a in await world.accounts.list()] == [
        ("alice", "superadmin", True),
        ("bob", "collaborator", False),
    ]
    async with database.session() as session:
        stored = (await session.scalars(select(Account.password_hash))).all()
    assert any(h and h.startswith("$argon2id$") for h in stored)
    assert all(PASSWORD not in (h or "") for h in stored)


async def test_the_user_id_is_random_so_a_recreated_name_inherits_nothing(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("carol")
    await world.grants.grant("carol", "team", access="write")
    async with database.session() as session:
        first = await session.scalar(select(Account.user_id))
    assert first is not None and "carol" not in first
    await world.accounts.delete("carol")
    await world.accounts.add("carol")
    async with database.session() as session:
        second = await session.scalar(select(Account.user_id))
        grants = (await session.scalars(select(Grant))).all()
    assert second != first
    assert grants == []
    assert await world.grants.grants_of("carol") == []


async def test_a_taken_or_bad_username_and_a_weak_password_are_refused(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("dave")
    for name in ("dave", "DAVE", "owner", "d@ve"):
        with pytest.raises(InvalidArgument):
            await world.accounts.add(name)
    with pytest.raises(InvalidArgument, match="at least 12"):
        await world.accounts.add("erin", password="short")
    with pytest.raises(InvalidArgument):
        await world.accounts.set_password("dave", "dave-is-my-password")
    with pytest.raises(AccountNotFound):
        await world.accounts.set_password("nobody", PASSWORD)


async def test_deleting_an_account_deletes_its_user_row_and_everything_of_it(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("frank", password=PASSWORD)
    await world.tokens.issue("frank")
    identity = await world.sign_in.authenticate("frank", PASSWORD, address="127.0.0.1")
    await world.sessions.create(identity)
    await world.grants.grant("frank", "team", "notes", access="read")
    await world.accounts.delete("frank")
    async with database.session() as session:
        for table in ("users", "accounts", "api_tokens", "browser_sessions", "grants"):
            count = await session.scalar(text(f"SELECT count(*) FROM {table}"))
            assert count == 0, table
    with pytest.raises(AccountNotFound):
        await world.accounts.get("frank")


async def test_the_last_enabled_superadmin_cannot_be_disabled_or_deleted(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("root1", role="superadmin")
    for change in (world.accounts.delete("root1"), world.accounts.set_disabled("root1", True)):
        with pytest.raises(InvalidArgument, match="last enabled superadmin"):
            await change
    await world.accounts.add("root2", role="superadmin")
    assert (await world.accounts.set_disabled("root1", True)).disabled
    with pytest.raises(InvalidArgument, match="last enabled superadmin"):
        await world.accounts.delete("root2")
    await world.accounts.delete("root1")
    async with database.session() as session:
        assert (await session.scalars(select(User.name))).all() == ["root2"]


async def test_the_product_hashes_with_the_documented_argon2id_parameters() -> None:
    hashed = await Passwords().hash(PASSWORD)
    assert hashed.startswith(f"$argon2id$v=19$m={MEMORY_COST_KIB},t={TIME_COST},p={PARALLELISM}$")
    assert (MEMORY_COST_KIB, TIME_COST, PARALLELISM) == (65536, 3, 4)
    checked = await Passwords().check(hashed, PASSWORD)
    assert checked.matched and checked.rehashed is None
    assert not (await Passwords().check(hashed, PASSWORD + "!")).matched
    assert not (await Passwords().check("not a hash", PASSWORD)).matched
    assert not (await Passwords().check(None, PASSWORD)).matched
