"""The admin page's rules and actions: who may manage accounts, groups and grants, and how.

Every admin route calls one method of ``Admin``; each checks who asks before it changes
anything, so the rules hold whatever client sends the request (never only in the UI):

- A superadmin, and the server's own token (the owner), manage everything: accounts, roles,
  passwords, groups and the grants of every workspace.
- A workspace admin (role ``admin``) manages grants, and nothing else, on the served
  workspaces where it holds a whole-workspace ``write`` grant (its own or a group's).
- A collaborator gets AccessDenied (403) for every admin action, reads included.
- A change needs the browser's session, or an API token of a superadmin (for scripts) or of
  the owner: a workspace admin's token may read the page's data but changes nothing.
- Nobody changes their own account here (role, disable, delete, password): the account page
  changes one's own password, and another superadmin the rest.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import AccessDenied, BrowserLoginNeeded, InvalidArgument
from quire.core.teams.accounts import Role, canonical_username, check_role
from quire.core.teams.grants import Grant, check_access, check_workspace
from quire.services.users.access import Access, GrantedAccess
from quire.services.users.identity import AccountInfo, GroupInfo, Identity, TeamGrant
from quire.services.users.team import Team

NOT_AN_ADMIN = (
    "Access denied: the admin page is for superadmins and workspace admins, and your "
    "account is neither. Ask a superadmin if you need to manage accounts or grants."
)
TOKEN_CHANGES = (
    "This change needs a browser signed in to Quire, or an API token of a superadmin: a "
    "workspace admin's token may read the admin page's data but not change it. Make the "
    "change on the Admin page in the browser."
)


@dataclass(frozen=True)
class Actor:
    """Who asks: an account (``identity``) or the server's owner (``identity`` None), whether
    the browser's session signed the request in (not a token), and the grants that reach it."""

    identity: Identity | None
    by_browser: bool
    grants: tuple[Grant, ...] = ()

    @property
    def name(self) -> str:
        """The username, or ``owner`` for the server's own token."""
        return "owner" if self.identity is None else self.identity.username

    @property
    def role(self) -> Role | None:
        """The account's role; None for the owner."""
        return None if self.identity is None else self.identity.role

    @property
    def manages_everything(self) -> bool:
        """The owner and superadmins manage accounts, groups and every workspace's grants."""
        return self.identity is None or self.identity.role == "superadmin"

    @property
    def may_change_by_token(self) -> bool:
        """Whether a change sent with an API token is taken (the owner's, a superadmin's)."""
        return self.manages_everything


def actor_of(access: Access, *, by_browser: bool) -> Actor:
    """The actor of a request that runs with ``access`` (an account's, or the owner's)."""
    if isinstance(access, GrantedAccess):
        return Actor(access.account, by_browser, access.grants)
    return Actor(None, by_browser)


def administered(actor: Actor, served: Sequence[str]) -> tuple[str, ...]:
    """The served workspaces whose grants ``actor`` manages: all of them for a superadmin or
    the owner; for a workspace admin, those it may write as a whole; none for anyone else."""
    if actor.manages_everything:
        return tuple(served)
    if actor.role != "admin":
        return ()
    whole = {
        _nfc(grant.workspace)
        for grant in actor.grants
        if grant.prefix == () and grant.access == "write"
    }
    return tuple(name for name in served if _nfc(name) in whole)


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


@dataclass(frozen=True)
class ServedWorkspace:
    """A served folder, the name grants use for it, and whether the actor manages its grants."""

    name: str
    path: str
    manageable: bool


@dataclass(frozen=True)
class Overview:
    """What the admin page shows the actor: accounts, workspaces, the grants it manages and
    the groups. ``everything`` is False for a workspace admin (grants only)."""

    everything: bool
    users: list[AccountInfo]
    workspaces: list[ServedWorkspace]
    grants: list[TeamGrant]
    groups: list[GroupInfo]


@dataclass(frozen=True)
class Subject:
    """Who a grant is for: exactly one of an account and a group."""

    username: str | None
    group: str | None

    def __post_init__(self) -> None:
        if (self.username is None) == (self.group is None):
            raise InvalidArgument(
                "A grant is for one account or one group: give either username or group.",
                argument="username",
            )


