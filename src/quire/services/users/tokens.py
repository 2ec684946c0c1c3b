"""API tokens: issued once, kept as SHA-256 digests, listed with their last use, revoked.

A token is checked by its id (not secret) and then by a constant-time comparison of digests;
an expired or revoked token, or one of a disabled account, is refused like an unknown one.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable

from quire.core.errors import InvalidArgument
from quire.core.teams.accounts import check_token_name
from quire.core.teams.credentials import digest, token_id_of, token_text
from quire.db import accounts as rows
from quire.db.accounts import StoredToken
from quire.db.engine import Database
from quire.services.users.accounts import require
from quire.services.users.identity import Identity, IssuedToken, TokenInfo

TOUCH_MS = 60_000
"""A token's last use is written at most once a minute, so a busy agent does not write on
every request."""
_UNKNOWN = digest("qt_000000000000_" + "A" * 43)


def _info(token: StoredToken) -> TokenInfo:
    return TokenInfo(
        token.id,
        token.name,
        token.created_at_ms,
        token.expires_at_ms,
        token.last_used_at_ms,
        token.revoked_at_ms,
    )


class Tokens:
    """The API tokens of one database."""

    def __init__(self, db: Database, *, clock: Callable[[], int]) -> None:
        self._db = db
        self._clock = clock

    async def issue(
        self, username: str, *, name: str = "token", expires_at_ms: int | None = None
    ) -> IssuedToken:
        """A new token for the account; the only time its text is known."""
        label = check_token_name(name)
        now = self._clock()
        if expires_at_ms is not None and expires_at_ms <= now:
            raise InvalidArgument("The token would expire before it is made.", argument="expires")
        token_id = secrets.token_hex(6)
        text = token_text(token_id, secrets.token_urlsafe(32))
        async with self._db.session() as session:
            account = await require(session, username)
            stored = StoredToken(
                token_id, account.user_id, label, digest(text), now, expires_at_ms, None, None
            )
            await rows.add_token(session, stored)
            await session.commit()
        return IssuedToken(text, _info(stored))

    async def list(self, username: str) -> list[TokenInfo]:
        """The account's tokens, revoked and expired ones included, oldest first."""
        async with self._db.session() as session:
            account = await require(session, username)
            return [_info(token) for token in await rows.tokens_of(session, account.user_id)]

    async def revoke(self, username: str, token_id: str) -> None:
        """Revoke one of the account's tokens; InvalidArgument when it has no such live token."""
        async with self._db.session() as session:
            account = await require(session, username)
            if not await rows.revoke_token(session, account.user_id, token_id, self._clock()):
                raise InvalidArgument(
                    f"{account.username!r} has no token {token_id!r} that is not revoked "
                    "already. `quire user tokens` lists them.",
                    argument="token",
                )
            await session.commit()

    async def verify(self, token: str) -> Identity | None:
        """The account a token signs in as, None when it is unknown, malformed, expired,
        revoked, or its account is disabled."""
        token_id = token_id_of(token)
        presented = digest(token)
        now = self._clock()
        async with self._db.session() as session:
            stored = None if token_id is None else await rows.token_by_id(session, token_id)
            expected = _UNKNOWN if stored is None else stored.token_hash
            if not hmac.compare_digest(presented, expected) or stored is None:
                return None
            if stored.revoked_at_ms is not None:
                return None
            if stored.expires_at_ms is not None and stored.expires_at_ms <= now:
                return None
            account = await rows.account_by_id(session, stored.user_id)
            if account is None or account.disabled:
                return None
            if stored.last_used_at_ms is None or now - stored.last_used_at_ms >= TOUCH_MS:
                await rows.mark_token_used(session, stored.id, now)
                await session.commit()
        return Identity(account.user_id, account.username, account.role)
