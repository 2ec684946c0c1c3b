"""``/mcp`` in ``quire serve``: the same tools over Streamable HTTP, bound to the app in process.

The tools reach the app through the app itself (httpx ``ASGITransport``), so they run the
same client code as ``quire mcp``, past the same auth and limits. This module builds the
endpoint; the composition root (``quire serve``) mounts it on the web app, which runs its
lifespan. It never imports the web layer.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quire.client.connection import ServerLink
from quire.core.server_info import ServerInfo
from quire.core.state import sessions_folder
from quire.mcp.context import Services
from quire.mcp.export_files import Exporter
from quire.mcp.incoming import read_line
from quire.mcp.roots import FolderGate
from quire.mcp.server import build_server
from quire.memory.sessions import SessionStore


@dataclass(frozen=True)
class McpEndpoint:
    """The ``/mcp`` ASGI app and the lifespan it needs while the server runs."""

    app: ASGIApp
    running: Callable[[], AbstractAsyncContextManager[None]]


class _BearerOnly:
    """Lets a request through only with ``Authorization: Bearer <token>``: the server's own
    token (compared in constant time), or with ``accounts`` any token, which the app's sign-in
    in front of ``/mcp`` has already taken and which each tool call sends again, so the app's
    auth decides every call. A browser's session cookie alone never drives the tools.

    Each request is marked with a digest of its token (the SDK's ``scope["user"]``), so a
    session can be used only with the credential that opened it."""

    def __init__(self, app: ASGIApp, token: str, *, accounts: bool) -> None:
        self._app = app
        self._token = token.encode()
        self._accounts = accounts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = Headers(scope=scope).get("authorization", "")
            scheme, _, value = given.partition(" ")
            token = value.strip().encode("utf-8", "surrogateescape")
            own = hmac.compare_digest(token, self._token)
            if scheme.lower() != "bearer" or not token or not (own or self._accounts):
                await _refusal(self._accounts)(scope, receive, send)
                return
            digest = hashlib.sha256(token).hexdigest()
            scope["user"] = AuthenticatedUser(
                AccessToken(token="", client_id=f"quire-{digest}", scopes=[])
            )
        await self._app(scope, receive, send)


def _refusal(accounts: bool) -> JSONResponse:
    where = (
        "an API token of your account (`quire user token USER` on the server, or your account "
        "page), or the token in the server's server.json"
        if accounts
        else "the token in the server's server.json"
    )
    return JSONResponse(
        {
            "error": {
                "type": "Unauthorized",
                "message": f"The /mcp endpoint needs `Authorization: Bearer <token>` with {where}.",
            }
        },
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="quire"'},
    )


class _WellFormed:
    """Answers a POST whose body is not a valid JSON-RPC message with the error JSON-RPC names
    (as ``quire mcp`` does on stdio), before the SDK sees it: the SDK takes a request with
    ``"id": null`` for a notification and answers nothing."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body was in
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        refused = read_line(body)
        if isinstance(refused, types.JSONRPCError):
            answer = refused.model_dump(mode="json", by_alias=True, exclude_unset=True)
            await JSONResponse(answer, status_code=400)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self._app(scope, replay, send)


def mcp_endpoint(
    *,
    app: Callable[[], ASGIApp],
    url: str,
    token: str,
    workspaces: Sequence[Path],
    state: Path,
    home: Path,
    clock: Callable[[], int],
    chat_enabled: bool = True,
    exporter: Exporter | None = None,
    accounts: bool = False,
    stateless: bool = False,
) -> McpEndpoint:
    """Build ``/mcp`` for a running server.

    ``app`` returns the server's own ASGI app (called per request, so the endpoint can be
    built before the app that mounts it); ``url`` and ``token`` are the server's, as in its
    server.json. The tools may use the server's ``workspaces`` only: a remote client's roots
    name folders on its own machine, so they are not asked for. The chat tools are offered
    only with ``chat_enabled``; ``exporter`` is the server's export service, which
    ``export_markdown_to_pdf`` runs in process.

    Each tool call sends the bearer token of the HTTP request that carried it (see
    ``server.caller_token``), so with ``accounts`` (multi mode) an account's call runs under
    that account's grants, checked by the app's own sign-in and services; such a call reads
    nothing from disk itself (``ToolEnv.remote``).

    With ``stateless`` (replicas behind a load balancer) no session outlives its request, so a
    client's next request may reach another replica: a client of the session era gets no
    ``mcp-session-id`` to send back, and nothing is remembered between its calls (a rewrite is
    merged from the ``base`` it names). Alone, each session is kept in this process.
    """

    async def in_process(scope: Scope, receive: Receive, send: Send) -> None:
        await app()(scope, receive, send)

    link = ServerLink(
        state=state,
        fixed=ServerInfo(url=url, token=token, pid=os.getpid()),
        transport=httpx.ASGITransport(app=in_process),
    )
    cwd = workspaces[0] if workspaces else home
    services = Services(
        link=link,
        gate=FolderGate(allow=list(workspaces), use_roots=False, default_workspace=None),
        sessions=SessionStore(sessions_folder(state), clock=clock, cwd=cwd, home=home),
        cwd=cwd,
        home=home,
        clock=clock,
        chat_enabled=chat_enabled,
        exporter=exporter,
        callers=True,
    )
    manager = StreamableHTTPSessionManager(app=build_server(services), stateless=stateless)

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        await manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with manager.run():
            try:
                yield
            finally:
                await link.aclose()

    return McpEndpoint(
        app=_BearerOnly(_WellFormed(serve), token, accounts=accounts), running=running
    )
