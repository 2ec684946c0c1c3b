"""The account page's requests and answers: who is signed in, the password, API tokens and
sign-out everywhere.

Models only: the server reads and dumps them, the web UI's types are generated from them.
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer, StrictBody
from quire.core.teams.accounts import Role


class AccountView(Answer):
    """Who the request signed in as. ``mode`` is the server's (``single``: one owner, no
    accounts). ``role`` is null for the owner (single mode, or the server's own token in multi
    mode); ``admin`` says whether the Admin page is open to it; ``signedInBy`` is ``browser``
    for a browser session and ``token`` for an API token."""

    mode: Literal["single", "multi"]
    username: str
    role: Role | None
    admin: bool
    signed_in_by: Literal["browser", "token"]


class PasswordBody(StrictBody):
    current_password: str
    new_password: str


class TokenBody(StrictBody):
    name: str
    expires: str | None = None


class TokenIdBody(StrictBody):
    id: str


class NoAccountBody(StrictBody):
    pass


class AccountToken(Answer):
    """An API token as its owner sees it (never its text): times in ms since the Unix epoch
    (null: never), and ``state``: ``active``, ``expired`` or ``revoked``."""

    id: str
    name: str
    created_at: int
    expires_at: int | None
    last_used_at: int | None
    revoked_at: int | None
    state: Literal["active", "expired", "revoked"]


class AccountTokens(Answer):
    """The account's API tokens, oldest first."""

    tokens: tuple[AccountToken, ...]


class NewAccountToken(Answer):
    """A token just made: ``token`` is its text, shown this once and kept nowhere."""

    token: str
    info: AccountToken


class SignedOutEverywhere(Answer):
    """How many browser sessions ended (this one included)."""

    ended: int
