"""Queries over accounts and their credentials: API tokens, browser sessions, failed sign-ins.

Plain functions over a session the caller opened and commits; no rules (which password is good
enough, when a session or a lock ends: services and core decide) and never a token or session
id, only their digests.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.teams.accounts import Role, check_role
from quire.db.models import Account, ApiToken, BrowserSession, LoginFailure, User


@dataclass(frozen=True)
class StoredAccount:
    """An account as stored (the password hash included: never hand it past the services)."""

    user_id: str
    username: str
    password_hash: str | None
    role: Role
    disabled: bool
    created_at_ms: int


@dataclass(frozen=True)
class StoredToken:
    """An API token's row: its id, owner, name, digest and times."""

    id: str
    user_id: str
    name: str
    token_hash: str
    created_at_ms: int
    expires_at_ms: int | None
    last_used_at_ms: int | None
    revoked_at_ms: int | None


def _account(row: Account) -> StoredAccount:
    return StoredAccount(
        row.user_id,
        row.username,
        row.password_hash,
        check_role(row.role),
        row.disabled,
        row.created_at_ms,
    )


def _token(row: ApiToken) -> StoredToken:
    return StoredToken(
        row.id,
        row.user_id,
        row.name,
        row.token_hash,
        row.created_at_ms,
        row.expires_at_ms,
        row.last_used_at_ms,
        row.revoked_at_ms,
    )


async def add_account(
    session: AsyncSession, *, user_id: str, username: str, role: Role, now_ms: int
) -> None:
    """Insert the user row and its account (no password yet); IntegrityError when the
    username is taken."""
    session.add(User(id=user_id, name=username, created_at_ms=now_ms))
    await session.flush()
    session.add(
        Account(
            user_id=user_id,
            username=username,
            password_hash=None,
            role=role,
            disabled=False,
            created_at_ms=now_ms,
            password_changed_at_ms=None,
        )
    )
    await session.flush()


async def account_named(session: AsyncSession, username: str) -> StoredAccount | None:
    """The account with that (canonical) username, None when there is none."""
    row = await session.scalar(select(Account).where(Account.username == username))
    return None if row is None else _account(row)


async def account_by_id(session: AsyncSession, user_id: str) -> StoredAccount | None:
    """The account of that user id, None when there is none."""
    row = await session.get(Account, user_id)
    return None if row is None else _account(row)


async def all_accounts(session: AsyncSession) -> list[StoredAccount]:
    """Every account, by username."""
    rows = await session.scalars(select(Account).order_by(Account.username))
    return [_account(row) for row in rows]


async def count_active_superadmins(session: AsyncSession) -> int:
    """How many superadmin accounts are not disabled."""
    found = await session.scalar(
        select(func.count())
        .select_from(Account)
        .where(Account.role == "superadmin", Account.disabled.is_(False))
    )
    return int(found or 0)


async def set_password_hash(session: AsyncSession, user_id: str, hashed: str, now_ms: int) -> None:
    """Store a new password hash for the account."""
    await session.execute(
        update(Account)
        .where(Account.user_id == user_id)
        .values(password_hash=hashed, password_changed_at_ms=now_ms)
    )


async def rehash_password(session: AsyncSession, user_id: str, old: str, new: str) -> None:
    """Replace the hash ``old`` by ``new`` (same password, newer parameters), unless the
    password changed meanwhile."""
    await session.execute(
        update(Account)
        .where(Account.user_id == user_id, Account.password_hash == old)
        .values(password_hash=new)
    )


async def set_disabled(session: AsyncSession, user_id: str, disabled: bool) -> None:
    """Disable or enable the account."""
    await session.execute(
        update(Account).where(Account.user_id == user_id).values(disabled=disabled)
    )


async def delete_user(session: AsyncSession, user_id: str) -> None:
    """Delete the user row; the account, tokens, sessions, memberships and grants go with it."""
    await session.execute(delete(User).where(User.id == user_id))


