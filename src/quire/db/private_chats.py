"""Queries over private chats and their members.

Plain functions over a session the caller opened and commits. A chat's path arrives as the
resolved absolute text the services store; the rules (who may add whom, the last member) are
the chat service's.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import Account, ChatMember, Grant, GroupMember, PrivateChat
from quire.db.paths import at_or_below, moved_below


@dataclass(frozen=True)
class PrivateChatRow:
    """A private chat as one account sees it: its path, whether it was created private, and
    whether the account is on its member list."""

    path: str
    born_private: bool
    member: bool


async def private_chats_for(session: AsyncSession, user_id: str) -> list[PrivateChatRow]:
    """Every private chat, with whether ``user_id`` is a member (one query)."""
    rows = await session.execute(
        select(PrivateChat.path, PrivateChat.born_private, ChatMember.user_id)
        .select_from(PrivateChat)
        .outerjoin(
            ChatMember,
            (ChatMember.chat_id == PrivateChat.id) & (ChatMember.user_id == user_id),
        )
    )
    return [PrivateChatRow(path, bool(born), member is not None) for path, born, member in rows]


async def chat_id_at(session: AsyncSession, path: str) -> int | None:
    """The id of the private chat at ``path`` (matched without regard to case), or None."""
    found = await session.scalar(
        select(PrivateChat.id).where(func.lower(PrivateChat.path) == path.lower()).limit(1)
    )
    return None if found is None else int(found)


async def make_private(session: AsyncSession, path: str, *, born: bool, now_ms: int) -> int:
    """The private chat at ``path``, made now when it is not private yet; its id."""
    found = await chat_id_at(session, path)
    if found is not None:
        return found
    row = PrivateChat(path=path, born_private=born, created_at_ms=now_ms)
    session.add(row)
    await session.flush()
    return int(row.id)


async def members(session: AsyncSession, chat_id: int) -> list[tuple[str, str]]:
    """The chat's members as (user id, username), by username (deleted accounts are gone)."""
    rows = await session.execute(
        select(ChatMember.user_id, Account.username)
        .join(Account, Account.user_id == ChatMember.user_id)
        .where(ChatMember.chat_id == chat_id)
        .order_by(Account.username)
    )
    return [(user_id, username) for user_id, username in rows]


async def add_member(session: AsyncSession, chat_id: int, user_id: str, now_ms: int) -> bool:
    """Put the account on the chat's member list; False when it was on it already."""
    if await session.get(ChatMember, (chat_id, user_id)) is not None:
        return False
    session.add(ChatMember(chat_id=chat_id, user_id=user_id, added_at_ms=now_ms))
    await session.flush()
    return True


async def remove_member(session: AsyncSession, chat_id: int, user_id: str) -> bool:
    """Take the account off the chat's member list; False when it was not on it."""
    done = await session.execute(
        delete(ChatMember).where(ChatMember.chat_id == chat_id, ChatMember.user_id == user_id)
    )
    return bool(getattr(done, "rowcount", 0))


async def move_private_chats(session: AsyncSession, source: str, target: str) -> None:
    """The note or folder ``source`` is now at ``target``: the private chats at or below it
    follow (their identity, so their members, stays). A leftover row at the new path (a
    private chat deleted there earlier) gives way."""
    await session.execute(delete(PrivateChat).where(at_or_below(PrivateChat.path, target)))
    await session.execute(
        update(PrivateChat)
        .where(at_or_below(PrivateChat.path, source))
        .values(path=moved_below(PrivateChat.path, source, target))
        .execution_options(synchronize_session=False)
    )


async def private_below(session: AsyncSession, path: str) -> list[str]:
    """The paths of the private chats at or below ``path``."""
    rows = await session.scalars(
        select(PrivateChat.path).where(at_or_below(PrivateChat.path, path))
    )
    return list(rows)


async def forget_private(session: AsyncSession, path: str) -> None:
    """Drop the private chat row at exactly ``path`` (a private chat whose note was never
    written)."""
    await session.execute(delete(PrivateChat).where(PrivateChat.path == path))


async def people_of_workspace(session: AsyncSession, workspace: str) -> list[str]:
    """The usernames of the enabled accounts a grant on ``workspace`` reaches (their own or
    a group's), by username."""
    own = select(Grant.user_id).where(Grant.workspace == workspace, Grant.user_id.is_not(None))
    grouped = (
        select(GroupMember.user_id)
        .join(Grant, Grant.group_id == GroupMember.group_id)
        .where(Grant.workspace == workspace)
    )
    rows = await session.scalars(
        select(Account.username)
        .where(Account.disabled.is_(False), Account.user_id.in_(own.union(grouped)))
        .order_by(Account.username)
    )
    return list(rows)
