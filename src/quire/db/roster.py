"""Queries over the whole team at once, for the admin and account pages: every grant with the
name of its subject, every group with its members, a group deleted, a role changed, and the
other browser sessions of an account ended.

Plain functions over a session the caller opened and commits; who may do what is decided in
the services, not here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.teams.accounts import Role
from quire.core.teams.grants import Access, check_access
from quire.db.models import AccessGroup, Account, BrowserSession, Grant, GroupMember


@dataclass(frozen=True)
class ListedGrant:
    """A grant with its subject named: an account's username or a group's name (one is None)."""

    username: str | None
    group: str | None
    workspace: str
    prefix: str
    access: Access


@dataclass(frozen=True)
class ListedGroup:
    """An access group and the usernames of its members, sorted."""

    name: str
    members: tuple[str, ...]


async def all_grants(session: AsyncSession) -> list[ListedGrant]:
    """Every grant, to accounts and to groups, by workspace, prefix and subject."""
    rows = await session.execute(
        select(Grant, Account.username, AccessGroup.name)
        .outerjoin(Account, Account.user_id == Grant.user_id)
        .outerjoin(AccessGroup, AccessGroup.id == Grant.group_id)
        .order_by(Grant.workspace, Grant.prefix, Grant.id)
    )
    return [
        ListedGrant(username, group, grant.workspace, grant.prefix, check_access(grant.access))
        for grant, username, group in rows
    ]


async def all_groups(session: AsyncSession) -> list[ListedGroup]:
    """Every access group with its members, by name."""
    groups = list(await session.scalars(select(AccessGroup).order_by(AccessGroup.name)))
    members = await session.execute(
        select(GroupMember.group_id, Account.username)
        .join(Account, Account.user_id == GroupMember.user_id)
        .order_by(Account.username)
    )
    by_group: dict[int, list[str]] = {}
    for group_id, username in members:
        by_group.setdefault(group_id, []).append(username)
    return [ListedGroup(group.name, tuple(by_group.get(group.id, ()))) for group in groups]


async def delete_group(session: AsyncSession, group_id: int) -> None:
    """Delete the group; its memberships and grants go with it."""
    await session.execute(delete(GroupMember).where(GroupMember.group_id == group_id))
    await session.execute(delete(Grant).where(Grant.group_id == group_id))
    await session.execute(delete(AccessGroup).where(AccessGroup.id == group_id))


async def set_role(session: AsyncSession, user_id: str, role: Role) -> None:
    """Give the account another role."""
    await session.execute(update(Account).where(Account.user_id == user_id).values(role=role))


async def delete_other_browser_sessions(session: AsyncSession, user_id: str, keep: str) -> int:
    """End every browser session of the account but the one whose digest is ``keep``; how
    many ended."""
    done = await session.execute(
        delete(BrowserSession).where(
            BrowserSession.user_id == user_id, BrowserSession.id_hash != keep
        )
    )
    return int(getattr(done, "rowcount", 0) or 0)
