"""The typed HTTP client of the server's API: one method per endpoint, errors as QuireErrors.

Sends requests over a wire (kept-alive sockets to an ``http://`` server, or an httpx transport:
the app in process, HTTPS) and turns the server's JSON error bodies back into the exception
they came from; it never finds or starts a server (``connection.py`` does) and holds no tool
logic.
"""

from __future__ import annotations

import copy
import json
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pydantic_core

from quire.api.account import AccountView
from quire.api.base import AnswerMismatch
from quire.api.documents import (
    AppliedPreview,
    ContentSet,
    CurrentDocument,
    OpenedDocument,
    Replaced,
    StreamPreview,
)
from quire.api.reviews import CheckedReview, FileAnnotations, ReviewOutcome, ReviewRecord
from quire.api.search import Backlinks, Reindexed, SearchPage, Titles
from quire.api.server import Health
from quire.api.windows import (
    FilePage,
    Presented,
    RecentDocument,
    RecentDocuments,
    Recents,
    Window,
    WorkspaceFile,
    WorkspaceList,
)
from quire.client.answers import decode_answer, error_from_answer, parse_answer
from quire.client.refused_token import token_refused_message
from quire.client.wire import (
    AnswerTooLarge,
    HttpxWire,
    SocketWire,
    Wire,
    WireBroken,
    WireError,
    WireTimeout,
    query_string,
    skip_missing_sniffio,
)
from quire.core.agents import AGENT_HEADER, agent_header_value
from quire.core.errors import (
    FileTooLarge,
    NoSuchEndpoint,
    ServerFailed,
    ServerUnreachable,
    TokenRefused,
)
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.server_info import ServerInfo

MAX_ANSWER_BYTES = 64 * 1024 * 1024
"""The most of one answer read into memory; a longer one is refused."""

DEFAULT_TIMEOUT = 30.0
_WAIT_MARGIN = 30.0
_LISTING_CAP = 5000
_HEALTH_BYTES = 64 * 1024

Reload = Callable[[], Awaitable[ServerInfo | None]]
"""Reads server.json again after a 401: a restarted server wrote a new token."""


skip_missing_sniffio()


class _Server:
    """What every view of one server's API shares: where it is and the connections to it.

    The httpx client is made on first use: an ``http://`` server is reached over sockets
    and never needs it, and making one loads the system's certificates (tens of
    milliseconds, on the way of an agent's first call)."""

    def __init__(
        self, info: ServerInfo, make_http: Callable[[], httpx.AsyncClient], *, direct: bool
    ) -> None:
        self.info = info
        self._make_http = make_http
        self._http: httpx.AsyncClient | None = None
        self.sockets = SocketWire() if direct else None

    @property
    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = self._make_http()
        return self._http

    @property
    def through_httpx(self) -> HttpxWire:
        return HttpxWire(self.http)

    async def aclose(self) -> None:
        if self.sockets is not None:
            await self.sockets.aclose()
        if self._http is not None:
            await self._http.aclose()