class Admin:
    """The admin actions of one request's actor over the team and the served folders."""

    def __init__(self, team: Team, folders: Sequence[Path], actor: Actor) -> None:
        self._team = team
        self._folders = tuple(folders)
        self._served = tuple(folder.name for folder in folders)
        self.actor = actor

    async def overview(self) -> Overview:
        """The page's data, limited to what the actor manages. AccessDenied for a
        collaborator."""
        self.require_admin()
        managed = {_nfc(name) for name in administered(self.actor, self._served)}
        grants = [
            grant
            for grant in await self._team.grants.everyone()
            if self.actor.manages_everything or _nfc(grant.workspace) in managed
        ]
        return Overview(
            everything=self.actor.manages_everything,
            users=await self._team.accounts.list(),
            workspaces=[
                ServedWorkspace(folder.name, str(folder), _nfc(folder.name) in managed)
                for folder in self._folders
            ],
            grants=grants,
            groups=await self._team.grants.groups(),
        )

    async def add_user(self, username: str, role: str, password: str | None) -> AccountInfo:
        """A new account, with a password or none (then it signs in only once one is set)."""
        self._require_everything()
        return await self._team.accounts.add(username, role=check_role(role), password=password)

    async def set_role(self, username: str, role: str) -> AccountInfo:
        """Give another account another role."""
        self._require_everything()
        self._not_self(username, "change your own role")
        return await self._team.accounts.set_role(username, check_role(role))

    async def set_disabled(self, username: str, disabled: bool) -> AccountInfo:
        """Disable (sessions end, tokens refused) or enable another account."""
        self._require_everything()
        self._not_self(username, "disable your own account")
        return await self._team.accounts.set_disabled(username, disabled)

    async def delete_user(self, username: str) -> None:
        """Delete another account with its tokens, sessions, memberships and grants."""
        self._require_everything()
        self._not_self(username, "delete your own account")
        await self._team.accounts.delete(username)

    async def reset_password(self, username: str, password: str) -> None:
        """Set another account's password; its browser sessions end (tokens stay)."""
        self._require_everything()
        self._not_self(username, "set your own password here (use the Account page)")
        await self._team.accounts.set_password(username, password)

    async def grant(self, subject: Subject, workspace: str, prefix: str, access: str) -> None:
        """Give the account or group ``access`` on the prefix of a served workspace."""
        name = self._require_workspace(workspace, served=True)
        level = check_access(access)
        if subject.username is not None:
            await self._team.grants.grant(subject.username, name, prefix, access=level)
        elif subject.group is not None:
            await self._team.grants.grant_group(subject.group, name, prefix, access=level)

    async def revoke(self, subject: Subject, workspace: str, prefix: str) -> None:
        """Remove the account's or group's grant on exactly that prefix."""
        name = self._require_workspace(workspace, served=False)
        if subject.username is not None:
            await self._team.grants.revoke(subject.username, name, prefix)
        elif subject.group is not None:
            await self._team.grants.revoke_group(subject.group, name, prefix)

    async def add_group(self, name: str) -> str:
        """A new, empty access group; its canonical name."""
        self._require_everything()
        return await self._team.grants.add_group(name)

    async def delete_group(self, name: str) -> None:
        """Delete a group with its memberships and grants."""
        self._require_everything()
        await self._team.grants.delete_group(name)

    async def add_member(self, group: str, username: str) -> None:
        """Put an account in a group."""
        self._require_everything()
        await self._team.grants.add_member(group, username)

    async def remove_member(self, group: str, username: str) -> None:
        """Take an account out of a group."""
        self._require_everything()
        await self._team.grants.remove_member(group, username)

    def require_admin(self) -> None:
        """Refuse (AccessDenied) an actor who administers nothing: checked before a request's
        body is read, so a collaborator learns nothing of what an admin route expects."""
        if not self.actor.manages_everything and self.actor.role != "admin":
            raise AccessDenied(NOT_AN_ADMIN)

    def _require_change(self) -> None:
        self.require_admin()
        if not self.actor.by_browser and not self.actor.may_change_by_token:
            raise BrowserLoginNeeded(TOKEN_CHANGES)

    def _require_everything(self) -> None:
        self._require_change()
        if not self.actor.manages_everything:
            raise AccessDenied(
                "Access denied: only a superadmin manages accounts and groups; a workspace "
                "admin manages the grants of its workspaces. Ask a superadmin."
            )

    def _require_workspace(self, workspace: str, *, served: bool) -> str:
        """The workspace's name when the actor may change its grants. A grant needs a served
        workspace; a revoke by a superadmin may name one no longer served (to clean up)."""
        self._require_change()
        name = check_workspace(workspace)
        if _nfc(name) in {_nfc(each) for each in administered(self.actor, self._served)}:
            return name
        if self.actor.manages_everything:
            if not served:
                return name
            raise InvalidArgument(
                f"No served workspace is named {name!r}. The served ones are: "
                f"{', '.join(self._served) or 'none'} (GET /api/workspaces lists them).",
                argument="workspace",
            )
        raise AccessDenied(
            f"Access denied: you manage the grants of a workspace only with write access to "
            f"all of it, and you do not have that on {name!r}. Ask a superadmin."
        )

    def _not_self(self, username: str, what: str) -> None:
        if self.actor.identity is None:
            return
        try:
            name = canonical_username(username)
        except InvalidArgument:
            return
        if name == self.actor.identity.username:
            raise InvalidArgument(
                f"You cannot {what}: ask another superadmin to do it.", argument="username"
            )
