"""Grants and access groups, and the one access check: ``can``.

``can`` fails closed: an unknown or disabled account, a malformed path, or any error while
checking means no access. Roles give no access to note content; only grants do (a superadmin
manages accounts, and reads a note only with a grant that covers it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.errors import InvalidArgument
from quire.core.teams.accounts import canonical_group_name
from quire.core.teams.grants import (
    Access,
    Grant,
    allows,
    check_access,
    check_prefix,
    check_workspace,
)
from quire.db import accounts as account_rows
from quire.db import grants as rows
from quire.db import roster
from quire.db.engine import Database
from quire.services.users.accounts import require
from quire.services.users.identity import GrantInfo, GroupInfo, TeamGrant

logger = logging.getLogger(__name__)


class Grants:
    """The grants and groups of one database."""

    def __init__(self, db: Database, *, clock: Callable[[], int]) -> None:
        self._db = db
        self._clock = clock

    async def grant(
        self, username: str, workspace: str, prefix: str = "", *, access: str
    ) -> GrantInfo:
        """Give the account ``access`` on the prefix of the workspace (replacing the access it
        had on exactly that prefix)."""
        name, segments, level = (
            check_workspace(workspace),
            check_prefix(prefix),
            check_access(access),
        )
        async with self._db.session() as session:
            account = await require(session, username)
            await rows.put_grant(
                session,
                user_id=account.user_id,
                group_id=None,
                workspace=name,
                prefix="/".join(segments),
                access=level,
                now_ms=self._clock(),
            )
            await session.commit()
        return GrantInfo(name, "/".join(segments), level, None)

    async def revoke(self, username: str, workspace: str, prefix: str = "") -> None:
        """Remove the account's own grant on exactly that prefix (a group's grant stays)."""
        name, segments = check_workspace(workspace), check_prefix(prefix)
        async with self._db.session() as session:
            account = await require(session, username)
            done = await rows.drop_grant(
                session,
                user_id=account.user_id,
                group_id=None,
                workspace=name,
                prefix="/".join(segments),
            )
            if not done:
                raise _no_grant(account.username, name, "/".join(segments))
            await session.commit()

    async def grants_of(self, username: str) -> list[GrantInfo]:
        """Every grant that reaches the account, its own and its groups'."""
        async with self._db.session() as session:
            account = await require(session, username)
            found = await rows.grants_reaching(session, account.user_id)
        return [GrantInfo(g.workspace, g.prefix, g.access, g.group_name) for g in found]

    async def add_group(self, name: str) -> str:
        """Create an access group; its canonical name."""
        group = canonical_group_name(name)
        async with self._db.session() as session:
            if await rows.group_id_named(session, group) is not None:
                raise InvalidArgument(f"A group named {group!r} exists already.", argument="group")
            try:
                await rows.add_group(session, group, self._clock())
                await session.commit()
            except IntegrityError:
                raise InvalidArgument(
                    f"A group named {group!r} exists already.", argument="group"
                ) from None
        return group

    async def add_member(self, group: str, username: str) -> None:
        """Put the account in the group."""
        async with self._db.session() as session:
            group_id = await _group(session, group)
            account = await require(session, username)
            await rows.add_member(session, group_id, account.user_id)
            await session.commit()

    async def remove_member(self, group: str, username: str) -> None:
        """Take the account out of the group."""
        async with self._db.session() as session:
            group_id = await _group(session, group)
            account = await require(session, username)
            if not await rows.remove_member(session, group_id, account.user_id):
                raise InvalidArgument(
                    f"{account.username!r} is not in the group {group!r}.", argument="username"
                )
            await session.commit()

    async def grant_group(
        self, group: str, workspace: str, prefix: str = "", *, access: str
    ) -> None:
        """Give every member of the group ``access`` on the prefix of the workspace."""
        name, segments, level = (
            check_workspace(workspace),
            check_prefix(prefix),
            check_access(access),
        )
        async with self._db.session() as session:
            group_id = await _group(session, group)
            await rows.put_grant(
                session,
                user_id=None,
                group_id=group_id,
                workspace=name,
                prefix="/".join(segments),
                access=level,
                now_ms=self._clock(),
            )
            await session.commit()

    async def revoke_group(self, group: str, workspace: str, prefix: str = "") -> None:
        """Remove the group's grant on exactly that prefix."""
        name, segments = check_workspace(workspace), check_prefix(prefix)
        async with self._db.session() as session:
            group_id = await _group(session, group)
            done = await rows.drop_grant(
                session, user_id=None, group_id=group_id, workspace=name, prefix="/".join(segments)
            )
            if not done:
                raise _no_grant(f"group {group}", name, "/".join(segments))
            await session.commit()

    async def everyone(self) -> list[TeamGrant]:
        """Every grant of every account and group, by workspace and prefix."""
        async with self._db.session() as session:
            found = await roster.all_grants(session)
        return [TeamGrant(g.username, g.group, g.workspace, g.prefix, g.access) for g in found]

    async def groups(self) -> list[GroupInfo]:
        """Every access group with its members, by name."""
        async with self._db.session() as session:
            found = await roster.all_groups(session)
        return [GroupInfo(group.name, group.members) for group in found]

    async def delete_group(self, group: str) -> None:
        """Delete the group with its memberships and grants (its members keep their own)."""
        async with self._db.session() as session:
            await roster.delete_group(session, await _group(session, group))
            await session.commit()

    async def can(self, user_id: str, workspace: str, path: str, access: Access) -> bool:
        """Whether the account may ``access`` (read, or write which includes read) ``path``
        (workspace-relative, ``/``-separated, as resolved on disk) in ``workspace``.

        False for an unknown or disabled account, a path with ``..`` or another odd form, and
        whenever the check itself fails."""
        try:
            async with self._db.session() as session:
                account = await account_rows.account_by_id(session, user_id)
                if account is None or account.disabled:
                    return False
                grants = await reaching(session, user_id)
            return allows(grants, workspace, path, access)
        except Exception:
            logger.exception("An access check failed, so access was denied")
            return False


async def reaching(session: AsyncSession, user_id: str) -> tuple[Grant, ...]:
    """Every grant that reaches the account (its own and its groups'), as the rules read them."""
    found = await rows.grants_reaching(session, user_id)
    return tuple(
        Grant(g.workspace, tuple(g.prefix.split("/")) if g.prefix else (), g.access) for g in found
    )


async def _group(session: AsyncSession, group: str) -> int:
    group_id = await rows.group_id_named(session, canonical_group_name(group))
    if group_id is None:
        raise InvalidArgument(f"There is no group named {group!r}.", argument="group")
    return group_id


def _no_grant(who: str, workspace: str, prefix: str) -> InvalidArgument:
    where = f"{workspace}/{prefix}" if prefix else f"the whole workspace {workspace!r}"
    return InvalidArgument(
        f"{who!r} has no grant of its own on {where}. `quire user list` shows the "
        "grants there are.",
        argument="prefix",
    )