class QuireApi:
    """The API of one server: ``info`` says where it is and which token it takes.

    Without a ``transport``, requests to an ``http://`` server go over kept-alive sockets
    (``wire.SocketWire``); anything else goes through httpx.
    """

    def __init__(
        self,
        info: ServerInfo,
        *,
        server_file: Path,
        transport: httpx.AsyncBaseTransport | None = None,
        reload: Reload | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        refused: str | None = None,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        if verify is True and info.ca_cert is not None:
            verify = pinned_context(info.ca_cert)

        def make_http() -> httpx.AsyncClient:
            return httpx.AsyncClient(
                transport=transport, timeout=timeout, trust_env=False, verify=verify
            )

        self._server = _Server(info, make_http, direct=transport is None)
        self._server_file = server_file
        self._refused = refused
        self._reload = reload
        self._timeout = timeout
        self._agent: str | None = None
        self._token: str | None = None

    @property
    def info(self) -> ServerInfo:
        """Where the server is, and the token this client sends."""
        return self._server.info

    @property
    def _info(self) -> ServerInfo:
        return self._server.info

    def as_agent(self, name: str | None) -> QuireApi:
        """This API (same server, token and connections) with every request saying it acts
        for the agent ``name`` (the ``X-Quire-Agent`` header); None names no agent."""
        view = copy.copy(self)
        view._agent = None if name is None else (agent_header_value(name) or None)
        return view

    def as_caller(self, token: str | None, refused: str | None = None) -> QuireApi:
        """This API (same server and connections) sending ``token`` instead of its own, with
        ``refused`` as the message of a 401 (None: keep both)."""
        if token is None:
            return self
        view = copy.copy(self)
        view._token = token
        view._reload = None
        if refused is not None:
            view._refused = refused
        return view

    async def account(self) -> AccountView:
        """Which account this client's token signs in as (``GET /api/account``)."""
        data = await self.call_bytes("GET", "/api/account")
        return parse_answer(AccountView, data, self._info.url)

    async def aclose(self) -> None:
        """Close the connections this client (and every view of it) holds."""
        await self._server.aclose()

    async def health(self) -> bool:
        """Whether the server answers ``GET /health`` (no token needed)."""
        answer = await self._health(2.0)
        return answer is not None and answer[0] == httpx.codes.OK

    async def health_report(self) -> Health | None:
        """What the server's ``GET /health`` says (200, or 503 when its database does not
        answer); None when it does not answer or is a Quire that says something else."""
        answer = await self._health(3.0)
        if answer is None or answer[0] not in (httpx.codes.OK, httpx.codes.SERVICE_UNAVAILABLE):
            return None
        try:
            return Health.parse_json(answer[1])
        except AnswerMismatch:
            return None

    async def _health(self, seconds: float) -> tuple[int, bytes] | None:
        """``GET /health``'s status and body; None when no whole answer came."""
        url = self._url("/health")
        try:
            return await self._wire(url).send(
                "GET", url, [], None, seconds=seconds, limit=_HEALTH_BYTES
            )
        except WireError:
            return None

    def _wire(self, url: str) -> Wire:
        """How a request to ``url`` travels: kept-alive sockets when they serve it."""
        server = self._server
        if server.sockets is not None and SocketWire.serves(url):
            return server.sockets
        return server.through_httpx

    async def open(
        self, path: str, mode: str | None = None, line: int | None = None
    ) -> OpenedDocument:
        """Open ``path`` in the window (in ``mode``, at ``line`` when given)."""
        body = _without_none({"path": path, "mode": mode, "line": line})
        data = await self.call_bytes("POST", "/api/documents/open", body)
        return parse_answer(OpenedDocument, data, self._info.url)

    async def current(self) -> CurrentDocument:
        """The active document's path and live text (unsaved edits included)."""
        data = await self.call_bytes("GET", "/api/documents/current")
        return parse_answer(CurrentDocument, data, self._info.url)

    async def edit(
        self,
        find: str,
        replace: str,
        *,
        save: bool,
        path: str | None,
        read_versions: dict[str, str] | None = None,
    ) -> Replaced:
        """Replace the unique occurrence of ``find`` in the open document (``read_versions``:
        what this client last read, so the answer's version is its view after the edit)."""
        body = _without_none(
            {
                "find": find,
                "replace": replace,
                "save": save,
                "path": path,
                "read_versions": read_versions or None,
            }
        )
        data = await self.call_bytes("POST", "/api/documents/edit", body)
        return parse_answer(Replaced, data, self._info.url)

    async def stream_edit(
        self,
        find: str,
        replace: str,
        *,
        preview: bool,
        preview_lines: int,
        path: str | None,
        read_versions: dict[str, str] | None = None,
    ) -> StreamPreview:
        """Preview a find/replace (or apply it at once with ``preview=False``)."""
        body = _without_none(
            {
                "find": find,
                "replace": replace,
                "preview": preview,
                "preview_lines": preview_lines,
                "path": path,
                "read_versions": read_versions or None,
            }
        )
        data = await self.call_bytes("POST", "/api/documents/stream-edit", body)
        return parse_answer(StreamPreview, data, self._info.url)

    async def stream_edit_apply(
        self,
        find: str,
        replace: str,
        *,
        edit_id: str | None,
        match_index: int,
        save: bool,
        path: str | None,
        base: str | None = None,
        read_versions: dict[str, str] | None = None,
    ) -> AppliedPreview:
        """Apply occurrence ``match_index`` of a previewed edit, counted in the text ``base``
        names (default: the preview's; without an edit id, ``read_versions``' entry for the
        open document) and merged onto the live text."""
        body = _without_none(
            {
                "edit_id": edit_id,
                "find": find,
                "replace": replace,
                "match_index": match_index,
                "save": save,
                "path": path,
                "base": base,
                "read_versions": read_versions or None,
            }
        )
        data = await self.call_bytes("POST", "/api/documents/stream-edit-apply", body)
        return parse_answer(AppliedPreview, data, self._info.url)

    async def set_content(
        self,
        content: str,
        *,
        save: bool,
        base: str | None = None,
        read_versions: dict[str, str] | None = None,
    ) -> ContentSet:
        """Replace the open document's whole text (merged onto the person's edits since
        ``base``, a version the server gave out, when given; else since the open document's
        entry in ``read_versions``, the versions last read by document id)."""
        body: dict[str, object] = {"content": content, "save": save}
        if base is not None:
            body["base"] = base
        if read_versions:
            body["read_versions"] = read_versions
        data = await self.call_bytes("POST", "/api/documents/set-content", body)
        return parse_answer(ContentSet, data, self._info.url)

    async def present(self, path: str | None) -> Presented:
        """Present ``path`` (or the open document) in the reading view."""
        data = await self.call_bytes("POST", "/api/window/present", _without_none({"path": path}))
        return parse_answer(Presented, data, self._info.url)

    async def window(self) -> Window:
        """The window: its tabs, the active document and its view."""
        data = await self.call_bytes("GET", "/api/window")
        return parse_answer(Window, data, self._info.url)

    async def recent(self, limit: int) -> tuple[RecentDocument, ...]:
        """The recently opened documents, most recent first."""
        data = await self.call_bytes("GET", "/api/recent", params={"limit": limit})
        return parse_answer(Recents, data, self._info.url).recent

    async def recent_documents(self, limit: int) -> RecentDocuments:
        """The recently opened documents that can still be read, described."""
        data = await self.call_bytes("GET", "/api/recent/documents", params={"limit": limit})
        return parse_answer(RecentDocuments, data, self._info.url)

    async def files(self, cursor: str | None = None, limit: int = 1000) -> FilePage:
        """One page of the workspace listing."""
        params: dict[str, Any] = {"limit": limit}
        if cursor is not None:
            params["cursor"] = cursor
        data = await self.call_bytes("GET", "/api/files", params=params)
        return parse_answer(FilePage, data, self._info.url)

    async def all_files(self, cap: int = _LISTING_CAP) -> tuple[list[WorkspaceFile], str | None]:
        """Every listed workspace file up to ``cap``, and a note when the list is incomplete."""
        found: list[WorkspaceFile] = []
        notes: list[str] = []
        cursor: str | None = None
        while True:
            page = await self.files(cursor, limit=min(1000, cap - len(found)))
            found.extend(page.files)
            if page.note:
                notes.append(page.note)
            elif page.truncated:
                notes.append("The server could not list every file of its workspaces.")
            cursor = page.next_cursor
            if cursor is None:
                break
            if len(found) >= cap:
                notes.append(
                    f"Only the first {cap:,} of the {page.total:,} workspace files were listed."
                )
                break
        return found, " ".join(notes) or None

    async def workspaces(self) -> list[str]:
        """The folders the server serves."""
        try:
            data = await self.call_bytes("GET", "/api/workspaces")
        except NoSuchEndpoint:
            # A server without the endpoint still names each file's workspace.
            page = await self.files(limit=1000)
            return list(dict.fromkeys(item.workspace for item in page.files if item.workspace))
        return [item.path for item in parse_answer(WorkspaceList, data, self._info.url).workspaces]

    async def named_workspaces(self) -> list[tuple[str, str]]:
        """The folders the server serves, as (name, path): the name is what grants and
        ``@alias/workspace/…`` addresses call it."""
        data = await self.call_bytes("GET", "/api/workspaces")
        listed = parse_answer(WorkspaceList, data, self._info.url).workspaces
        return [(item.name, item.path) for item in listed]

    async def search(
        self,
        query: str,
        *,
        mode: str = "grep",
        limit: int = 50,
        cursor: str | None = None,
        workspace: str | None = None,
    ) -> SearchPage:
        """One page of the index's search for ``query``."""
        params: dict[str, Any] = {"q": query, "mode": mode, "limit": limit}
        if cursor is not None:
            params["cursor"] = cursor
        if workspace is not None:
            params["workspace"] = workspace
        data = await self.call_bytes("GET", "/api/search", params=params)
        return parse_answer(SearchPage, data, self._info.url)

    async def backlinks(self, path: str) -> Backlinks:
        """The notes linking to the document at ``path``."""
        data = await self.call_bytes("GET", "/api/backlinks", params={"path": path})
        return parse_answer(Backlinks, data, self._info.url)

    async def titles(self, query: str, limit: int = 50) -> Titles:
        """Quick open: documents by title or path."""
        data = await self.call_bytes("GET", "/api/titles", params={"q": query, "limit": limit})
        return parse_answer(Titles, data, self._info.url)

    async def reindex(self) -> Reindexed:
        """Rebuild the server's search index from nothing (waits until it is done)."""
        data = await self.call_bytes("POST", "/api/search/reindex", {}, read_seconds=3600.0)
        return parse_answer(Reindexed, data, self._info.url)

    async def annotations(self, path: str) -> FileAnnotations:
        """The newest review verdict and the tasks of ``path``."""
        data = await self.call_bytes("GET", "/api/annotations", params={"path": path})
        return parse_answer(FileAnnotations, data, self._info.url)

    async def request_review(
        self,
        *,
        path: str | None,
        content: str | None,
        timeout_ms: int | None,
        requested_by: str | None,
    ) -> str:
        """Register a review; returns its id."""
        body = _without_none(
            {
                "path": path,
                "content": content,
                "timeout_ms": timeout_ms,
                "requested_by": requested_by,
            }
        )
        data = await self.call_bytes("POST", "/api/reviews", body)
        return parse_answer(ReviewOutcome, data, self._info.url).review_id

    async def wait_review(self, review_id: str, wait_ms: int) -> ReviewOutcome:
        """Wait up to ``wait_ms`` for the verdict; ``{status: "pending"}`` when none came."""
        data = await self.call_bytes(
            "GET",
            f"/api/reviews/{_segment(review_id)}/wait",
            params={"wait_ms": wait_ms},
            read_seconds=wait_ms / 1000 + _WAIT_MARGIN,
        )
        return parse_answer(ReviewOutcome, data, self._info.url)

    async def resume_review(
        self,
        review_id: str,
        wait_ms: int,
        *,
        path: str | None,
        content: str | None,
        timeout_ms: int | None,
    ) -> ReviewOutcome:
        """Wait on a review again; the server refuses resent arguments that differ."""
        body = _without_none(
            {"wait_ms": wait_ms, "path": path, "content": content, "timeout_ms": timeout_ms}
        )
        data = await self.call_bytes(
            "POST",
            f"/api/reviews/{_segment(review_id)}/wait",
            body,
            read_seconds=wait_ms / 1000 + _WAIT_MARGIN,
        )
        return parse_answer(ReviewOutcome, data, self._info.url)

    async def review(self, review_id: str) -> CheckedReview:
        """The stored record of a review, and whether its file changed since."""
        data = await self.call_bytes("GET", f"/api/reviews/{_segment(review_id)}")
        return parse_answer(CheckedReview, data, self._info.url)

    async def decide(
        self, review_id: str, verdict: str, comments: str | None = None
    ) -> ReviewRecord:
        """Record the person's decision on a review (the web UI's call; tests use it too)."""
        body = _without_none({"verdict": verdict, "comments": comments})
        data = await self.call_bytes("POST", f"/api/reviews/{_segment(review_id)}/decision", body)
        return parse_answer(ReviewRecord, data, self._info.url)

    async def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        params: dict[str, Any] | None = None,
        read_seconds: float | None = None,
    ) -> Any:
        """Send one request and return its decoded JSON answer; errors become QuireErrors."""
        payload = await self.call_bytes(
            method, path, body, params=params, read_seconds=read_seconds
        )
        return decode_answer(payload, self._info.url)

    async def call_bytes(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        params: dict[str, Any] | None = None,
        read_seconds: float | None = None,
    ) -> bytes:
        """Send one request and return its answer's bytes undecoded (an SVG, say), as ``call``."""
        status, payload = await self._send(method, path, body, params, read_seconds)
        if status == httpx.codes.UNAUTHORIZED and self._reload is not None:
            fresh = await self._reload()
            if fresh is not None and fresh.token != self._info.token:
                self._server.info = fresh
                status, payload = await self._send(method, path, body, params, read_seconds)
        if status == httpx.codes.UNAUTHORIZED:
            raise TokenRefused(
                self._refused or token_refused_message(self._info.url, self._server_file)
            )
        if status >= httpx.codes.BAD_REQUEST:
            raise error_from_answer(status, payload, self._info.url)
        return payload

    async def _send(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        params: dict[str, Any] | None,
        read_seconds: float | None,
    ) -> tuple[int, bytes]:
        content = None if body is None else _json_body(body)
        if content is not None and len(content) > MAX_DOCUMENT_BYTES:
            raise too_large_to_send(len(content))
        token = self._token or self._info.token
        headers = [("Authorization", f"Bearer {token}"), ("Accept", "application/json")]
        if content is not None:
            headers.append(("Content-Type", "application/json"))
        if self._agent is not None:
            headers.append((AGENT_HEADER, self._agent))
        url = self._url(path) + query_string(params)
        try:
            return await self._wire(url).send(
                method,
                url,
                headers,
                content,
                seconds=self._timeout if read_seconds is None else read_seconds,
                limit=MAX_ANSWER_BYTES,
            )
        except WireTimeout:
            raise ServerFailed(
                f"The Quire server at {self._info.url} did not answer in time. It may still "
                "finish the request: check the result (for an edit, call get_current_content) "
                "before retrying."
            ) from None
        except AnswerTooLarge:
            raise ServerFailed(
                f"The Quire server at {self._info.url} sent an answer of more than 64 MiB, "
                "which is refused. Ask for less (a smaller limit, or one document at a time)."
            ) from None
        except WireBroken as exc:
            raise ServerUnreachable(self._unreachable(exc.kind)) from None

    def _unreachable(self, kind: str) -> str:
        """Why the server did not answer, and what to do: a server of this machine (it has a
        process id) can be started again here; another machine's (pid 0) cannot."""
        url, pid = self._info.url, self._info.pid
        if pid == 0:
            return (
                f"The Quire server at {url} does not answer ({kind}). Check your network and "
                "the address (`quire whoami @alias` shows the one saved), or ask the server's "
                "admin whether it is running."
            )
        return (
            f"The Quire server at {url} (pid {pid}) does not answer ({kind}). If it was "
            "stopped, start `quire serve` again; if it hangs, stop that process and start it "
            "again."
        )

    def _url(self, path: str) -> str:
        return self._info.url.rstrip("/") + path


