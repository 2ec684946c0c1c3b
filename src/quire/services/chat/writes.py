"""Writing a chat note: appending a message, rewriting its front matter, creating a new one.

A chat open in the live documents is changed there (so every window showing it sees the change
at once) and saved; otherwise the file is rewritten atomically through ``quire.fs``. Callers
hold the chat's lock; the tail index is kept current here. No events are published here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio

from quire.core.chat import Label
from quire.core.errors import FileTooLarge, StorageFailed
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.core.views import document_id
from quire.fs.documents import write_document
from quire.fs.encoding import decode_utf8
from quire.fs.folders import AllowedFolders
from quire.markdown.chat import MessageText, append_message, is_chat
from quire.services.chat.paths import ChatPath
from quire.services.chat.tails import (
    UNSEEN,
    ChatIndex,
    ChatState,
    extend_state,
    file_identity,
    load_state,
    not_a_chat,
    parse_state,
    read_chat_file,
)
from quire.services.history.recorder import HistoryRecorder
from quire.services.live.document import LiveDocument, Origin
from quire.services.live.documents import LiveDocuments
from quire.services.live.files import save_to_file
from quire.services.live.text_changes import text_changes


class ChatWriter:
    """The one way the chat service changes a chat note."""

    def __init__(
        self, documents: LiveDocuments, index: ChatIndex, history: HistoryRecorder | None = None
    ) -> None:
        self._documents = documents
        self._history = history
        self._index = index
        self._folders = index.folders

    async def append(
        self, target: ChatPath, author: Label, time: str, body: MessageText
    ) -> ChatState:
        """Append a message by ``author`` at ``time``; the chat's state after it.

        Raises NotAChat, FileTooLarge (the note would pass 16 MiB) and what reading or writing
        the note raises.
        """
        live = self._live(target)
        if live is None:
            old = self._index.known(target.path)
            try:
                state = await anyio.to_thread.run_sync(
                    _append_to_file, self._folders, target.path, old, author, time, body
                )
            except StorageFailed as exc:
                raise _not_posted(exc, target.path) from exc
            self._index.remember(state)
            self._record(target.path, author, "Chat post")
            return state
        async with live.lock:
            current = live.text()
            if not is_chat(current):
                raise not_a_chat(target.path)
            new = append_message(current, author, time, body)
            try:
                await live.store_and_apply(
                    current, text_changes(current, new), Origin("agent", author)
                )
            except StorageFailed as exc:
                raise _not_posted(exc, target.path) from exc
            try:
                await save_to_file(live, self._folders)
            except StorageFailed as exc:
                raise exc.with_message(
                    f"The message was added to the open document '{target.path}' and stored "
                    f"with its unsaved edits, but the file was not written: {exc} It joins "
                    "the chat when the document is saved; do not post it again."
                ) from exc
        self._index.forget(target.path)
        self._record(target.path, author, "Chat post")
        return await self._index.state(target.path)

    async def rewrite(self, target: ChatPath, change: Callable[[str], str], *, author: str) -> None:
        """Replace the note's text with ``change(text)`` (nothing is written when it is the
        same). ``change`` may raise to refuse."""
        live = self._live(target)
        if live is None:
            await anyio.to_thread.run_sync(_rewrite_file, self._folders, target.path, change)
        else:
            async with live.lock:
                current = live.text()
                new = change(current)
                if new != current:
                    await self._change_live(live, current, new, author=author)
        self._index.forget(target.path)
        self._record(target.path, author, "Chat change")

    async def create(self, target: ChatPath, text: str) -> None:
        """Write a new note (refused with PathRefused when something is there already)."""
        _check_size(text.encode("utf-8"), target.path)
        await anyio.to_thread.run_sync(_create_file, self._folders, target.path, text)
        self._index.forget(target.path)
        if self._history is not None:
            self._history.created(target.path, "chat")

    def _record(self, path: Path, author: str, message: str) -> None:
        """Note the write for history (its bytes are read when it is committed)."""
        if self._history is not None:
            self._history.saved(path, author, None, message)

    def _live(self, target: ChatPath) -> LiveDocument | None:
        live = self._documents.get(document_id(target.path))
        # A live document in conflict with its file cannot be saved: the file is the truth.
        return live if live is not None and live.conflict is None else None

    async def _change_live(
        self, live: LiveDocument, current: str, new: str, *, author: str = "chat"
    ) -> None:
        _check_size(new.encode("utf-8"), live.path)
        await live.store_and_apply(current, text_changes(current, new), Origin("agent", author))
        await save_to_file(live, self._folders)


def _not_posted(exc: StorageFailed, path: Path) -> StorageFailed:
    return exc.with_message(f"The message was not posted (not applied) to '{path}': {exc}")


def _append_to_file(
    folders: AllowedFolders,
    path: Path,
    old: ChatState | None,
    author: Label,
    time: str,
    body: MessageText,
) -> ChatState:
    data, identity = read_chat_file(folders, path)
    if old is None or old.identity != identity:
        old = load_state(path, data, identity, old)
    text = decode_utf8(data, path=path)
    new = append_message(text, author, time, body)
    encoded = new.encode("utf-8")
    _check_size(encoded, path)
    write_document(folders, path, new)
    try:
        written = file_identity(path)
    except OSError:
        # Written, but not to be looked at by its path (one over PATH_MAX, say).
        written = UNSEEN
    extended = extend_state(old, new, encoded, written) if old.count else None
    return extended or parse_state(path, new, encoded, written)


def _rewrite_file(folders: AllowedFolders, path: Path, change: Callable[[str], str]) -> None:
    data, _identity = read_chat_file(folders, path)
    text = decode_utf8(data, path=path)
    new = change(text)
    if new != text:
        _check_size(new.encode("utf-8"), path)
        write_document(folders, path, new)


def _create_file(folders: AllowedFolders, path: Path, text: str) -> None:
    write_document(folders, path, text, overwrite=False, make_folders=True)


def _check_size(encoded: bytes, path: Path) -> None:
    if len(encoded) > MAX_DOCUMENT_BYTES:
        raise FileTooLarge(
            f"Cannot write to the chat '{path}': it would hold {size_words(len(encoded))}, more "
            f"than the {size_words(MAX_DOCUMENT_BYTES)} a note may hold, so nothing was "
            "written. Start a new chat (quire chat new) and carry on there."
        )
