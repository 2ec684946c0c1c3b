"""The per-chat tail index: what a chat note held when last read, so a look parses only what
changed. An unchanged file (same identity) is not read; one that only grew is parsed from its
last message on; anything else is parsed whole. File reads go through ``quire.fs``.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio

from quire.core.chat import ChatMessage
from quire.core.errors import DocumentInvalid
from quire.fs.documents import read_file
from quire.fs.encoding import decode_utf8
from quire.fs.folders import AllowedFolders
from quire.markdown.chat import is_chat, parse_chat, scan_messages

TAIL_KEPT = 256
"""How many of a chat's last messages the index keeps parsed."""

_READ_ATTEMPTS = 3


class NotAChat(DocumentInvalid):
    """The note exists but is not a chat (its front matter has no chat tag)."""


@dataclass(frozen=True)
class FileIdentity:
    """What tells one version of a file from another without reading it."""

    device: int
    inode: int
    size: int
    mtime_ns: int


UNSEEN = FileIdentity(-1, -1, -1, -1)
"""An identity no look at a file matches: the next look reads the file again."""


@dataclass(frozen=True)
class ChatState:
    """A chat note as last read: its identity, the CRC and length of its bytes, title,
    description, roles, the offset of every message header (so ``count`` is the number of the
    last message), the authors in first-post order and the last messages."""

    path: Path
    identity: FileIdentity
    byte_length: int
    crc: int
    title: str | None
    description: str
    roles: Mapping[str, str]
    offsets: tuple[int, ...]
    participants: tuple[str, ...]
    tail: tuple[ChatMessage, ...]

    @property
    def count(self) -> int:
        """How many messages the chat holds (the number of the last one)."""
        return len(self.offsets)

    def cached_after(self, after: int) -> tuple[ChatMessage, ...] | None:
        """The messages numbered above ``after`` when the kept tail holds them all, else None."""
        if after >= self.count:
            return ()
        first_kept = self.count - len(self.tail)
        if after < first_kept:
            return None
        return self.tail[after - first_kept :]


def not_a_chat(path: Path) -> NotAChat:
    """The refusal for a note that is not a chat."""
    return NotAChat(
        f"'{path}' is a note, not a chat: its front matter has no `quire-chat: true`. Turn it "
        "into a chat first (quire chat new, or POST /api/chats), or pass the path of a chat."
    )