async def add_token(session: AsyncSession, token: StoredToken) -> None:
    """Insert a token's row."""
    session.add(
        ApiToken(
            id=token.id,
            user_id=token.user_id,
            name=token.name,
            token_hash=token.token_hash,
            created_at_ms=token.created_at_ms,
            expires_at_ms=token.expires_at_ms,
            last_used_at_ms=None,
            revoked_at_ms=None,
        )
    )
    await session.flush()


async def token_by_id(session: AsyncSession, token_id: str) -> StoredToken | None:
    """The token with that id, None when there is none."""
    row = await session.get(ApiToken, token_id)
    return None if row is None else _token(row)


async def tokens_of(session: AsyncSession, user_id: str) -> list[StoredToken]:
    """The account's tokens, oldest first."""
    rows = await session.scalars(
        select(ApiToken)
        .where(ApiToken.user_id == user_id)
        .order_by(ApiToken.created_at_ms, ApiToken.id)
    )
    return [_token(row) for row in rows]


async def mark_token_used(session: AsyncSession, token_id: str, now_ms: int) -> None:
    """Record the token's latest use."""
    await session.execute(
        update(ApiToken).where(ApiToken.id == token_id).values(last_used_at_ms=now_ms)
    )


async def revoke_token(session: AsyncSession, user_id: str, token_id: str, now_ms: int) -> bool:
    """Revoke the account's token; False when it has no such token not yet revoked."""
    done = await session.execute(
        update(ApiToken)
        .where(
            ApiToken.id == token_id,
            ApiToken.user_id == user_id,
            ApiToken.revoked_at_ms.is_(None),
        )
        .values(revoked_at_ms=now_ms)
    )
    return bool(getattr(done, "rowcount", 0))


async def add_browser_session(
    session: AsyncSession, *, id_hash: str, user_id: str, now_ms: int
) -> None:
    """Insert a browser session's row."""
    session.add(
        BrowserSession(
            id_hash=id_hash, user_id=user_id, created_at_ms=now_ms, last_seen_at_ms=now_ms
        )
    )
    await session.flush()


async def browser_session(session: AsyncSession, id_hash: str) -> BrowserSession | None:
    """The session row with that digest, None when there is none."""
    return await session.get(BrowserSession, id_hash)


async def touch_browser_session(session: AsyncSession, id_hash: str, now_ms: int) -> None:
    """Record that the session was used now."""
    await session.execute(
        update(BrowserSession)
        .where(BrowserSession.id_hash == id_hash)
        .values(last_seen_at_ms=now_ms)
    )


async def delete_browser_session(session: AsyncSession, id_hash: str) -> None:
    """End one browser session."""
    await session.execute(delete(BrowserSession).where(BrowserSession.id_hash == id_hash))


async def delete_browser_sessions_of(session: AsyncSession, user_id: str) -> int:
    """End every browser session of the account; how many there were."""
    done = await session.execute(delete(BrowserSession).where(BrowserSession.user_id == user_id))
    return int(getattr(done, "rowcount", 0) or 0)


async def add_login_failure(
    session: AsyncSession, *, username: str, address: str, now_ms: int
) -> None:
    """Record a failed sign-in."""
    session.add(LoginFailure(username=username, address=address, at_ms=now_ms))
    await session.flush()


async def login_failures(
    session: AsyncSession, *, username: str, address: str, since_ms: int
) -> tuple[list[int], list[int]]:
    """The times of failed sign-ins after ``since_ms``: for the username, and from the address."""
    by_name = await session.scalars(
        select(LoginFailure.at_ms).where(
            LoginFailure.username == username, LoginFailure.at_ms > since_ms
        )
    )
    by_address = await session.scalars(
        select(LoginFailure.at_ms).where(
            LoginFailure.address == address, LoginFailure.at_ms > since_ms
        )
    )
    return list(by_name), list(by_address)


async def forget_login_failures(
    session: AsyncSession, *, username: str | None = None, before_ms: int | None = None
) -> None:
    """Delete the failures of a username (after it signs in), or those older than ``before_ms``."""
    query = delete(LoginFailure)
    if username is not None:
        query = query.where(LoginFailure.username == username)
    if before_ms is not None:
        query = query.where(LoginFailure.at_ms < before_ms)
    await session.execute(query)
