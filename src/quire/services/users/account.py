"""The account page's rules and actions: one's own password, API tokens and browser sessions.

Every signed-in account may read its own page. Changes need the browser's session, except
that a superadmin's API token may revoke tokens and sign out everywhere (for scripts). Two
changes need the browser's session whatever the role: a new password (the current one is
checked, under the sign-in lockout) and a new API token, so an agent holding a token can
neither mint more tokens nor lock its person out. The server's own token (the owner) has no
account, so it has nothing to change here.
"""

from __future__ import annotations

from collections.abc import Callable

from quire.core.errors import AccessDenied, BrowserLoginNeeded, InvalidArgument, SignInRefused
from quire.core.teams.accounts import check_new_password
from quire.core.teams.credentials import token_expiry
from quire.services.users.admin import Actor
from quire.services.users.identity import Identity, IssuedToken, TokenInfo
from quire.services.users.team import Team

OWNER_HAS_NO_ACCOUNT = (
    "The server's own token has no account, so it has no password, tokens or sessions to "
    "change here. Manage accounts with `quire user` commands or on the Admin page."
)


def browser_only(what: str) -> BrowserLoginNeeded:
    """The refusal of a change only the browser's session may make."""
    return BrowserLoginNeeded(
        f"{what} needs a browser signed in to Quire: an API token cannot do it, so an agent "
        "holding one can neither make more tokens nor change the password. Open the Account "
        "page in the browser."
    )


class OwnAccount:
    """The account page's actions of one request's actor."""

    def __init__(
        self, team: Team, actor: Actor, *, session_id: str | None, clock: Callable[[], int]
    ) -> None:
        self._team = team
        self.actor = actor
        self._session_id = session_id if actor.by_browser else None
        self._clock = clock

    async def tokens(self) -> list[TokenInfo]:
        """The account's API tokens, revoked and expired ones included, oldest first."""
        return await self._team.tokens.list(self._identity().username)

    async def create_token(self, name: str, expires: str | None) -> IssuedToken:
        """A new API token (shown once). ``expires``: a duration (``30d``) or a date, or None
        for a token that does not expire. Browser session only."""
        identity = self._identity()
        if not self.actor.by_browser:
            raise browser_only("Making an API token")
        expires_at = None if expires is None else token_expiry(expires, now_ms=self._clock())
        return await self._team.tokens.issue(identity.username, name=name, expires_at_ms=expires_at)

    async def revoke_token(self, token_id: str) -> None:
        """Revoke one of the account's tokens."""
        identity = self._require_change("Revoking an API token")
        await self._team.tokens.revoke(identity.username, token_id)

    async def change_password(self, current: str, new: str, *, address: str | None) -> None:
        """Set a new password after checking the current one (counted as a sign-in attempt,
        under the lockout rules). Every other browser session ends; this one stays."""
        identity = self._identity()
        if not self.actor.by_browser or self._session_id is None:
            raise browser_only("Changing the password")
        check_new_password(new, username=identity.username)
        try:
            await self._team.sign_in.authenticate(identity.username, current, address=address)
        except SignInRefused:
            raise InvalidArgument(
                "The current password is wrong, so the password was not changed. Type it "
                "again; after 5 failures within 15 minutes the account is locked for a while.",
                argument="current_password",
            ) from None
        await self._team.accounts.set_password(
            identity.username, new, keep_session=self._session_id
        )

    async def sign_out_everywhere(self) -> int:
        """End every browser session of the account, this one included; how many ended."""
        identity = self._require_change("Signing out everywhere")
        return await self._team.sessions.sign_out_everywhere(identity.username)

    def _identity(self) -> Identity:
        if self.actor.identity is None:
            raise AccessDenied(OWNER_HAS_NO_ACCOUNT)
        return self.actor.identity

    def _require_change(self, what: str) -> Identity:
        identity = self._identity()
        if not self.actor.by_browser and not self.actor.may_change_by_token:
            raise BrowserLoginNeeded(
                f"{what} needs a browser signed in to Quire, or a superadmin's API token. "
                "Open the Account page in the browser."
            )
        return identity
