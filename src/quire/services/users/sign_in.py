"""Signing in with a username and password, under the lockout rules.

A failure is recorded before the password is checked (and taken back on success), so guesses
sent at once all count. Every refusal says the same thing whether the username exists, the
password is wrong or the account is disabled; a locked name or address is refused before any
password is checked, even the right one.
"""

from __future__ import annotations

from collections.abc import Callable

from quire.core.errors import InvalidArgument, SignInLocked, SignInRefused
from quire.core.teams.accounts import PASSWORD_MAX, canonical_username, normalized_password
from quire.core.teams.credentials import digest
from quire.core.teams.lockout import DEFAULT_POLICY, LockoutPolicy, address_key, lockout_ends
from quire.db import accounts as rows
from quire.db.engine import Database
from quire.services.users.identity import Identity
from quire.services.users.passwords import Passwords

REFUSED = (
    "The username or password is wrong, or the account is disabled. Check both and try "
    "again; an admin can set a new password with `quire user passwd`."
)


def _name_key(username: str) -> str:
    """The key failures of ``username`` are counted under, for any text at all."""
    try:
        return canonical_username(username)
    except InvalidArgument:
        # No account can have such a name; its digest keeps any bytes out of the database.
        return "?" + digest(username)[:40]


class SignIn:
    """Password sign-in over one database."""

    def __init__(
        self,
        db: Database,
        passwords: Passwords,
        *,
        clock: Callable[[], int],
        policy: LockoutPolicy = DEFAULT_POLICY,
    ) -> None:
        self._db = db
        self._passwords = passwords
        self._clock = clock
        self._policy = policy

    async def authenticate(self, username: str, password: str, *, address: str | None) -> Identity:
        """The account ``username`` and ``password`` sign in as.

        Raises SignInLocked (with ``retry_after_s``) while the name or the address is locked,
        and SignInRefused for any other failure.
        """
        name, where, now = _name_key(username), address_key(address), self._clock()
        async with self._db.session() as session:
            await rows.forget_login_failures(session, before_ms=now - self._policy.window_ms)
            by_name, by_address = await rows.login_failures(
                session, username=name, address=where, since_ms=now - self._policy.window_ms
            )
            ends = lockout_ends(
                self._policy, account_failures=by_name, address_failures=by_address, now_ms=now
            )
            if ends is not None:
                await session.commit()
                raise _locked(ends - now)
            await rows.add_login_failure(session, username=name, address=where, now_ms=now)
            account = await rows.account_named(session, name)
            await session.commit()
        if len(password) > PASSWORD_MAX:
            raise SignInRefused(REFUSED)
        stored = None if account is None else account.password_hash
        checked = await self._passwords.check(stored, normalized_password(password))
        if account is None or stored is None or not checked.matched or account.disabled:
            raise SignInRefused(REFUSED)
        async with self._db.session() as session:
            await rows.forget_login_failures(session, username=name)
            if checked.rehashed is not None:
                await rows.rehash_password(session, account.user_id, stored, checked.rehashed)
            await session.commit()
        return Identity(account.user_id, account.username, account.role)


def _locked(wait_ms: int) -> SignInLocked:
    seconds = max(1, -(-wait_ms // 1000))
    minutes = -(-seconds // 60)
    return SignInLocked(
        "Too many failed sign-ins for this username or from this address. Wait "
        f"{minutes} minute{'s' if minutes != 1 else ''} and try again.",
        retry_after_s=seconds,
    )
