"""Conversation memory: save a session's messages and read its recent context from disk.

Owns the sessions folder (0700), its session files (0600, format in ``session_file.py``) and
the ``.lock`` every writer holds; works with no server. Reads and writes only through quire.fs.
"""

from __future__ import annotations

import fcntl
import os
import stat
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import (
    DocumentInvalid,
    FileMissing,
    FileTooLarge,
    InvalidArgument,
    NotUtf8,
    PathRefused,
)
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.paths import expand_path
from quire.fs.oserror import storage_failed
from quire.fs.safeio import decode_utf8, read_regular_bytes, write_atomic
from quire.fs.sandbox import file_kind
from quire.memory.session_file import (
    MalformedSession,
    SessionFile,
    StoredMessage,
    check_session_id,
    describe_size,
    encode_within,
    parse_session,
    session_file_name,
    unique_paths,
)

__all__ = [
    "ROLES",
    "ConversationContext",
    "SavedMessage",
    "SessionStore",
    "StoredMessage",
    "session_file_name",
]

ROLES = ("agent", "human", "system")
"""Who may have said a message."""

MAX_CONTEXT_LIMIT = 200
_FOLDER_MODE = 0o700
_FILE_MODE = 0o600
_NOT_SAVED = "The message was not saved."


@dataclass(frozen=True)
class SavedMessage:
    """The result of a save; ``dropped`` and ``note`` are set when old messages made room."""

    ok: bool
    messageId: str
    sessionId: str
    role: str
    timestampMs: int
    dropped: int | None
    note: str | None


@dataclass(frozen=True)
class ConversationContext:
    """The last messages of a session, oldest first, and the documents they cite."""

    sessionId: str
    messages: list[StoredMessage]
    count: int
    recentDocs: list[str]


