"""What the users services hand out: who an account is, and views of accounts and tokens that
hold no secret (no password hash, no token digest)."""

from __future__ import annotations

from dataclasses import dataclass

from quire.core.teams.accounts import Role


@dataclass(frozen=True)
class Identity:
    """A signed-in account: the user id every per-user row is keyed by, and its username."""

    user_id: str
    username: str
    role: Role


@dataclass(frozen=True)
class AccountInfo:
    """An account as an admin sees it."""

    username: str
    role: Role
    disabled: bool
    has_password: bool
    created_at_ms: int


@dataclass(frozen=True)
class TokenInfo:
    """An API token as its owner sees it: never the token itself."""

    id: str
    name: str
    created_at_ms: int
    expires_at_ms: int | None
    last_used_at_ms: int | None
    revoked_at_ms: int | None


@dataclass(frozen=True)
class IssuedToken:
    """A new token: ``token`` is shown once and stored nowhere."""

    token: str
    info: TokenInfo


@dataclass(frozen=True)
class GrantInfo:
    """A grant that reaches an account: its own (group None) or through a group."""

    workspace: str
    prefix: str
    access: str
    group: str | None


@dataclass(frozen=True)
class TeamGrant:
    """A grant as the admin page lists it: to an account (``username``) or to a group."""

    username: str | None
    group: str | None
    workspace: str
    prefix: str
    access: str


@dataclass(frozen=True)
class GroupInfo:
    """An access group and its members' usernames, sorted."""

    name: str
    members: tuple[str, ...]
