"""The file operation routes of the server's API as typed methods over one ``QuireApi``.

Builds each request of the ``/api/files/*`` and ``/api/trash*`` rows and parses its answer as
the ``quire.api.files`` model the route sends; sending, auth and errors are
``QuireApi.call``'s. The rules (names, traversal, no overwrite, the trash) are the server's
file service's: this module never touches the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quire.api.base import AnswerT
from quire.api.files import (
    Appended,
    Copied,
    Deleted,
    LinkUpdates,
    Moved,
    NoteCreated,
    TrashEmptied,
    TrashList,
    TrashRestored,
)
from quire.client.answers import parse_answer
from quire.client.api import QuireApi, _without_none
from quire.core.errors import FileTooLarge
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.fs.encoding import decode_utf8

COPY_SECONDS = 300.0
"""How long one copy or trash operation may take on the server (a large folder)."""


class FileApi:
    """The file endpoints of the server ``api`` reaches (every path absolute)."""

    def __init__(self, api: QuireApi) -> None:
        self._api = api

    @property
    def api(self) -> QuireApi:
        """The API client the requests go through."""
        return self._api

    async def create_note(
        self, path: str, *, content: str | None = None, template: str | None = None
    ) -> NoteCreated:
        """Create the note ``path`` (``.md`` added when missing), empty, holding ``content``
        or a copy of the note ``template``'s text; an existing file is never replaced."""
        body = _without_none({"path": path, "content": content, "template": template})
        return await self._call(NoteCreated, "POST", "/api/files/note", body)

    async def create_folder(self, path: str) -> NoteCreated:
        """Create the folder ``path`` (and its parents)."""
        return await self._call(NoteCreated, "POST", "/api/files/folder", {"path": path})

    async def move(self, path: str, to: str, *, update_links: bool = False) -> Moved:
        """Rename or move ``path`` to the new full path ``to`` (never over an existing one);
        with ``update_links`` the notes linking to it are rewritten too."""
        body = {"path": path, "to": to, "update_links": update_links}
        return await self._call(Moved, "POST", "/api/files/move", body, slow=True)

    async def links(self, path: str, to: str) -> LinkUpdates:
        """The notes moving ``path`` to ``to`` would rewrite (nothing is written)."""
        body = {"path": path, "to": to}
        return await self._call(LinkUpdates, "POST", "/api/files/links", body, slow=True)

    async def copy(self, path: str, to: str) -> Copied:
        """Copy the file or folder ``path`` to the new path ``to``."""
        body = {"path": path, "to": to}
        return await self._call(Copied, "POST", "/api/files/copy", body, slow=True)

    async def delete(self, path: str) -> Deleted:
        """Move ``path`` to its workspace's trash (restorable for 30 days)."""
        return await self._call(Deleted, "POST", "/api/files/delete", {"path": path}, slow=True)

    async def append(self, path: str, content: str, *, save: bool = True) -> Appended:
        """Append ``content`` to the note ``path`` (through its live document when open)."""
        body = {"path": path, "content": content, "save": save}
        return await self._call(Appended, "POST", "/api/files/append", body)

    async def text(self, path: str) -> str:
        """The Markdown document ``path`` as the server stores it (``GET
        /api/files/download``): at most 16 MiB, UTF-8 checked, unsaved edits left out."""
        data = await self._api.call_bytes("GET", "/api/files/download", params={"path": path})
        if len(data) > MAX_DOCUMENT_BYTES:
            raise FileTooLarge(
                f"{path} holds {size_words(len(data))}, more than the "
                f"{size_words(MAX_DOCUMENT_BYTES)} a document may hold, so it is not read."
            )
        return decode_utf8(data, path=Path(path))

    async def trash(self) -> TrashList:
        """Every workspace's trash, newest first."""
        return await self._call(TrashList, "GET", "/api/trash")

    async def restore(self, entry_id: str, to: str | None = None) -> TrashRestored:
        """Put the trash entry ``entry_id`` back where it was (or at ``to``)."""
        body = _without_none({"id": entry_id, "to": to})
        return await self._call(TrashRestored, "POST", "/api/trash/restore", body, slow=True)

    async def empty_trash(self, *, expired_only: bool = False) -> TrashEmptied:
        """Remove the trash for good: all of it, or only what is past its 30 days."""
        body = {"expired_only": expired_only}
        return await self._call(TrashEmptied, "POST", "/api/trash/empty", body, slow=True)

    async def _call(
        self,
        model: type[AnswerT],
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        slow: bool = False,
    ) -> AnswerT:
        data = await self._api.call_bytes(
            method, path, body, read_seconds=COPY_SECONDS if slow else None
        )
        return parse_answer(model, data, self._api.info.url)