def file_identity(path: Path) -> FileIdentity:
    """The identity of the file at ``path`` now (raises OSError when it cannot be seen)."""
    info = path.stat()
    return FileIdentity(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def read_chat_file(folders: AllowedFolders, path: Path) -> tuple[bytes, FileIdentity]:
    """The bytes of the note at ``path`` (read beneath ``folders`` by the document rule) and
    the identity of the version read. A file that changes while it is read is read again; if
    it never holds still, the identity given matches no later look, so the next one reads it
    again."""
    data = b""
    for _attempt in range(_READ_ATTEMPTS):
        before = _identity_or_none(path)
        _found, data = read_file(folders, path)
        after = _identity_or_none(path)
        if before is not None and before == after and after.size == len(data):
            return data, after
    return data, UNSEEN


def load_state(path: Path, data: bytes, identity: FileIdentity, old: ChatState | None) -> ChatState:
    """The state of the chat whose file holds ``data``, extending ``old`` when the file only
    grew since. Raises NotUtf8 and NotAChat."""
    text = decode_utf8(data, path=path)
    if old is not None and len(data) >= old.byte_length and old.count:
        prefix_crc = zlib.crc32(memoryview(data)[: old.byte_length])
        if prefix_crc == old.crc:
            extended = extend_state(old, text, data, identity, prefix_crc)
            if extended is not None:
                return extended
    return parse_state(path, text, data, identity)


def parse_state(path: Path, text: str, data: bytes, identity: FileIdentity) -> ChatState:
    """The state of a chat parsed whole from its ``text`` (whose bytes are ``data``)."""
    if not is_chat(text):
        raise not_a_chat(path)
    note = parse_chat(text)
    return ChatState(
        path=path,
        identity=identity,
        byte_length=len(data),
        crc=zlib.crc32(data),
        title=note.title,
        description=note.description,
        roles=note.roles,
        offsets=tuple(message.offset for message in note.messages),
        participants=_participants((), note.messages),
        tail=note.messages[-TAIL_KEPT:],
    )


def extend_state(
    old: ChatState, text: str, data: bytes, identity: FileIdentity, old_crc: int | None = None
) -> ChatState | None:
    """``old`` extended by what was appended to the note (``text``, bytes ``data``, which
    start with the bytes ``old`` was read from), parsing from its last message on. None when
    the text from there no longer starts with that message (its header line was changed)."""
    last = old.offsets[-1]
    scanned = scan_messages(text, last, old.count)
    if not scanned or scanned[0].offset != last:
        return None
    previous = old.tail[-1]
    if (scanned[0].author, scanned[0].time) != (previous.author, previous.time):
        return None
    crc = old.crc if old_crc is None else old_crc
    return ChatState(
        path=old.path,
        identity=identity,
        byte_length=len(data),
        crc=zlib.crc32(memoryview(data)[old.byte_length :], crc),
        title=old.title,
        description=old.description,
        roles=old.roles,
        offsets=old.offsets[:-1] + tuple(message.offset for message in scanned),
        participants=_participants(old.participants, scanned),
        tail=(old.tail[:-1] + scanned)[-TAIL_KEPT:],
    )


def messages_from_file(
    folders: AllowedFolders, state: ChatState, after: int
) -> tuple[ChatState, tuple[ChatMessage, ...]]:
    """The messages numbered above ``after``, read from the file from that message on (for
    messages older than the kept tail); the state comes back refreshed if the file changed."""
    data, identity = read_chat_file(folders, state.path)
    if identity != state.identity:
        state = load_state(state.path, data, identity, state)
    if after >= state.count:
        return state, ()
    text = decode_utf8(data, path=state.path)
    return state, scan_messages(text, state.offsets[after], after + 1)


class ChatIndex:
    """The states of the chats read so far, refreshed on each look; one per server.

    Looks at one chat take turns (a second look waits for the first and then finds the file
    unchanged), and run their file work in a worker thread.
    """

    def __init__(self, folders: AllowedFolders) -> None:
        self.folders = folders
        """Where chats are read: the workspaces."""
        self._states: dict[Path, ChatState] = {}
        self._locks: dict[Path, anyio.Lock] = {}
        self._versions: dict[Path, int] = {}

    async def state(self, path: Path) -> ChatState:
        """The current state of the chat at ``path`` (resolved, checked).

        Raises what reading the note raises (FileMissing, NotUtf8, FileTooLarge…) and NotAChat;
        the entry is dropped then.
        """
        async with self._lock(path):
            old = self._states.get(path)
            try:
                state = await anyio.to_thread.run_sync(_refreshed, self.folders, path, old)
            except BaseException:
                self._states.pop(path, None)
                raise
            self._keep(state)
            return state

    async def messages_after(
        self, path: Path, after: int
    ) -> tuple[ChatState, tuple[ChatMessage, ...]]:
        """The chat's current state and its messages numbered above ``after``."""
        return await self.messages(await self.state(path), after)

    async def messages(
        self, state: ChatState, after: int
    ) -> tuple[ChatState, tuple[ChatMessage, ...]]:
        """The messages of ``state`` numbered above ``after``: from the kept tail, else from
        the file (and then the state as the file is now)."""
        cached = state.cached_after(after)
        if cached is not None:
            return state, cached
        async with self._lock(state.path):
            state, messages = await anyio.to_thread.run_sync(
                messages_from_file, self.folders, state, after
            )
            self._keep(state)
            return state, messages

    def remember(self, state: ChatState) -> None:
        """Keep ``state`` as the chat's current one (a post just wrote it)."""
        self._keep(state)

    def version(self, path: Path) -> int:
        """A number that changes whenever the chat's known state is replaced by another."""
        return self._versions.get(path, 0)

    def known(self, path: Path) -> ChatState | None:
        """The state last read of the chat at ``path``, without looking at the file."""
        return self._states.get(path)

    def forget(self, path: Path) -> list[Path]:
        """Drop what is known of the chat at ``path``, or of the chats below the folder
        ``path``; the next look reads each whole. Returns the chats it knew there."""
        known = [chat for chat in self._states if chat.is_relative_to(path)]
        for chat in known:
            del self._states[chat]
        return known

    def _keep(self, state: ChatState) -> None:
        if self._states.get(state.path) is not state:
            self._states[state.path] = state
            self._versions[state.path] = self._versions.get(state.path, 0) + 1

    def _lock(self, path: Path) -> anyio.Lock:
        lock = self._locks.get(path)
        if lock is None:
            lock = self._locks[path] = anyio.Lock()
        return lock


def _refreshed(folders: AllowedFolders, path: Path, old: ChatState | None) -> ChatState:
    if old is not None:
        try:
            if file_identity(path) == old.identity:
                return old
        except OSError:
            pass  # the read below says what is wrong
    data, identity = read_chat_file(folders, path)
    return load_state(path, data, identity, old)


def _identity_or_none(path: Path) -> FileIdentity | None:
    try:
        return file_identity(path)
    except OSError:
        return None


def _participants(known: tuple[str, ...], messages: tuple[ChatMessage, ...]) -> tuple[str, ...]:
    seen = {name.lower() for name in known}
    found = list(known)
    for message in messages:
        key = message.author.lower()
        if key not in seen:
            seen.add(key)
            found.append(message.author)
    return tuple(found)
