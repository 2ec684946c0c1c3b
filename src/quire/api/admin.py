"""The admin page's requests and answers: accounts, served workspaces, grants and groups.

Models only: the server reads and dumps them, the web UI's types are generated from them.
Every change answers the page's data afresh (``AdminOverview``).
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer, StrictBody
from quire.core.teams.accounts import Role


class AdminUser(Answer):
    """An account: its role, whether it is disabled, whether it has a password (one without
    cannot sign in), and when it was made (ms since the Unix epoch)."""

    username: str
    role: Role
    disabled: bool
    has_password: bool
    created_at: int


class AdminWorkspace(Answer):
    """A served folder: the name grants use for it, its path, and whether the asker manages
    its grants."""

    name: str
    path: str
    manageable: bool


class AdminGrant(Answer):
    """A grant to an account (``username``) or a group (``group``; the other is null) on a
    prefix of a workspace (``""``: all of it)."""

    username: str | None
    group: str | None
    workspace: str
    prefix: str
    access: Literal["read", "write"]


class AdminGroup(Answer):
    """An access group and its members' usernames."""

    name: str
    members: tuple[str, ...]


class AdminOverview(Answer):
    """What the admin page shows the asker. ``everything`` is true for a superadmin or the
    owner; false for a workspace admin, whose ``grants`` are those of the workspaces it
    manages (``manageable``) and who changes nothing else."""

    everything: bool
    users: tuple[AdminUser, ...]
    workspaces: tuple[AdminWorkspace, ...]
    grants: tuple[AdminGrant, ...]
    groups: tuple[AdminGroup, ...]


class NewUserBody(StrictBody):
    username: str
    role: Role = "collaborator"
    password: str | None = None


class RoleBody(StrictBody):
    username: str
    role: Role


class DisableBody(StrictBody):
    username: str
    disabled: bool


class UsernameBody(StrictBody):
    username: str


class PasswordResetBody(StrictBody):
    username: str
    password: str


class GrantBody(StrictBody):
    username: str | None = None
    group: str | None = None
    workspace: str
    prefix: str = ""
    access: Literal["read", "write"]


class RevokeBody(StrictBody):
    username: str | None = None
    group: str | None = None
    workspace: str
    prefix: str = ""


class GroupBody(StrictBody):
    name: str


class MemberBody(StrictBody):
    group: str
    username: str
