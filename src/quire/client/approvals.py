"""The approval routes of the server's API as typed methods over one ``QuireApi``.

Builds each request of the ``/api/approvals`` table and parses its answer as the
``quire.api.approvals`` model the route sends; sending, auth and errors are
``QuireApi.call``'s. It never finds a server, retries or decides what a hook prints.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from quire.api.approvals import (
    ApprovalList,
    ApprovalOutcome,
    ApprovalRecord,
    ApprovalRequested,
    ApprovalsDone,
    NoticeRaised,
)
from quire.api.base import AnswerT
from quire.client.answers import parse_answer
from quire.client.api import QuireApi, _without_none
from quire.core.approvals.hook_input import PermissionAsk

_WAIT_MARGIN_SECONDS = 30.0


class ApprovalsApi:
    """The approval endpoints of the server ``api`` reaches."""

    def __init__(self, api: QuireApi) -> None:
        self._api = api

    async def request(
        self, ask: PermissionAsk, *, machine_label: str, ttl_ms: int
    ) -> ApprovalRequested:
        """Queue ``ask`` for the person, for ``ttl_ms``."""
        body = {
            "harness": ask.harness,
            "session_id": ask.session_id,
            "cwd": ask.cwd,
            "tool_name": ask.tool_name,
            "tool_input": ask.tool_input,
            "suggestions": list(ask.suggestions),
            "machine_label": machine_label,
            "ttl_ms": ttl_ms,
        }
        return await self._call(ApprovalRequested, "POST", "/api/approvals", body)

    async def wait(self, approval_id: str, wait_ms: int) -> ApprovalOutcome:
        """Wait up to ``wait_ms`` (server-side) for the request to end."""
        return await self._call(
            ApprovalOutcome,
            "GET",
            f"/api/approvals/{quote(approval_id, safe='')}/wait",
            params={"wait_ms": wait_ms},
            read_seconds=wait_ms / 1000 + _WAIT_MARGIN_SECONDS,
        )

    async def get(self, approval_id: str) -> ApprovalRecord:
        """One request's record."""
        return await self._call(
            ApprovalRecord, "GET", f"/api/approvals/{quote(approval_id, safe='')}"
        )

    async def listing(self) -> ApprovalList:
        """The approvals list and the live notices."""
        return await self._call(ApprovalList, "GET", "/api/approvals")

    async def done(
        self, session_id: str, tool_name: str | None, tool_input: dict[str, Any] | None
    ) -> ApprovalsDone:
        """Close the session's cards answered in the terminal (for this tool call)."""
        body = _without_none(
            {"session_id": session_id, "tool_name": tool_name, "tool_input": tool_input}
        )
        return await self._call(ApprovalsDone, "POST", "/api/approvals/done", body)

    async def notify(
        self, session_id: str, *, harness: str, machine_label: str, kind: str, message: str
    ) -> NoticeRaised:
        """Raise a notice for the agent session."""
        body = {
            "session_id": session_id,
            "harness": harness,
            "machine_label": machine_label,
            "kind": kind,
            "message": message,
        }
        return await self._call(NoticeRaised, "POST", "/api/notices", body)

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
        data = await self._api.call_bytes(
            method, path, body, params=params, read_seconds=read_seconds
        )
        return parse_answer(model, data, self._api.info.url)
