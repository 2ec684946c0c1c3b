"""Who may open and who may delete a chat in multi mode: private chats and their members, the
``owner:`` line, and the account written beside a label.

A private chat is a row in the database (its stable identity, whose path follows the moves and
renames made inside Quire) with its member list. The access check hides a private chat from
every account not on the list (``GrantedAccess.hidden``, filled when a request signs in), so
every surface leaves it out; this module keeps the rows and holds the rules of changing them.

In single mode, and for the server's own token, nothing here refuses anything.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.chat import Label
from quire.core.errors import AccessDenied, FileMissing, InvalidArgument
from quire.core.teams.accounts import canonical_username
from quire.db import accounts as account_rows
from quire.db import private_chats as rows
from quire.db.engine import Database
from quire.markdown.chat import is_chat, owner_of, parse_chat
from quire.services.live.document import LiveDocument, Origin
from quire.services.live.text_changes import text_changes
from quire.services.users.access import Access
from quire.services.users.grants import reaching
from quire.services.users.identity import Identity

logger = logging.getLogger(__name__)

DELETERS = frozenset({"admin", "superadmin"})
"""The roles that may delete any chat they can write, besides its owner."""


def missing_message(path: Path, verb: str) -> str:
    """What a chat path that is not there (or not readable by the account) answers: the very
    words a missing note gets."""
    return (
        f"Cannot {verb} '{path}': the file does not exist. Check the path (absolute, or "
        "relative to the working directory)."
    )


def not_a_member(username: str) -> str:
    """The refusal a member's agent gets when its CLI is signed in as another account."""
    return (
        f"Access denied: this chat is private and your account ({username}) is not a member. "
        "Check which account you are signed in as (`quire whoami`), then sign in with a "
        "member's token, or ask a member to add this account with Members…."
    )


def check_chat_access(access: Access, path: Path, verb: str, *, write: bool) -> None:
    """Refuse ``path`` unless ``access`` may read it (``write``: change it). Someone whose
    grants do not reach it gets the missing-note answer; someone whose grants reach a private
    chat they are not on is told so."""
    if not access.restricted:
        return
    missing = missing_message(path, verb)
    if access.hides(path):
        identity = access.identity
        if access.granted_level(path) is None or identity is None:
            raise FileMissing(missing)
        raise AccessDenied(not_a_member(identity.username))
    if write:
        access.require_write(path, missing=missing)
    else:
        access.require_read(path, missing=missing)


def attributed(label: Label, identity: Identity | None) -> Label:
    """The author a message is written under: the label, with ``(via account)`` when the
    signed-in account is not called that (multi mode; single mode has only the label)."""
    if identity is None or label.casefold() == identity.username.casefold():
        return label
    return Label(f"{label} (via {identity.username})")


def chat_owner(text: str) -> str | None:
    """The account that owns the chat: its ``owner:`` line, else the account of its first
    message (the name in ``(via …)``, or the author); None for an old chat with no message."""
    named = owner_of(text)
    if named is not None:
        return named
    messages = parse_chat(text).messages
    if not messages:
        return None
    author = messages[0].author
    if author.endswith(")") and " (via " in author:
        return author[author.rindex(" (via ") + 6 : -1].strip() or None
    return author


def may_delete(identity: Identity | None, text: str) -> bool:
    """Whether the account may delete the chat whose note reads ``text`` (or make it a plain
    note, or give it another owner): its owner, a workspace admin or a superadmin; anyone
    (who may write it) when no owner is known, and always in single mode."""
    if identity is None or identity.role in DELETERS:
        return True
    owner = chat_owner(text)
    return owner is None or owner.casefold() == identity.username.casefold()


def not_the_owner(path: Path, text: str) -> AccessDenied:
    """The refusal of a delete by someone who is not the chat's owner."""
    owner = chat_owner(text)
    return AccessDenied(
        f"Access denied: '{path}' is a chat owned by {owner}, and only its owner, a workspace "
        "admin or a superadmin may delete it, turn it back into a plain note or change its "
        "owner. Ask one of them."
    )


def check_chat_edit(access: Access, path: Path, old: str, new: str) -> None:
    """Refuse an edit of a chat note that would delete the chat (its tag removed) or change
    its owner, unless the account may delete it. Nothing to check outside multi mode."""
    identity = access.identity
    if identity is None or not is_chat(old) or may_delete(identity, old):
        return
    if not is_chat(new) or owner_of(new) != owner_of(old):
        raise not_the_owner(path, old)