def pinned_context(cert_file: str) -> ssl.SSLContext | bool:
    """HTTPS that trusts only the certificate in ``cert_file`` (the one a local server said
    it presents), whatever host name it was made for: the file came from server.json, which
    only this account can read. True (the system's CAs) when the file cannot be read."""
    try:
        context = ssl.create_default_context(cafile=cert_file)
    except (OSError, ssl.SSLError):
        return True
    context.check_hostname = False
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    return context


async def probe_health(info: ServerInfo, server_file: Path) -> bool:
    """Whether the server ``info`` (read from ``server_file``) answers ``GET /health``, over
    fresh connections that are closed after."""
    api = QuireApi(info, server_file=server_file)
    try:
        return await api.health()
    finally:
        await api.aclose()


def too_large_to_send(size: int) -> FileTooLarge:
    """The refusal of a request body of ``size`` bytes, over what the server reads (its body
    limit is the same): said before anything is sent, with what to send instead."""
    return FileTooLarge(
        f"This request is too large to send: its body takes {size:,} bytes once encoded, and "
        f"one request may carry at most {MAX_DOCUMENT_BYTES:,} bytes (16 MiB). Change only "
        "part of the document with edit_document instead of sending all of it, split a large "
        "edit into smaller ones, or pass a review's text as a file path instead of inline "
        "content."
    )


def _json_body(body: dict[str, Any]) -> bytes:
    """``body`` as UTF-8 JSON; pydantic's encoder is several times faster than ``json.dumps``
    on a whole document. A lone surrogate it refuses goes escaped, for the server to judge."""
    try:
        return pydantic_core.to_json(body)
    except pydantic_core.PydanticSerializationError:
        return json.dumps(body).encode()


def _without_none(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if value is not None}


def _segment(text: str) -> str:
    return quote(text, safe="")
