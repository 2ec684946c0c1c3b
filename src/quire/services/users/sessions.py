"""Browser sessions: made at sign-in, checked on every request, ended one by one or all at once.

The cookie holds a random session id; the database holds only its SHA-256 digest, so a copy
of the database signs no one in. A session of a disabled or deleted account is refused.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from quire.core.teams.credentials import (
    DEFAULT_SESSION_POLICY,
    SessionPolicy,
    digest,
    session_alive,
)
from quire.db import accounts as rows
from quire.db.engine import Database
from quire.services.users.accounts import require
from quire.services.users.identity import Identity

SESSION_ID_BYTES = 32


class BrowserSessions:
    """The browser sessions of one database."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], int],
        policy: SessionPolicy = DEFAULT_SESSION_POLICY,
    ) -> None:
        self._db = db
        self._clock = clock
        self._policy = policy

    async def create(self, identity: Identity) -> str:
        """A new session for the signed-in account: the cookie's value, known only here.

        Always a new id (never one the browser brought), so a fixed session id planted before
        sign-in is worth nothing after it."""
        session_id = secrets.token_urlsafe(SESSION_ID_BYTES)
        async with self._db.session() as session:
            await rows.add_browser_session(
                session, id_hash=digest(session_id), user_id=identity.user_id, now_ms=self._clock()
            )
            await session.commit()
        return session_id

    async def verify(self, session_id: str) -> Identity | None:
        """The account of a live session, None when it is unknown, ended, idle too long, too
        old, or its account is disabled. An expired session is deleted."""
        if not session_id or len(session_id) > 128:
            return None
        key = digest(session_id)
        now = self._clock()
        async with self._db.session() as session:
            found = await rows.browser_session(session, key)
            if found is None:
                return None
            alive = session_alive(
                self._policy,
                created_at_ms=found.created_at_ms,
                last_seen_at_ms=found.last_seen_at_ms,
                now_ms=now,
            )
            if not alive:
                await rows.delete_browser_session(session, key)
                await session.commit()
                return None
            account = await rows.account_by_id(session, found.user_id)
            if account is None or account.disabled:
                return None
            if now - found.last_seen_at_ms >= self._policy.touch_ms:
                await rows.touch_browser_session(session, key, now)
                await session.commit()
        return Identity(account.user_id, account.username, account.role)

    async def sign_out(self, session_id: str) -> None:
        """End this one session (nothing when it is unknown)."""
        async with self._db.session() as session:
            await rows.delete_browser_session(session, digest(session_id))
            await session.commit()

    async def sign_out_everywhere(self, username: str) -> int:
        """End every browser session of the account; how many there were."""
        async with self._db.session() as session:
            account = await require(session, username)
            ended = await rows.delete_browser_sessions_of(session, account.user_id)
            await session.commit()
        return ended