class ChatPrivacy:
    """The private chats of one server and their member lists."""

    def __init__(
        self, db: Database, clock: Callable[[], int], changed: Callable[[], None] = lambda: None
    ) -> None:
        self._db = db
        self._clock = clock
        self._changed = changed
        """Called after every change of who may open a chat (once it is in the database),
        so open event streams look their access up again."""

    @asynccontextmanager
    async def _changing(self) -> AsyncIterator[AsyncSession]:
        """A transaction that changes who may open a chat; ``changed`` once it committed."""
        async with self._db.session() as session, session.begin():
            yield session
        self._changed()

    async def is_private(self, path: Path) -> bool:
        """Whether the chat at ``path`` (resolved) is private."""
        async with self._db.session() as session:
            return await rows.chat_id_at(session, str(path)) is not None

    async def private_below(self, path: Path) -> list[Path]:
        """The private chats at or below the note or folder ``path`` (resolved)."""
        async with self._db.session() as session:
            return [Path(found) for found in await rows.private_below(session, str(path))]

    async def members(self, path: Path) -> tuple[bool, tuple[str, ...]]:
        """Whether the chat is private, and its members' usernames."""
        async with self._db.session() as session:
            chat_id = await rows.chat_id_at(session, str(path))
            if chat_id is None:
                return False, ()
            return True, tuple(name for _id, name in await rows.members(session, chat_id))

    async def create(
        self, path: Path, creator: Identity, invite: Iterable[str], workspace: str
    ) -> None:
        """Make the new chat at ``path`` private, with its creator and ``invite`` on it."""
        async with self._changing() as session:
            invited = [await _invitee(session, name, workspace) for name in invite]
            chat_id = await rows.make_private(session, str(path), born=True, now_ms=self._clock())
            for user_id in (creator.user_id, *invited):
                await rows.add_member(session, chat_id, user_id, self._clock())

    async def people(self, workspace: str) -> list[str]:
        """Who could be invited to a chat in ``workspace``: the accounts a grant on it reaches."""
        async with self._db.session() as session:
            return await rows.people_of_workspace(session, workspace)

    async def forget(self, path: Path) -> None:
        """Drop the private chat at ``path`` (its note was never written)."""
        async with self._changing() as session:
            await rows.forget_private(session, str(path))

    async def add(self, path: Path, by: Identity, username: str | None, workspace: str) -> None:
        """Put ``username`` on the chat's list (on an open chat: make it private with ``by``
        and them); ``username`` None makes it private with ``by`` alone."""
        async with self._changing() as session:
            added = None if username is None else await _invitee(session, username, workspace)
            chat_id = await rows.chat_id_at(session, str(path))
            if chat_id is None:
                chat_id = await rows.make_private(
                    session, str(path), born=False, now_ms=self._clock()
                )
                await rows.add_member(session, chat_id, by.user_id, self._clock())
            if added is not None:
                await rows.add_member(session, chat_id, added, self._clock())

    async def remove(self, path: Path, username: str) -> None:
        """Take ``username`` off the chat's list (the last member stays)."""
        name = canonical_username(username)
        async with self._changing() as session:
            chat_id = await rows.chat_id_at(session, str(path))
            if chat_id is None:
                raise InvalidArgument(
                    "This chat is open (anyone who can read the note can read it), so it has no "
                    "member list to remove anyone from.",
                    argument="username",
                )
            listed = await rows.members(session, chat_id)
            found = [user_id for user_id, member in listed if member == name]
            if not found:
                raise InvalidArgument(
                    f"{name!r} is not a member of this chat. Members: "
                    f"{', '.join(member for _id, member in listed) or 'none'}.",
                    argument="username",
                )
            if len(listed) == 1:
                raise InvalidArgument(
                    f"{name!r} is the chat's last member and stays: a private chat with nobody "
                    "on it could never be opened again. Add someone else first.",
                    argument="username",
                )
            await rows.remove_member(session, chat_id, found[0])

    async def moved(self, source: Path, target: Path) -> None:
        """The note or folder ``source`` is now ``target``: its private chats follow."""
        async with self._changing() as session:
            await rows.move_private_chats(session, str(source), str(target))

    async def copied(self, pairs: Sequence[tuple[Path, Path]]) -> None:
        """Each private chat ``source`` was copied to ``target``: the copy is private with the
        same members."""
        if not pairs:
            return
        async with self._changing() as session:
            for source, target in pairs:
                chat_id = await rows.chat_id_at(session, str(source))
                if chat_id is None:
                    continue
                copy_id = await rows.make_private(
                    session, str(target), born=True, now_ms=self._clock()
                )
                for user_id, _name in await rows.members(session, chat_id):
                    await rows.add_member(session, copy_id, user_id, self._clock())


async def _invitee(session: AsyncSession, username: str, workspace: str) -> str:
    """The user id of ``username``, refused unless a grant reaches it on ``workspace``."""
    if not isinstance(username, str):
        raise InvalidArgument("`username` must be text.", argument="username")
    name = canonical_username(username)
    account = await account_rows.account_named(session, name)
    if account is None or account.disabled:
        raise InvalidArgument(
            f"There is no account named {name!r}. Pick someone with access to the workspace "
            f"{workspace!r}.",
            argument="username",
        )
    if not any(grant.workspace == workspace for grant in await reaching(session, account.user_id)):
        raise InvalidArgument(
            f"{name!r} has no access to the workspace {workspace!r}, so they could not open the "
            "chat. Ask a workspace admin to grant it first.",
            argument="username",
        )
    return account.user_id


class LiveChatGuard:
    """Undoes a live editor's change that would delete a chat it may not delete (remove its
    tag or change its owner): made before the change is applied, ``after`` checks it."""

    def __init__(self, access: Access, live: LiveDocument, before: str) -> None:
        self._access = access
        self._live = live
        self._before = before

    def after(self) -> bool:
        """Check the change just applied; undo it (for every editor) when refused. True when
        it stood."""
        now = self._live.text()
        try:
            check_chat_edit(self._access, self._live.path, self._before, now)
        except AccessDenied:
            logger.info("Undid an edit of %s that only the chat's owner may make", self._live.path)
            self._live.apply(now, text_changes(now, self._before), Origin("agent", "quire"))
            return False
        return True


def live_chat_guard(access: Access, live: LiveDocument) -> LiveChatGuard | None:
    """A guard for one live edit of ``live`` by ``access``; None when there is nothing to
    check (single mode, the server's own access, not a chat, or an account that may delete
    it)."""
    identity = access.identity
    if identity is None:
        return None
    before = live.text()
    if not is_chat(before) or may_delete(identity, before):
        return None
    return LiveChatGuard(access, live, before)
