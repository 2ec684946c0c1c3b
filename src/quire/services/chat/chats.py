"""Chat in a note: listing, creating, reading, posting, waiting in, leaving and deleting chats.

Owns the rules of the chat operations: posts to one chat take turns on its lock and wake its
waiters; the format, writes, waits, presence, positions and pictures have their own modules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Self

import anyio

from quire.api.chats import (
    AvatarSet,
    ChatCreated,
    ChatMembers,
    ChatPeople,
    ChatSummary,
    ChatView,
    GifList,
    MemberAction,
    Posted,
    Waited,
)
from quire.api.events import ChatData, ChatDeletedEvent, ChatEvent, ChatNamed, ChatPresenceEvent
from quire.core.chat import Label, sanitize_label, utc_stamp
from quire.core.errors import InvalidArgument, PathRefused, QuireError
from quire.core.views import document_id, whole_number
from quire.db import chats as store
from quire.db.advisory_locks import AdvisoryLocks
from quire.db.engine import Database
from quire.fs.documents import delete_file
from quire.fs.encoding import decode_utf8
from quire.markdown.chat import check_message, is_chat, make_chat, set_role
from quire.services.chat import pictures
from quire.services.chat.cursors import ChatCursors
from quire.services.chat.discovery import ChatFinder
from quire.services.chat.paths import (
    ChatPath,
    existing_chat_path,
    named_chat_path,
    new_chat_path,
    workspace_folder,
)
from quire.services.chat.presence import ChatPresence
from quire.services.chat.presence_sharing import PresenceSharing
from quire.services.chat.privacy import (
    ChatPrivacy,
    attributed,
    chat_owner,
    check_chat_access,
    may_delete,
    not_the_owner,
)
from quire.services.chat.reader_waits import ChatWaiting, message_answer
from quire.services.chat.sessions import ChatSessions, check_command, check_session
from quire.services.chat.slash_posts import SlashPost, context_report, slash_post
from quire.services.chat.tails import ChatIndex, ChatState, read_chat_file
from quire.services.chat.wakeups import ChatWaits
from quire.services.chat.writes import ChatWriter
from quire.services.events import EventBus
from quire.services.history.recorder import HistoryRecorder
from quire.services.live.documents import LiveDocuments
from quire.services.replicas.fanout import Alone, Fanout, Wakeups
from quire.services.replicas.turns import Turns
from quire.services.users.access import Access, GrantedAccess, current_access, not_found
from quire.vault.watch import FileChange, FolderWatcher
from quire.vault.workspaces import Workspaces

WAIT_MS = (1_000, 600_000, 600_000)
"""How long one wait may block: least, most and default, in milliseconds."""
MAX_POSITION = 2**31 - 1
POSTS_TOPIC = "chat-posts"
"""The replicas' topic of chats written to (or deleted): the chat's path, as text."""
MAX_TITLE_CHARS = 200


class ChatService:
    """Every chat of one server. Use as ``async with ChatService(...) as chats`` so changes
    made to a chat outside Quire wake its waiters and read positions are stored behind the
    answers; without it, everything else works (positions are stored at once)."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        documents: LiveDocuments,
        workspaces: Workspaces,
        *,
        clock: Callable[[], int],
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        history: HistoryRecorder | None = None,
        multi: bool = False,
        fanout: Fanout | None = None,
    ) -> None:
        self._db = db
        self._fanout = fanout or Alone()
        self._turns = Turns("chat", AdvisoryLocks(db, shared=self._fanout.state != "alone"))
        self._multi = multi
        self._bus = bus
        self._documents = documents
        self._workspaces = workspaces
        self._clock = clock
        self._index = ChatIndex(workspaces.inside)
        self._writer = ChatWriter(documents, self._index, history)
        self._finder = ChatFinder(workspaces)
        self._presence = ChatPresence(clock)
        self._sharing = PresenceSharing(self._presence, self._fanout)
        self._cursors = ChatCursors(db, clock, self._fanout)
        self._waits = ChatWaits()
        self._fanout.listen(POSTS_TOPIC, Wakeups(self._waits.notify, self._waits.notify_all))
        self._waiting = ChatWaiting(
            self._index,
            self._cursors,
            self._presence,
            self._waits,
            clock=clock,
            sleep=sleep,
            announce=self._announce,
        )
        self.sessions = ChatSessions(db, clock)
        """The agent sessions, for the keepalive hook's lookups."""
        self.privacy = ChatPrivacy(db, clock, bus.access_changed)
        """The private chats and their members (multi mode)."""
        self._watcher: FolderWatcher | None = None
        self._watched: set[Path] = set()
        self._exit_stack: AsyncExitStack | None = None

    async def __aenter__(self) -> Self:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(self._cursors)
            self._watcher = await stack.enter_async_context(FolderWatcher(self._on_changes))
            stack.callback(self._waits.notify_all)
            if self._sharing.is_shared:
                group = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(group.cancel_scope.cancel)
                group.start_soon(self._sharing.run)
            self._exit_stack = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        stack, self._exit_stack, self._watcher = self._exit_stack, None, None
        self._watched.clear()
        if stack is not None:
            await stack.aclose()

    async def list_chats(
        self, user: str, workspace: Path | None = None, reader: str | None = None
    ) -> list[ChatSummary]:
        """The chats of ``workspace`` (every served one when None), most recently active
        first, with ``reader``'s unread counts (0 without a reader) and the user's pins."""
        name = None if reader is None else sanitize_label(reader)
        access = current_access()
        folders = self._workspaces.folders if workspace is None else (self._workspace(workspace),)
        if access.restricted:
            folders = tuple(folder for folder in folders if access.sees_folder(folder))
        chats = await anyio.to_thread.run_sync(self._finder.find, folders)
        if access.restricted:
            chats = [chat for chat in chats if access.may_read(chat.path)]
        async with self._db.session() as session:
            pins = await store.pinned_paths(session, user)
        private = await self._private_keys(access)
        keys = [chat.key for chat in chats]
        positions = {} if name is None else await self._cursors.positions(user, name, keys)
        summaries: list[ChatSummary] = []
        for chat in chats:
            try:
                state = await self._index.state(chat.path)
                unread = 0
                if name is not None:
                    unread = await self._unread(state, name, positions.get(chat.key, 0))
            except QuireError:
                continue  # changed or went away since the walk
            summaries.append(
                ChatSummary(
                    path=str(chat.path),
                    workspace=str(chat.workspace),
                    title=state.title or chat.path.stem,
                    message_count=state.count,
                    last_activity=_last_activity(state),
                    unread=unread,
                    pinned=chat.key in pins,
                    private=chat.key.casefold() in private,
                )
            )
        summaries.sort(key=lambda item: (-item.last_activity, item.path))
        return summaries

    async def create(
        self,
        user: str,
        path: Path,
        title: str | None = None,
        *,
        private: bool | None = False,
        invite: Iterable[str] = (),
        private_by_default: bool = False,
    ) -> ChatCreated:
        """Make a chat at ``path``: a new note (with ``title``), or the tag added to the note
        there; a chat already there is left as it is. In multi mode the chat gets an
        ``owner:`` line naming the account; ``private`` (a new note only) puts it and the
        accounts in ``invite`` on its member list, and nobody else can open it.
        ``private_by_default`` (the window's + New): private when ``private`` is None and the
        request is an account's."""
        if title is not None:
            _check_title(title)
        access = current_access()
        asked = private is not None
        if private is None:
            private = private_by_default and access.identity is not None
        if not isinstance(private, bool):
            raise InvalidArgument("`private` must be true or false.", argument="private")
        invited = tuple(invite)
        check_chat_access(access, path, "create", write=True)
        identity = access.identity
        if (private or invited) and identity is None:
            raise InvalidArgument(
                "Private chats are for accounts on a team server (`quire serve --multi`): "
                "sign in as an account, or leave `private` out for an open chat.",
                argument="private",
            )
        if invited and not private:
            raise InvalidArgument(
                "`invite` needs `private: true`: an open chat is open to everyone who can "
                "read the note.",
                argument="invite",
            )
        target, exists = await anyio.to_thread.run_sync(new_chat_path, self._workspaces, path)
        check_chat_access(access, target.path, "create", write=True)
        owner = None if identity is None else identity.username
        async with self._turn(target):
            if not exists:
                if private and identity is not None:
                    await anyio.to_thread.run_sync(_check_private_path, target)
                    await self.privacy.create(target.path, identity, invited, target.workspace.name)
                try:
                    await self._writer.create(target, make_chat("", title, owner))
                except BaseException:
                    if private:
                        await self.privacy.forget(target.path)
                    raise
                return ChatCreated(
                    path=str(target.path), created=True, converted=False, private=private
                )
            if private and asked:
                raise InvalidArgument(
                    f"A note is at '{target.path}' already, and a private chat can only be "
                    "made as a new note. Pick another name, or open that chat and use "
                    "Members… to make it private.",
                    argument="private",
                )
            converted = False

            def convert(text: str) -> str:
                nonlocal converted
                converted = not is_chat(text)
                return make_chat(text, owner=owner)

            await self._writer.rewrite(target, convert, author=user)
        private_now = self._multi and await self.privacy.is_private(target.path)
        return ChatCreated(
            path=str(target.path), created=False, converted=converted, private=private_now
        )

    async def people(self, workspace: Path) -> ChatPeople:
        """The accounts that may be invited to a chat in ``workspace`` (those a grant on it
        reaches); none in single mode or for the server's own token."""
        folder = self._workspace(workspace)
        access = current_access()
        _require_workspace(access, folder)
        if access.identity is None:
            return ChatPeople(people=())
        return ChatPeople(people=tuple(await self.privacy.people(folder.name)))

    async def members(self, path: Path) -> ChatMembers:
        """Who can open the chat: open, or private with its member list; and its owner."""
        target = await self._existing(path, check="read")
        return await self._members(target)

    async def change_members(
        self, path: Path, action: MemberAction, username: str | None = None
    ) -> ChatMembers:
        """Add ``username`` to the chat's members or remove them (the last member stays), or
        make the chat private with you alone (``private``). Adding to an open chat makes it
        private with you and them. Any member may add or remove anyone; making an open chat
        private needs write access to it."""
        access = current_access()
        identity = access.identity
        if identity is None:
            raise InvalidArgument(
                "Members are for accounts on a team server (`quire serve --multi`): sign in "
                "as an account to change who can open a chat.",
                argument="action",
            )
        target = await self._existing(path, check="read")
        private = await self.privacy.is_private(target.path)
        if not private:
            check_chat_access(access, target.path, "write", write=True)
        await self._index.state(target.path)  # refuses a note that is not a chat
        if action == "remove":
            if username is None:
                raise InvalidArgument(
                    "`username` is required to remove a member.", argument="username"
                )
            await self.privacy.remove(target.path, username)
        elif action == "add" or action == "private":
            if action == "add" and username is None:
                raise InvalidArgument(
                    "`username` is required to add a member.", argument="username"
                )
            if not private:
                await anyio.to_thread.run_sync(_check_private_path, target)
            await self.privacy.add(
                target.path,
                identity,
                username if action == "add" else None,
                target.workspace.name,
            )
        else:
            raise InvalidArgument(
                f"`action` must be add, remove or private, got {action!r}.", argument="action"
            )
        return await self._members(target)

    async def read(
        self,
        user: str,
        path: Path,
        reader: str | None = None,
        after: int | None = None,
        session: str | None = None,
    ) -> ChatView:
        """The chat with its messages numbered above ``after`` (all by default). With a
        ``reader``, everything up to the last message counts as read by it."""
        name = None if reader is None else sanitize_label(reader)
        position = 0 if after is None else whole_number(after, "after", 0, MAX_POSITION)
        check_session(session)
        target = await self._existing(path, check="read")
        state, messages = await self._index.messages_after(target.path, position)
        if name is not None:
            await self._cursors.set(user, target.key, name, state.count)
            await self.sessions.record(user, session, target.key, name, "read")
        presence = tuple(self._presence.snapshot(target.key))
        names = [*state.participants, *(item.name for item in presence)]
        avatars = await anyio.to_thread.run_sync(pictures.avatars_of, target.workspace, names)
        return ChatView(
            path=str(target.path),
            title=state.title,
            description=state.description,
            participants=state.participants,
            messages=tuple(message_answer(message) for message in messages),
            next=state.count,
            presence=presence,
            roles=dict(state.roles),
            avatars=avatars,
        )

    async def post(
        self, user: str, path: Path, reader: str, body: str, *, session: str | None = None
    ) -> Posted:
        """Post ``body`` as ``reader``: a message appended to the note, or a slash post
        (``/status``, ``/context``, ``/role``) that sets state and is not stored."""
        name = sanitize_label(reader)
        if not isinstance(body, str):
            raise InvalidArgument("`body` must be text (a string).", argument="body")
        check_session(session)
        target = await self._existing(path, verb="write", check="write")
        slash = slash_post(body)
        # The session is recorded first: a post that answers an error was never appended, so
        # a retry cannot post it twice.
        if slash is not None:
            await self.sessions.record(user, session, target.key, name, "post")
            return await self._slash(user, target, name, slash)
        text = check_message(body)
        await self.sessions.record(user, session, target.key, name, "post")
        author = attributed(name, current_access().identity)
        async with self._turn(target):
            stamp = utc_stamp(datetime.fromtimestamp(self._clock() / 1000, tz=UTC))
            state = await self._writer.append(target, author, stamp, text)
        self._wake(target.key)
        data = ChatData(path=target.key, number=state.count, author=author)
        self._bus.publish_all(ChatEvent(data=data))
        self._announce(user, target.key, self._presence.posted(target.key, name))
        await self._fanout.flush()  # the other replicas' waiters hear of it before the ack
        return Posted(kind="message", number=state.count)

    async def wait(
        self,
        user: str,
        path: Path,
        reader: str,
        *,
        after: int | None = None,
        mentions_only: bool = False,
        timeout_ms: int | None = None,
        session: str | None = None,
        command: str | None = None,
    ) -> Waited:
        """Wait for messages for ``reader``: numbered above ``after`` (its saved position by
        default; a reader never seen starts at the end), not its own, and with
        ``mentions_only`` only those mentioning it. Returns them the moment one is posted,
        ``timeout`` after ``timeout_ms`` (1,000 to 600,000, default 600,000), or ``gone``
        when the chat is deleted, unreadable or no longer a chat (its sessions then leave)."""
        name = sanitize_label(reader)
        low, high, default = WAIT_MS
        budget = default if timeout_ms is None else whole_number(timeout_ms, "timeoutMs", low, high)
        if after is not None:
            whole_number(after, "after", 0, MAX_POSITION)
        check_session(session)
        check_command(command)
        check_chat_access(current_access(), path, "read", write=False)
        target = await self._named(path)
        await self.sessions.record(user, session, target.key, name, "wait", command)
        await self._watch(target.path.parent)
        waited, chat = await self._waiting.wait(user, target, name, after, mentions_only, budget)
        if waited.status == "gone":
            await self._leave(user, chat, name, session)
        return waited

    async def leave(
        self, user: str, path: Path, reader: str, *, session: str | None = None
    ) -> None:
        """``reader`` leaves the chat: its presence is cleared and its sessions in the chat
        count as left (the keepalive hook lets them stop). Works on a deleted chat too."""
        name = sanitize_label(reader)
        check_session(session)
        check_chat_access(current_access(), path, "read", write=False)
        await self._leave(user, (await self._named(path)).key, name, session)

    async def delete(self, user: str, path: Path) -> None:
        """Delete the chat's note (in multi mode: by its owner, a workspace admin or a
        superadmin only); then as ``deleted``."""
        target = await self._existing(path, verb="delete", check="write")
        async with self._turn(target):
            await self._index.state(target.path)  # refuses a note that is not a chat
            await anyio.to_thread.run_sync(self._check_owner, current_access(), target.path)
            await self._documents.unload(document_id(target.path))
            await anyio.to_thread.run_sync(delete_file, self._workspaces.inside, target.path)
        await self.deleted(user, target.path, chats=(target.path,))

    async def deleted(self, user: str, path: Path, *, chats: Iterable[Path] = ()) -> None:
        """``user`` deleted the note or folder ``path`` (resolved): the waits on every chat at
        or below it end with ``gone`` (their sessions leave), and every user's read positions
        and pins there go. ``user``'s windows are told each chat it held is deleted: those in
        ``chats`` and every chat read, waited on or present since the server started."""
        known = {*self._index.forget(path), *chats}
        known.update(Path(chat) for chat in self._presence.forget(path))
        waited = self._waits.keys_below(path)
        known.update(Path(chat) for chat in waited)
        await self._cursors.forget(str(path))
        await self.sessions.leave(user, str(path))
        for waiting in waited:
            self._wake(waiting)
        for chat in sorted(known):
            self._bus.publish_all(ChatDeletedEvent(data=ChatNamed(path=str(chat))))
            self._announce(user, str(chat), True)

    @contextmanager
    def moving(self) -> Iterator[None]:
        """Hold this around a file move (with ``moved`` inside): a wait that misses its chat
        mid-move waits for the move to finish instead of ending with ``gone``."""
        with self._waits.moving():
            yield

    async def moved(self, user: str, source: Path, target: Path) -> None:
        """The note or folder ``source`` was renamed or moved to ``target`` (both resolved):
        every chat at or below it keeps its waits (woken to look at the new path), presence,
        every user's read positions, pins and agent sessions. Announced to ``user``."""
        self._index.forget(source)
        followed = {*self._presence.moved(source, target), *self._waits.moved(source, target)}
        await self._cursors.moved(source, target)
        await self.privacy.moved(source, target)
        for chat in sorted(followed):
            await self._watch(Path(chat).parent)
            self._announce(user, chat, True)

    async def pin(self, user: str, path: Path, pinned: bool) -> bool:
        """Pin the chat to the user's Pinned tab, or unpin it; returns ``pinned``."""
        if not isinstance(pinned, bool):
            raise InvalidArgument("`pinned` must be true or false.", argument="pinned")
        target = await self._existing(path, check="read")
        async with self._db.session() as db, db.begin():
            await store.set_pin(db, user, target.key, pinned, self._clock())
        return pinned

    async def gifs(self, workspace: Path) -> GifList:
        """The picture names usable in ``workspace`` and its saved avatars."""
        folder = self._workspace(workspace)
        _require_workspace(current_access(), folder)
        return await anyio.to_thread.run_sync(pictures.list_gifs, folder)

    async def gif(self, workspace: Path, name: str) -> bytes:
        """The SVG of picture ``name`` in ``workspace`` (its own file, else the built-in)."""
        folder = self._workspace(workspace)
        _require_workspace(current_access(), folder)
        return await anyio.to_thread.run_sync(pictures.gif_svg, folder, name)

    async def set_avatar(
        self, workspace: Path, reader: str, *, pick: str | None = None, svg: str | None = None
    ) -> AvatarSet:
        """Save ``reader``'s avatar in ``workspace``: a built-in (``pick``, or ``"auto"``) or
        an uploaded ``svg``. Returns the picture name and the built-in picked."""
        name = sanitize_label(reader)
        folder = self._workspace(workspace)
        access = current_access()
        if access.restricted:
            access.require_write(folder / pictures.GIFS_FOLDER, missing=not_found(workspace))
        saved, picked = await anyio.to_thread.run_sync(
            pictures.save_avatar, folder, name, pick, svg
        )
        return AvatarSet(name=saved, picked=picked)

    async def _slash(self, user: str, target: ChatPath, name: Label, slash: SlashPost) -> Posted:
        if slash.kind == "role":
            role = slash.text or None
            async with self._turn(target):
                await self._index.state(target.path)  # refuses a note that is not a chat
                await self._writer.rewrite(
                    target,
                    lambda text: set_role(text, name, role),
                    author=attributed(name, current_access().identity),
                )
            self._announce(user, target.key, True)
            return Posted(kind="role", cleared=role is None)
        await self._index.state(target.path)
        if slash.kind == "status":
            changed = self._presence.set_status(target.key, name, slash.text)
            self._announce(user, target.key, changed)
            return Posted(kind="status", cleared=not slash.text)
        report = context_report(slash.text)
        self._announce(user, target.key, self._presence.set_context(target.key, name, report))
        return Posted(kind="context", cleared=report is None)

    async def _leave(self, user: str, chat: str, name: str, session: str | None) -> None:
        self._announce(user, chat, self._presence.left(chat, name))
        await self.sessions.leave(user, chat, name, session)

    async def _unread(self, state: ChatState, name: str, position: int) -> int:
        _state, fresh = await self._index.messages(state, position)
        return sum(1 for message in fresh if message.author.lower() != name.lower())

    async def _existing(
        self, path: Path, *, verb: str = "read", check: str | None = None
    ) -> ChatPath:
        """The existing chat note ``path``; with ``check`` (read or write), refused first as
        a missing note is unless the request's account may do that (see ``privacy``)."""
        if check is not None:
            check_chat_access(current_access(), path, verb, write=check == "write")
        return await anyio.to_thread.run_sync(
            lambda: existing_chat_path(self._workspaces, path, verb=verb)
        )

    async def check_delete(self, path: Path) -> None:
        """Refuse deleting the note or folder ``path`` (resolved) when it is, or holds, a chat
        the request's account may not delete (multi mode: not its owner, nor a workspace
        admin or a superadmin). A private chat it is not a member of is refused before this,
        by the files service's write check of everything deleted (the chat is hidden from it).
        Nothing to check for the server's own access."""
        access = current_access()
        if access.identity is None:
            return
        await anyio.to_thread.run_sync(self._check_owners, access, path)

    async def copied(self, source: Path, target: Path) -> None:
        """The note or folder ``source`` was copied to ``target`` (both resolved): a private
        chat's copy is private with the same members."""
        pairs = [
            (chat, target / chat.relative_to(source) if chat != source else target)
            for chat in await self.privacy.private_below(source)
        ]
        await self.privacy.copied(pairs)

    def _check_owners(self, access: Access, path: Path) -> None:
        if path.is_symlink():  # deleting a link leaves what it points to
            return
        if path.is_dir():
            for chat in self._finder.find_below(path):
                self._check_owner(access, chat)
        else:
            self._check_owner(access, path)

    def _check_owner(self, access: Access, path: Path) -> None:
        if access.identity is None:
            return
        try:
            text = _read_text(self._workspaces, path)
        except QuireError:
            return
        if is_chat(text) and not may_delete(access.identity, text):
            raise not_the_owner(path, text)

    async def _members(self, target: ChatPath) -> ChatMembers:
        private, names = await self.privacy.members(target.path)
        text = await anyio.to_thread.run_sync(_read_text, self._workspaces, target.path)
        return ChatMembers(path=target.key, private=private, members=names, owner=chat_owner(text))

    async def _private_keys(self, access: Access) -> frozenset[str]:
        if isinstance(access, GrantedAccess):
            return frozenset(str(chat).casefold() for chat in access.joined)
        if not self._multi:  # single mode has no private chats
            return frozenset()
        found = await self.privacy.private_below(Path("/"))
        return frozenset(str(chat).casefold() for chat in found)

    async def _named(self, path: Path) -> ChatPath:
        return await anyio.to_thread.run_sync(
            lambda: named_chat_path(self._workspaces, path, verb="read")
        )

    def _workspace(self, path: Path) -> Path:
        return workspace_folder(self._workspaces, path)

    def _turn(self, target: ChatPath) -> AbstractAsyncContextManager[None]:
        """The chat's turn to be written, in this server and across its replicas (so posts
        through any replica take turns)."""
        return self._turns.turn(target.key)

    def _wake(self, chat: str) -> None:
        """Wake the waits on ``chat`` in every replica."""
        self._waits.notify(chat)
        self._fanout.send(POSTS_TOPIC, chat)

    def _announce(self, user: str, chat: str, changed: bool) -> None:
        if changed:
            # The other replicas hold the new presence before their windows hear of it.
            self._sharing.share(chat)
            self._bus.publish_all(ChatPresenceEvent(data=ChatNamed(path=chat)))

    async def _watch(self, folder: Path) -> None:
        if self._watcher is None or folder in self._watched:
            return
        self._watched.add(folder)
        await self._watcher.watch(folder)

    async def _on_changes(self, changes: list[FileChange]) -> None:
        for change in changes:
            self._waits.notify(str(change.path))