class SessionStore:
    """The session files in one sessions folder.

    ``clock`` returns milliseconds since the Unix epoch; ``cwd`` and ``home`` resolve relative
    and ``~/`` cited paths; ``max_file_bytes`` is the most one session file may hold.
    """

    def __init__(
        self,
        root: Path,
        *,
        clock: Callable[[], int],
        cwd: Path,
        home: Path,
        max_file_bytes: int = MAX_DOCUMENT_BYTES,
    ) -> None:
        self._root = root if root.is_absolute() else cwd / root
        self._clock = clock
        self._cwd = cwd
        self._home = home
        self._max_file_bytes = max_file_bytes

    def save(
        self,
        session_id: str,
        role: str,
        content: str,
        cited_docs: Sequence[str] | None = None,
    ) -> SavedMessage:
        """Append one message to a session, creating its file, and return what was stored.

        The oldest messages are dropped when the file would pass its size limit. A file that
        cannot be read as a session, is too large, or holds another id's messages is left as
        it is and the save is refused.
        """
        session_id = check_session_id(session_id)
        path = self._root / session_file_name(session_id)
        role = _check_role(role)
        content = _check_content(content, self._max_file_bytes)
        docs = self._absolute_docs(cited_docs)
        self._prepare_folder()
        with self._write_lock():
            stored = self._load(path, session_id, saving=True)
            if stored is not None:
                _refuse_other_session(stored, session_id, path)
            message = StoredMessage(
                id=uuid.uuid4().hex,
                sessionId=session_id,
                role=role,
                content=content,
                citedDocs=docs,
                timestampMs=self._clock(),
            )
            earlier = stored.messages if stored is not None else []
            data, dropped = encode_within(session_id, [*earlier, message], self._max_file_bytes)
            write_atomic(path, data, overwrite=True, mode=_FILE_MODE)
        note = None
        if dropped:
            what = "oldest message was" if dropped == 1 else f"{dropped} oldest messages were"
            note = (
                f"The session file is kept within {describe_size(self._max_file_bytes)}, so "
                f"the {what} dropped to make room for this one."
            )
        return SavedMessage(
            ok=True,
            messageId=message.id,
            sessionId=session_id,
            role=role,
            timestampMs=message.timestampMs,
            dropped=dropped or None,
            note=note,
        )

    def context(self, session_id: str, limit: int = 20) -> ConversationContext:
        """Return the last ``limit`` messages of a session, oldest first, and their documents.

        ``recentDocs`` lists the paths those messages cite, most recently cited first, each
        once. A session with no file is empty; a file that cannot be read raises.
        """
        session_id = check_session_id(session_id)
        path = self._root / session_file_name(session_id)
        limit = _check_limit(limit)
        stored = self._load(path, session_id, saving=False)
        own = [] if stored is None else [m for m in stored.messages if m.sessionId == session_id]
        recent = own[-limit:]
        return ConversationContext(
            sessionId=session_id,
            messages=recent,
            count=len(recent),
            recentDocs=_recent_docs(recent),
        )

    def _absolute_docs(self, cited_docs: Sequence[str] | None) -> list[str]:
        if cited_docs is None:
            return []
        if isinstance(cited_docs, str | bytes) or not isinstance(cited_docs, Sequence):
            raise InvalidArgument(
                "cited_docs must be a list of document paths, such as "
                f'["notes/plan.md"], not {type(cited_docs).__name__}.',
                argument="cited_docs",
            )
        docs: list[str] = []
        for index, raw in enumerate(cited_docs):
            argument = f"cited_docs[{index}]"
            if not isinstance(raw, str):
                raise InvalidArgument(
                    f"{argument} must be a path string, not {type(raw).__name__}.",
                    argument="cited_docs",
                )
            if not raw.strip():
                raise InvalidArgument(
                    f"{argument} is blank. Each cited document must be a path (absolute, "
                    "relative to the working directory, or starting with ~/); "
                    "leave the blank entry out.",
                    argument="cited_docs",
                )
            path = str(expand_path(raw, cwd=self._cwd, home=self._home, argument=argument))
            # A surrogate escape passes as a path but cannot be stored as UTF-8 JSON.
            _check_text(path, argument)
            docs.append(path)
        return unique_paths(docs)

    def _prepare_folder(self) -> None:
        try:
            self._root.mkdir(mode=_FOLDER_MODE, parents=True, exist_ok=True)
            info = self._root.stat()
            if not stat.S_ISDIR(info.st_mode):
                raise PathRefused(
                    f"The sessions folder {self._root} is not a folder, so no message can be "
                    "saved. Move that file away and save again."
                )
            # mkdir's mode passes through the umask, and an existing folder may be open.
            if stat.S_IMODE(info.st_mode) != _FOLDER_MODE:
                self._root.chmod(_FOLDER_MODE)
        except FileExistsError:
            raise PathRefused(
                f"The sessions folder {self._root} is not a folder, so no message can be "
                "saved. Move that file away and save again."
            ) from None
        except OSError as err:
            raise storage_failed(
                err, doing="prepare the sessions folder", path=self._root, after=_NOT_SAVED
            ) from None

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        # flock, not a lock in memory: other processes (another quire mcp, the web app)
        # update the same files.
        lock_path = self._root / ".lock"
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(lock_path, flags, _FILE_MODE)
        except OSError as err:
            after = f"{_NOT_SAVED} If it is a link or a folder, remove it and save again."
            raise storage_failed(
                err, doing="open the sessions lock file", path=lock_path, after=after
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _load(self, path: Path, session_id: str, *, saving: bool) -> SessionFile | None:
        try:
            raw = read_regular_bytes(path, limit=self._max_file_bytes, what="session file")
        except FileMissing:
            return None
        except FileTooLarge:
            cap = describe_size(self._max_file_bytes)
            reason = f"is {_size_of(path)}more than the {cap} a session file may hold"
            raise FileTooLarge(self._refusal(path, session_id, reason, saving)) from None
        except PathRefused:
            reason = _not_regular(path)
            raise PathRefused(self._refusal(path, session_id, reason, saving)) from None
        try:
            return parse_session(decode_utf8(raw))
        except NotUtf8:
            reason = "is not UTF-8 text"
            raise DocumentInvalid(self._refusal(path, session_id, reason, saving)) from None
        except MalformedSession as err:
            raise DocumentInvalid(self._refusal(path, session_id, err.reason, saving)) from None

    def _refusal(self, path: Path, session_id: str, reason: str, saving: bool) -> str:
        outcome = (
            "The message was not saved" if saving else f"Session {session_id!r} could not be read"
        )
        return (
            f"The session file {path} {reason}. {outcome}, and the file was left as it is. "
            f"Move it out of {self._root} (the session then starts afresh) or repair it."
        )


def _refuse_other_session(stored: SessionFile, session_id: str, path: Path) -> None:
    others = [m.sessionId for m in stored.messages if m.sessionId != session_id]
    if stored.session_id != session_id:
        others.insert(0, stored.session_id)
    if others:
        raise InvalidArgument(
            f"The session file {path} already holds session {others[0]!r}, which this file "
            f"system does not tell apart from {session_id!r} (it ignores letter case in file "
            "names). The message was not saved. Use a session id that differs in more than "
            "letter case.",
            argument="session_id",
        )


def _recent_docs(messages: list[StoredMessage]) -> list[str]:
    newest_first = (doc for message in reversed(messages) for doc in message.citedDocs)
    return unique_paths(list(newest_first))


def _check_role(role: object) -> str:
    if not isinstance(role, str) or role not in ROLES:
        shown = repr(role) if isinstance(role, str) else type(role).__name__
        raise InvalidArgument(
            f"role must be one of {', '.join(ROLES)}; got {shown}.", argument="role"
        )
    return role


def _check_content(content: object, max_bytes: int) -> str:
    if not isinstance(content, str):
        raise InvalidArgument(
            f"content must be the message text, not {type(content).__name__}.",
            argument="content",
        )
    if not content.strip():
        raise InvalidArgument(
            "content is empty or only whitespace. Pass the text of the message to save.",
            argument="content",
        )
    size = len(_check_text(content, "content"))
    if size > max_bytes:
        raise InvalidArgument(
            f"content is too large to save: it is {size:,} bytes, and a session file holds at "
            f"most {describe_size(max_bytes)}. Save a shorter message (cite the document in "
            "cited_docs instead of copying it in).",
            argument="content",
        )
    return content


def _check_text(text: str, argument: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            f"{argument} is not valid Unicode text (it holds a lone surrogate code point). "
            "Pass ordinary text.",
            argument=argument.split("[")[0],
        ) from None


def _check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_CONTEXT_LIMIT:
        raise InvalidArgument(
            f"limit must be a whole number from 1 to {MAX_CONTEXT_LIMIT}; got {limit!r}.",
            argument="limit",
        )
    return limit


def _size_of(path: Path) -> str:
    """``16.0 MiB (16,777,217 bytes), `` for a message, or nothing when the size is unknown."""
    try:
        size = path.lstat().st_size
    except OSError:
        return ""
    words = describe_size(size)
    return f"{words}, " if words.endswith("bytes") else f"{words} ({size:,} bytes), "


def _not_regular(path: Path) -> str:
    try:
        kind = file_kind(path.lstat().st_mode)
    except OSError:
        return "could not be opened"
    if kind == "a symbolic link":
        return "is a symbolic link, and links are never followed"
    return f"is {kind}, not a regular file"
