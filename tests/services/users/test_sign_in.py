"""Password sign-in: one message for every failure, lockout per name and per address, and
parameters brought up to date on success."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select

from quire.core.errors import SignInLocked, SignInRefused
from quire.core.teams.lockout import DEFAULT_POLICY
from quire.db.engine import Database
from quire.db.models import Account
from quire.services.users.passwords import Passwords
from quire.services.users.sign_in import REFUSED
from tests.services.users.world import PASSWORD, World

pytestmark = pytest.mark.anyio
HOME = "198.51.100.4"


async def test_the_right_password_in_any_unicode_form_signs_in(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice", password="pa\u0301ssword-long-enough")
    identity = await world.sign_in.authenticate(
        " ALICE ", "p\u00e1ssword-long-enough", address=HOME
    )
    assert identity.username == "alice"


async def test_every_failure_says_the_same_thing(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice", role="superadmin", password=PASSWORD)
    await world.accounts.add("bob", password=PASSWORD)
    await world.accounts.add("nopass")
    await world.accounts.set_disabled("bob", True)
    attempts = [
        ("alice", "wrong password!"),
        ("nobody", PASSWORD),
        ("bob", PASSWORD),
        ("nopass", ""),
        ("", ""),
        ("alice", PASSWORD + "x" * 2000),
        ("\x00alice", PASSWORD),
    ]
    for username, password in attempts:
        with pytest.raises(SignInRefused) as caught:
            await world.sign_in.authenticate(username, password, address=f"10.0.0.{len(username)}")
        assert caught.value.message == REFUSED


async def test_five_failures_lock_the_name_even_for_the_right_password(
    database: Database,
) -> None:
    world = World(database)
    await world.accounts.add("alice", password=PASSWORD)
    for n in range(DEFAULT_POLICY.per_account):
        with pytest.raises(SignInRefused):
            await world.sign_in.authenticate("alice", f"guess {n} wrong", address=f"10.1.{n}.1")
    with pytest.raises(SignInLocked) as caught:
        await world.sign_in.authenticate("alice", PASSWORD, address=HOME)
    assert caught.value.retry_after_s == DEFAULT_POLICY.window_ms // 1000
    world.clock.advance(DEFAULT_POLICY.window_ms - 1000)
    with pytest.raises(SignInLocked):
        await world.sign_in.authenticate("Alice", PASSWORD, address=HOME)
    world.clock.advance(1000)
    assert (await world.sign_in.authenticate("alice", PASSWORD, address=HOME)).username == "alice"


async def test_names_that_do_not_exist_lock_the_same_way(database: Database) -> None:
    world = World(database)
    for n in range(DEFAULT_POLICY.per_account):
        with pytest.raises(SignInRefused):
            await world.sign_in.authenticate("ghost", f"guess {n}", address=f"10.2.{n}.1")
    with pytest.raises(SignInLocked):
        await world.sign_in.authenticate("ghost", "guess", address=HOME)


async def test_one_address_spraying_many_names_is_locked(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice", password=PASSWORD)
    for n in range(DEFAULT_POLICY.per_address):
        with pytest.raises(SignInRefused):
            await world.sign_in.authenticate(f"user{n}", PASSWORD, address=f"2001:db8::{n:x}")
    with pytest.raises(SignInLocked):
        await world.sign_in.authenticate("alice", PASSWORD, address="2001:db8::ffff")
    assert (await world.sign_in.authenticate("alice", PASSWORD, address=HOME)).username == "alice"


async def test_a_success_clears_the_names_failures(database: Database) -> None:
    world = World(database)
    await world.accounts.add("alice", password=PASSWORD)
    for _ in range(2):
        for n in range(DEFAULT_POLICY.per_account - 1):
            with pytest.raises(SignInRefused):
                await world.sign_in.authenticate("alice", f"wrong {n}", address=HOME)
        await world.sign_in.authenticate("alice", PASSWORD, address=HOME)


async def test_a_hash_with_old_parameters_is_replaced_at_sign_in(database: Database) -> None:
    old = Passwords(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    new = Passwords(PasswordHasher(time_cost=2, memory_cost=16, parallelism=1))
    await World(database, passwords=old).accounts.add("alice", password=PASSWORD)
    world = World(database, passwords=new)
    await world.sign_in.authenticate("alice", PASSWORD, address=HOME)
    async with database.session() as session:
        stored = await session.scalar(select(Account.password_hash))
    assert stored is not None and ",t=2," in stored
    await world.sign_in.authenticate("alice", PASSWORD, address=HOME)
