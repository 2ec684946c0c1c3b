"""Queries over access groups, their members and grants.

Plain functions over a session the caller opened and commits; which grant covers a path is
decided in quire.core.teams.grants, not here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.teams.grants import Access, check_access
from quire.db.models import AccessGroup, Grant, GroupMember


@dataclass(frozen=True)
class StoredGrant:
    """A grant as stored: to an account (user_id) or a group (group_name), never both."""

    user_id: str | None
    group_name: str | None
    workspace: str
    prefix: str
    access: Access


def _subject(user_id: str | None, group_id: int | None) -> ColumnElement[bool]:
    if user_id is not None:
        return Grant.user_id == user_id
    return Grant.group_id == group_id


async def put_grant(
    session: AsyncSession,
    *,
    user_id: str | None,
    group_id: int | None,
    workspace: str,
    prefix: str,
    access: Access,
    now_ms: int,
) -> None:
    """Give the account or group ``access`` on the prefix, replacing a grant it had there."""
    await drop_grant(
        session, user_id=user_id, group_id=group_id, workspace=workspace, prefix=prefix
    )
    session.add(
        Grant(
            user_id=user_id,
            group_id=group_id,
            workspace=workspace,
            prefix=prefix,
            access=access,
            created_at_ms=now_ms,
        )
    )
    await session.flush()


async def drop_grant(
    session: AsyncSession,
    *,
    user_id: str | None,
    group_id: int | None,
    workspace: str,
    prefix: str,
) -> bool:
    """Remove the account's or group's grant on exactly that prefix; False when it had none."""
    done = await session.execute(
        delete(Grant).where(
            _subject(user_id, group_id),
            Grant.workspace == workspace,
            Grant.prefix == prefix,
        )
    )
    return bool(getattr(done, "rowcount", 0))


async def grants_reaching(session: AsyncSession, user_id: str) -> list[StoredGrant]:
    """Every grant that reaches the account: its own and its groups'."""
    groups = select(GroupMember.group_id).where(GroupMember.user_id == user_id)
    rows = await session.execute(
        select(Grant, AccessGroup.name)
        .outerjoin(AccessGroup, AccessGroup.id == Grant.group_id)
        .where(or_(Grant.user_id == user_id, Grant.group_id.in_(groups)))
        .order_by(Grant.workspace, Grant.prefix, Grant.id)
    )
    return [
        StoredGrant(
            grant.user_id, group_name, grant.workspace, grant.prefix, check_access(grant.access)
        )
        for grant, group_name in rows
    ]


async def add_group(session: AsyncSession, name: str, now_ms: int) -> int:
    """Create a group; its id. IntegrityError when the name is taken."""
    group = AccessGroup(name=name, created_at_ms=now_ms)
    session.add(group)
    await session.flush()
    return group.id


async def group_id_named(session: AsyncSession, name: str) -> int | None:
    """The id of the group with that name, None when there is none."""
    return await session.scalar(select(AccessGroup.id).where(AccessGroup.name == name))


async def add_member(session: AsyncSession, group_id: int, user_id: str) -> None:
    """Make the account a member of the group (nothing when it already is)."""
    if await session.get(GroupMember, (group_id, user_id)) is None:
        session.add(GroupMember(group_id=group_id, user_id=user_id))
        await session.flush()


async def remove_member(session: AsyncSession, group_id: int, user_id: str) -> bool:
    """Take the account out of the group; False when it was not in it."""
    done = await session.execute(
        delete(GroupMember).where(GroupMember.group_id == group_id, GroupMember.user_id == user_id)
    )
    return bool(getattr(done, "rowcount", 0))


async def groups_of(session: AsyncSession, user_id: str) -> list[str]:
    """The names of the groups the account is in."""
    rows = await session.scalars(
        select(AccessGroup.name)
        .join(GroupMember, GroupMember.group_id == AccessGroup.id)
        .where(GroupMember.user_id == user_id)
        .order_by(AccessGroup.name)
    )
    return list(rows)
