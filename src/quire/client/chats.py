"""The chat routes of the server's API as typed methods over one ``QuireApi``.

Builds each request of the ``/api/chats`` table and parses its answer as the ``quire.api.chats``
model the route sends (a shape that does not fit is a ServerFailed naming the field); sending,
auth and errors are ``QuireApi.call``'s. It never finds a server,
retries or decides what a command prints.
"""

from __future__ import annotations

from typing import Any, Final

from quire.api.base import AnswerT
from quire.api.chats import (
    AvatarSet,
    ChatCreated,
    ChatDeleted,
    ChatList,
    ChatSummary,
    ChatView,
    GifList,
    Left,
    Pinned,
    Posted,
    SessionRecord,
    StopCount,
    Waited,
)
from quire.client.answers import parse_answer
from quire.client.api import QuireApi, _without_none
from quire.core.errors import NoSuchEndpoint, ServerFailed

WAIT_TIMEOUT_MS: Final = (1_000, 600_000, 600_000)
"""How long one wait may block: least, most and default, in milliseconds."""

_WAIT_MARGIN_SECONDS = 30.0

CHAT_UNAVAILABLE = (
    "The Quire server at {url} does not offer chat: chat is turned off in its quire.toml "
    "(`[chat] enabled = false`), or it is an older version of Quire. Ask the person to turn "
    "chat on (or update Quire) and restart `quire serve`."
)


class ChatApi:
    """The chat endpoints of the server ``api`` reaches."""

    def __init__(self, api: QuireApi) -> None:
        self._api = api

    @property
    def api(self) -> QuireApi:
        """The API client the requests go through."""
        return self._api

    async def list_chats(
        self, workspace: str | None = None, reader: str | None = None
    ) -> list[ChatSummary]:
        """The chats of ``workspace`` (every workspace when None), most recently active first;
        ``reader`` counts the unread messages for that name."""
        params = _without_none({"workspace": workspace, "as": reader})
        found = await self._call(ChatList, "GET", "/api/chats", params=params)
        return list(found.chats)

    async def create(
        self, path: str, title: str | None = None, *, private: bool = False
    ) -> ChatCreated:
        """Make ``path`` a chat: a new note, or the tag added to an existing one; with
        ``private``, a new note only its creator can open (multi mode)."""
        body = _without_none({"path": path, "title": title, "private": True if private else None})
        return await self._call(ChatCreated, "POST", "/api/chats", body)

    async def read(
        self,
        path: str,
        reader: str | None = None,
        after: int | None = None,
        *,
        session: str | None = None,
    ) -> ChatView:
        """The chat at ``path`` (messages after ``after``); with ``reader``, marks it read."""
        params = _without_none({"path": path, "as": reader, "after": after, "session": session})
        return await self._call(ChatView, "GET", "/api/chats/read", params=params)

    async def post(
        self,
        path: str,
        reader: str,
        body: str,
        *,
        session: str | None = None,
    ) -> Posted:
        """Post ``body`` as ``reader`` (a message, or a /status, /context or /role)."""
        request = _without_none({"path": path, "as": reader, "body": body, "session": session})
        return await self._call(Posted, "POST", "/api/chats/post", request)

    async def wait(
        self,
        path: str,
        reader: str,
        *,
        after: int | None = None,
        mentions_only: bool = False,
        timeout_ms: int = WAIT_TIMEOUT_MS[2],
        session: str | None = None,
        command: str | None = None,
    ) -> Waited:
        """Wait (server-side, up to ``timeout_ms``) for messages new to ``reader``."""
        request = _without_none(
            {
                "path": path,
                "as": reader,
                "after": after,
                "mentionsOnly": mentions_only or None,
                "timeoutMs": timeout_ms,
                "session": session,
                "command": command,
            }
        )
        return await self._call(
            Waited,
            "POST",
            "/api/chats/wait",
            request,
            read_seconds=timeout_ms / 1000 + _WAIT_MARGIN_SECONDS,
        )

    async def leave(self, path: str, reader: str, *, session: str | None = None) -> None:
        """Say ``reader`` left the chat: presence cleared, the session marked as left."""
        request = _without_none({"path": path, "as": reader, "session": session})
        await self._call(Left, "POST", "/api/chats/leave", request)

    async def session(self, session_id: str) -> SessionRecord:
        """What the server recorded about the agent session ``session_id``."""
        return await self._call(
            SessionRecord, "GET", "/api/chats/session", params={"id": session_id}
        )

    async def record_stop(
        self, session_id: str, *, harness: str | None = None, machine_label: str | None = None
    ) -> int:
        """Record one attempt of the session to stop; how many came within two minutes. The
        harness and machine label name the agent in the notice raised when it may stop."""
        request = _without_none(
            {"id": session_id, "harness": harness, "machine_label": machine_label}
        )
        found = await self._call(StopCount, "POST", "/api/chats/session/stop", request)
        return found.recent_stops

    async def pin(self, path: str, pinned: bool) -> bool:
        """Pin or unpin the chat at ``path``; whether it is pinned now."""
        found = await self._call(Pinned, "POST", "/api/chats/pin", {"path": path, "pinned": pinned})
        return found.pinned

    async def delete(self, path: str) -> None:
        """Delete the chat at ``path`` (anyone waiting on it is told it is gone)."""
        await self._call(ChatDeleted, "POST", "/api/chats/delete", {"path": path})

    async def gifs(self, workspace: str) -> GifList:
        """The reactions and avatars the chats of ``workspace`` may use."""
        return await self._call(GifList, "GET", "/api/chats/gifs", params={"workspace": workspace})

    async def gif(self, workspace: str, name: str) -> bytes:
        """The SVG of the image ``name`` in ``workspace``."""
        return await self._call_bytes(
            "GET", "/api/chats/gif", params={"workspace": workspace, "name": name}
        )

    async def set_avatar(
        self, workspace: str, reader: str, *, pick: str | None = None, svg: str | None = None
    ) -> AvatarSet:
        """Give ``reader`` an avatar: a built-in by name, ``auto``, or an SVG drawing."""
        request = _without_none({"workspace": workspace, "as": reader, "pick": pick, "svg": svg})
        return await self._call(AvatarSet, "POST", "/api/chats/avatar", request)

    async def _call(
        self,
        model: type[AnswerT],
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        params: dict[str, Any] | None = None,
        read_seconds: float | None = None,
    ) -> AnswerT:
        try:
            data = await self._api.call_bytes(
                method, path, body, params=params, read_seconds=read_seconds
            )
        except NoSuchEndpoint:
            raise ServerFailed(CHAT_UNAVAILABLE.format(url=self._api.info.url)) from None
        return parse_answer(model, data, self._api.info.url)

    async def _call_bytes(
        self, method: str, path: str, *, params: dict[str, Any] | None = None
    ) -> bytes:
        try:
            return await self._api.call_bytes(method, path, params=params)
        except NoSuchEndpoint:
            raise ServerFailed(CHAT_UNAVAILABLE.format(url=self._api.info.url)) from None
