"""The access-change counter (migration 0006) on SQLite and PostgreSQL: every change that can
alter a sign-in or an account's access moves it, in the same transaction; the bookkeeping
writes of every request (a token's last use, a session's last request, a failed sign-in) and
the rest of the database leave it alone."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db import accounts, grants, private_chats
from quire.db.access_changes import QuickCounter, access_changes
from quire.db.accounts import StoredToken
from quire.db.engine import Database
from quire.db.windows import ensure_user

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000_000
Change = Callable[[AsyncSession], Awaitable[object]]


async def _world(database: Database) -> None:
    """Alice with a token, a browser session, a group and a private chat."""
    async with database.session() as session, session.begin():
        await accounts.add_account(
            session, user_id="u-alice", username="alice", role="collaborator", now_ms=NOW
        )
        await accounts.add_token(
            session, StoredToken("tok1", "u-alice", "laptop", "h" * 64, NOW, None, None, None)
        )
        await accounts.add_browser_session(session, id_hash="s" * 64, user_id="u-alice", now_ms=NOW)
        group = await grants.add_group(session, "writers", NOW)
        await grants.add_member(session, group, "u-alice")
        await private_chats.make_private(session, "/w/chat.md", born=True, now_ms=NOW)


async def _counter(database: Database) -> int:
    async with database.session() as session:
        return await access_changes(session)


async def _group(session: AsyncSession) -> int:
    found = await grants.group_id_named(session, "writers")
    assert found is not None
    return found


async def _chat(session: AsyncSession) -> int:
    found = await private_chats.chat_id_at(session, "/w/chat.md")
    assert found is not None
    return found


async def _add_grant(session: AsyncSession) -> None:
    await grants.put_grant(
        session,
        user_id="u-alice",
        group_id=None,
        workspace="team",
        prefix="",
        access="read",
        now_ms=NOW,
    )


async def _add_chat_member(session: AsyncSession) -> None:
    await private_chats.add_member(session, await _chat(session), "u-alice", NOW)


async def _leave_group(session: AsyncSession) -> None:
    await grants.remove_member(session, await _group(session), "u-alice")


MOVES: dict[str, Change] = {
    "a new account": lambda s: accounts.add_account(
        s, user_id="u-bob", username="bob", role="admin", now_ms=NOW
    ),
    "a password set": lambda s: accounts.set_password_hash(s, "u-alice", "argon2-hash", NOW),
    "an account disabled": lambda s: accounts.set_disabled(s, "u-alice", True),
    "an account deleted": lambda s: accounts.delete_user(s, "u-alice"),
    "a token revoked": lambda s: accounts.revoke_token(s, "u-alice", "tok1", NOW),
    "a session ended": lambda s: accounts.delete_browser_session(s, "s" * 64),
    "every session ended": lambda s: accounts.delete_browser_sessions_of(s, "u-alice"),
    "a grant given": _add_grant,
    "a group left": _leave_group,
    "a chat member added": _add_chat_member,
    "a private chat moved": lambda s: private_chats.move_private_chats(s, "/w", "/v"),
    "a private chat forgotten": lambda s: private_chats.forget_private(s, "/w/chat.md"),
}

STILL: dict[str, Change] = {
    "a token used": lambda s: accounts.mark_token_used(s, "tok1", NOW + 5),
    "a session touched": lambda s: accounts.touch_browser_session(s, "s" * 64, NOW + 5),
    "a failed sign-in": lambda s: accounts.add_login_failure(
        s, username="alice", address="127.0.0.1", now_ms=NOW
    ),
    "a window's user": lambda s: ensure_user(s, "u-window", NOW),
}


@pytest.mark.parametrize(
    ("name", "moves"), [*((name, True) for name in MOVES), *((name, False) for name in STILL)]
)
async def test_a_change_to_access_moves_the_counter_and_bookkeeping_does_not(
    database: Database, name: str, moves: bool
) -> None:
    await _world(database)
    before = await _counter(database)
    async with database.session() as session, session.begin():
        await {**MOVES, **STILL}[name](session)
    assert (await _counter(database) > before) is moves


async def test_a_change_rolled_back_leaves_the_counter(database: Database) -> None:
    await _world(database)
    before = await _counter(database)
    async with database.session() as session:
        await accounts.set_disabled(session, "u-alice", True)
        await session.rollback()
    assert await _counter(database) == before


def test_the_quick_read_leaves_no_read_transaction_open(tmp_path: Path) -> None:
    """A reader that kept its snapshot would stop the WAL from being checkpointed: it grew
    without end while the server ran."""
    path = tmp_path / "quire.db"
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("CREATE TABLE access_changes (id INTEGER PRIMARY KEY, counter INTEGER)")
        writer.execute("INSERT INTO access_changes VALUES (1, 0)")
        quick = QuickCounter(str(path))
        try:
            assert quick.read() == 0
            for _ in range(50):
                writer.execute("UPDATE access_changes SET counter = counter + 1")
            assert quick.read() == 50
            busy, _, _ = writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            assert busy == 0
            assert (tmp_path / "quire.db-wal").stat().st_size == 0
        finally:
            quick.close()
    finally:
        writer.close()