def _last_activity(state: ChatState) -> int:
    if state.tail:
        try:
            moment = datetime.fromisoformat(state.tail[-1].time.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return int(moment.timestamp() * 1000)
    return state.identity.mtime_ns // 1_000_000


def _check_title(title: str) -> None:
    if not isinstance(title, str) or "\0" in title or len(title) > MAX_TITLE_CHARS:
        raise InvalidArgument(
            f"`title` must be text of at most {MAX_TITLE_CHARS} characters without NUL, "
            f"got {title!r:.80}.",
            argument="title",
        )


def _read_text(workspaces: Workspaces, path: Path) -> str:
    data, _identity = read_chat_file(workspaces.inside, path)
    return decode_utf8(data, path=path)


def _require_workspace(access: Access, folder: Path) -> None:
    """Refuse a workspace the account has no grant in (as if it were not served)."""
    if access.restricted and not access.sees_folder(folder):
        raise PathRefused(
            f"'{folder}' is not a workspace this server serves, nor inside one. Pass a "
            "workspace your account has access to."
        )


def _check_private_path(target: ChatPath) -> None:
    """Refuse a private chat at a path that is not plain ASCII, or beside a note whose name
    differs only in letter case (member lists match paths without regard to case, as some
    disks do)."""
    relative = target.path.relative_to(target.workspace).as_posix()
    if not relative.isascii():
        raise InvalidArgument(
            f"A private chat's path must be plain ASCII, and '{relative}' is not: some disks "
            "treat differently written letters as the same, which the member list could not "
            "follow. Pick a name with plain letters.",
            argument="path",
        )
    folder = target.path.parent
    try:
        names = [entry.name for entry in folder.iterdir()]
    except OSError:
        return
    twins = [
        name
        for name in names
        if name != target.path.name and name.casefold() == target.path.name.casefold()
    ]
    if twins:
        raise InvalidArgument(
            f"'{twins[0]}' is beside '{target.path.name}' with the same name in other capitals, "
            "so the chat cannot be private there. Rename one of them first.",
            argument="path",
        )
