"""Managing accounts: add, list, set a password, disable, enable, delete.

Every change goes through here (the CLI and the admin page). It never returns a
password hash, and it never leaves the server without an enabled superadmin once one exists.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.errors import AccountNotFound, InvalidArgument
from quire.core.teams.accounts import Role, canonical_username, check_new_password
from quire.core.teams.credentials import digest
from quire.db import accounts as rows
from quire.db import roster
from quire.db.accounts import StoredAccount
from quire.db.engine import Database
from quire.db.user_state import forget_user_state
from quire.services.users.identity import AccountInfo
from quire.services.users.passwords import Passwords


def new_user_id() -> str:
    """A fresh, random user id: never the username, so a re-created name inherits nothing."""
    return f"acct-{secrets.token_hex(10)}"


def info(account: StoredAccount) -> AccountInfo:
    """The account's public view."""
    return AccountInfo(
        account.username,
        account.role,
        account.disabled,
        account.password_hash is not None,
        account.created_at_ms,
    )


async def require(session: AsyncSession, username: str) -> StoredAccount:
    """The account named ``username`` (any case), or AccountNotFound."""
    try:
        name = canonical_username(username)
    except InvalidArgument:
        name = None
    account = None if name is None else await rows.account_named(session, name)
    if account is None:
        raise AccountNotFound(
            f"No account is named {username!r}. `quire user list` shows the accounts there are."
        )
    return account


class Accounts:
    """The accounts of one database."""

    def __init__(self, db: Database, passwords: Passwords, *, clock: Callable[[], int]) -> None:
        self._db = db
        self._passwords = passwords
        self._clock = clock

    async def add(
        self, username: str, *, role: Role = "collaborator", password: str | None = None
    ) -> AccountInfo:
        """Create an account (with ``password`` when given, else none: it cannot sign in until
        one is set). InvalidArgument when the name or password breaks a rule or is taken."""
        name = canonical_username(username)
        hashed = None
        if password is not None:
            hashed = await self._passwords.hash(check_new_password(password, username=name))
        now = self._clock()
        async with self._db.session() as session:
            if await rows.account_named(session, name) is not None:
                raise _taken(name)
            user_id = new_user_id()
            try:
                await rows.add_account(
                    session, user_id=user_id, username=name, role=role, now_ms=now
                )
                if hashed is not None:
                    await rows.set_password_hash(session, user_id, hashed, now)
                await session.commit()
            except IntegrityError:
                raise _taken(name) from None
            added = await rows.account_by_id(session, user_id)
        assert added is not None
        return info(added)

    async def list(self) -> list[AccountInfo]:
        """Every account, by username."""
        async with self._db.session() as session:
            return [info(account) for account in await rows.all_accounts(session)]

    async def get(self, username: str) -> AccountInfo:
        """One account, or AccountNotFound."""
        async with self._db.session() as session:
            return info(await require(session, username))

    async def set_password(
        self, username: str, password: str, *, keep_session: str | None = None
    ) -> None:
        """Set the account's password and sign it out of every browser but the session
        ``keep_session`` (the browser that changed it), if given. Its API tokens stay:
        revoke them apart."""
        async with self._db.session() as session:
            account = await require(session, username)
        hashed = await self._passwords.hash(check_new_password(password, username=account.username))
        async with self._db.session() as session:
            await rows.set_password_hash(session, account.user_id, hashed, self._clock())
            if keep_session is None:
                await rows.delete_browser_sessions_of(session, account.user_id)
            else:
                await roster.delete_other_browser_sessions(
                    session, account.user_id, digest(keep_session)
                )
            await session.commit()

    async def set_role(self, username: str, role: Role) -> AccountInfo:
        """Give the account another role. The last enabled superadmin keeps its role."""
        async with self._db.session() as session:
            account = await require(session, username)
            if role != "superadmin" and not account.disabled:
                await _keep_a_superadmin(session, account, "given another role")
            await roster.set_role(session, account.user_id, role)
            await session.commit()
            changed = await rows.account_by_id(session, account.user_id)
        assert changed is not None
        return info(changed)

    async def set_disabled(self, username: str, disabled: bool) -> AccountInfo:
        """Disable (every session ended, every token refused from then on) or enable the
        account. The last enabled superadmin cannot be disabled."""
        async with self._db.session() as session:
            account = await require(session, username)
            if disabled and not account.disabled:
                await _keep_a_superadmin(session, account, "disabled")
            await rows.set_disabled(session, account.user_id, disabled)
            if disabled:
                await rows.delete_browser_sessions_of(session, account.user_id)
            await session.commit()
            changed = await rows.account_by_id(session, account.user_id)
        assert changed is not None
        return info(changed)

    async def delete(self, username: str) -> None:
        """Delete the account with its tokens, sessions, memberships and grants, and what it
        kept under its name (window, recents, reviews, approvals, chat read positions,
        notices), so an account made later under the same name starts with none of it. The
        last enabled superadmin cannot be deleted."""
        async with self._db.session() as session:
            account = await require(session, username)
            if not account.disabled:
                await _keep_a_superadmin(session, account, "deleted")
            await rows.delete_user(session, account.user_id)
            await forget_user_state(session, account.username)
            await session.commit()


async def _keep_a_superadmin(session: AsyncSession, account: StoredAccount, what: str) -> None:
    if account.role == "superadmin" and await rows.count_active_superadmins(session) <= 1:
        raise InvalidArgument(
            f"{account.username!r} is the last enabled superadmin, so it cannot be {what}: "
            "add another superadmin first (quire user add NAME --role superadmin).",
            argument="username",
        )


def _taken(name: str) -> InvalidArgument:
    return InvalidArgument(
        f"An account named {name!r} already exists. Pick another username, or set its "
        "password with `quire user passwd`.",
        argument="username",
    )
