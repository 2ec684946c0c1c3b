"""The history routes of the server's API as typed methods over one ``QuireApi``.

Builds each ``/api/history*`` request and parses its answer as the ``quire.api.history``
model the route sends; sending, auth and errors are ``QuireApi.call``'s. It never runs git.
"""

from __future__ import annotations

from typing import Any

from quire.api.base import AnswerT
from quire.api.history import Blame, HistoryPage, Restored, Version, VersionDiff
from quire.client.answers import parse_answer
from quire.client.api import QuireApi, _without_none

RESTORE_SECONDS = 120.0
"""How long a restore may take on the server (it waits for its commit)."""


class HistoryApi:
    """The history endpoints of the server ``api`` reaches (every path absolute)."""

    def __init__(self, api: QuireApi) -> None:
        self._api = api

    async def history(
        self, path: str, *, limit: int | None = None, cursor: str | None = None
    ) -> HistoryPage:
        """The commits of the note ``path``, newest first."""
        params = _without_none({"path": path, "limit": limit, "cursor": cursor})
        return await self._get(HistoryPage, "/api/history", params)

    async def version(self, path: str, rev: str) -> Version:
        """The note ``path`` as it was at the commit ``rev``."""
        return await self._get(Version, "/api/history/version", {"path": path, "rev": rev})

    async def diff(self, path: str, start: str, end: str = "HEAD") -> VersionDiff:
        """The diff of the note from the commit ``start`` to ``end``."""
        params = {"path": path, "from": start, "to": end}
        return await self._get(VersionDiff, "/api/history/diff", params)

    async def blame(self, path: str, rev: str = "HEAD") -> Blame:
        """Each line of the note at ``rev`` and its last author."""
        return await self._get(Blame, "/api/history/blame", {"path": path, "rev": rev})

    async def restore(self, path: str, rev: str) -> Restored:
        """Make the note hold its text at ``rev`` again (a commit of its own)."""
        data = await self._api.call_bytes(
            "POST",
            "/api/history/restore",
            {"path": path, "rev": rev},
            read_seconds=RESTORE_SECONDS,
        )
        return parse_answer(Restored, data, self._api.info.url)

    async def timeline(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        author: str | None = None,
        agent: str | None = None,
    ) -> HistoryPage:
        """Recent commits across the workspaces, newest first."""
        params = _without_none({"limit": limit, "cursor": cursor, "author": author, "agent": agent})
        return await self._get(HistoryPage, "/api/history/timeline", params)

    async def _get(self, model: type[AnswerT], path: str, params: dict[str, Any]) -> AnswerT:
        data = await self._api.call_bytes("GET", path, params=params)
        return parse_answer(model, data, self._api.info.url)
