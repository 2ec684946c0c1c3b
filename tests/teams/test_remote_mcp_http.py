"""``/mcp`` over Streamable HTTP in multi mode: each call runs with its caller's token.

The whole server (the app with ``/mcp``, as ``quire serve --multi`` builds it) on a real
socket; two accounts use it at once through the official MCP SDK client. A recorder in front
of the app sees every request, the in-process ones the tools make included, so the test can
say which credential each tool's requests really carried.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio
import anyio.lowlevel
import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp import Client
from quire.cli.serve import server_app
from quire.core.agents import AGENT_HEADER
from quire.mcp.catalog import DISK_TOOL_NAMES
from quire.mcp.context import NOT_FROM_DISK
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from tests.mcp.harness import data_of, error_of
from tests.support.machines import machine_under
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

OWNER_TOKEN = "0123456789abcdef" * 4


@dataclass
class Recorder:
    """Every API request the app got: (agent header, bearer token)."""

    seen: list[tuple[str | None, str | None]] = field(default_factory=list)

    def wrap(self, app: ASGIApp) -> ASGIApp:
        async def recording(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http" and scope["path"].startswith("/api/"):
                headers = Headers(scope=scope)
                token = headers.get("authorization", "").partition(" ")[2] or None
                self.seen.append((headers.get(AGENT_HEADER), token))
            await app(scope, receive, send)

        return recording


@dataclass
class World:
    base: str
    services: AppServices
    recorder: Recorder
    workspace: Path

    async def account(
        self, name: str, prefix: str, access: Literal["read", "write"] = "read"
    ) -> str:
        team = self.services.team
        assert team is not None
        await team.accounts.add(name, role="collaborator", password="correct horse battery")
        await team.grants.grant(name, "team", prefix, access=access)
        return (await team.tokens.issue(name, name="agent")).token


@asynccontextmanager
async def multi_server(tmp_path: Path) -> AsyncIterator[World]:
    workspace = tmp_path / "team"
    (workspace / "open").mkdir(parents=True)
    (workspace / "secret").mkdir()
    (workspace / "open" / "plan.md").write_text("# Plan\n\nShip it.\n", encoding="utf-8")
    (workspace / "secret" / "keys.md").write_text("# Keys\n\nhunter2\n", encoding="utf-8")
    settings = Settings(
        workspaces=(workspace,), state_dir=tmp_path / "state", port=4747, mode="multi"
    )
    recorder = Recorder()
    async with open_services(
        settings, token=OWNER_TOKEN, clock=lambda: time.time_ns() // 1_000_000,
        machine=machine_under(tmp_path),
    ) as services:  # fmt: skip
        app = server_app(services)
        app.add_middleware(_Recording, recorder=recorder)
        async with app.router.lifespan_context(app), live_server(app) as port:
            yield World(f"http://127.0.0.1:{port}", services, recorder, workspace.resolve())


class _Recording:
    def __init__(self, app: ASGIApp, recorder: Recorder) -> None:
        self._app = recorder.wrap(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)


Mode = Literal["legacy", "auto"]


async def _use(base: str, token: str, agent: str, mode: Mode, rounds: int) -> list[str]:
    """Connect as ``agent`` with ``token`` and call tools ``rounds`` times; the tool names."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    transport = streamable_http_client(base + "/mcp", http_client=http)
    info = Implementation(name=agent, version="1")
    async with http, Client(transport, client_info=info, mode=mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        for _ in range(rounds):
            data_of(await client.call_tool("list_recent", {"limit": 5}))
            await anyio.lowlevel.checkpoint()
            data_of(await client.call_tool("search_vault", {"query": "plan"}))
    return names


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_two_accounts_at_once_each_call_carries_its_own_token(
    tmp_path: Path, mode: Mode
) -> None:
    async with multi_server(tmp_path) as world:
        alice = await world.account("alice", "open")
        bob = await world.account("bob", "secret")
        listed: dict[str, list[str]] = {}

        async def run(name: str, token: str) -> None:
            listed[name] = await _use(world.base, token, f"{name}-agent", mode, rounds=4)

        async with anyio.create_task_group() as group:
            group.start_soon(run, "alice", alice)
            group.start_soon(run, "bob", bob)
    tokens = {"alice-agent": alice, "bob-agent": bob}
    inner = [(agent, token) for agent, token in world.recorder.seen if agent in tokens]
    assert {agent for agent, _ in inner} == set(tokens)
    assert all(token == tokens[agent] for agent, token in inner), inner
    assert not any(token == OWNER_TOKEN for _, token in world.recorder.seen)
    for names in listed.values():
        assert not DISK_TOOL_NAMES & set(names)
        assert "open_file" in names


async def test_an_account_call_reads_nothing_from_disk_and_cannot_call_disk_tools(
    tmp_path: Path,
) -> None:
    async with multi_server(tmp_path) as world:
        alice = await world.account("alice", "open")
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {alice}"}, timeout=60)
        transport = streamable_http_client(world.base + "/mcp", http_client=http)
        async with http, Client(transport, mode="legacy") as client:
            secret = str(world.workspace / "secret" / "keys.md")
            refused = error_of(await client.call_tool("export_text", {"path": secret}))
            with pytest.raises(MCPError, match="diff_documents works on files on this process"):
                await client.call_tool("diff_documents", {"path_a": secret, "path_b": secret})
    assert NOT_FROM_DISK in refused and "hunter2" not in refused


async def test_the_owner_token_still_reaches_every_tool(tmp_path: Path) -> None:
    async with multi_server(tmp_path) as world:
        names = await _use(world.base, OWNER_TOKEN, "owner-agent", "legacy", rounds=1)
    assert set(names) >= DISK_TOOL_NAMES
    inner = [token for agent, token in world.recorder.seen if agent == "owner-agent"]
    assert inner and set(inner) == {OWNER_TOKEN}


async def test_a_session_is_only_for_the_token_that_opened_it(tmp_path: Path) -> None:
    async with multi_server(tmp_path) as world:
        alice = await world.account("alice", "open")
        bob = await world.account("bob", "secret")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Mcp-Protocol-Version": "2025-06-18",
        }
        opening = (
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
        )
        listing = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
        async with httpx.AsyncClient(base_url=world.base, timeout=30) as http:
            opened = await http.post(
                "/mcp", content=opening, headers=headers | {"Authorization": f"Bearer {alice}"}
            )
            session = opened.headers["mcp-session-id"]
            stolen = await http.post(
                "/mcp",
                content=listing,
                headers=headers | {"Authorization": f"Bearer {bob}", "Mcp-Session-Id": session},
            )
            revoked = await http.post(
                "/mcp",
                content=listing,
                headers=headers | {"Authorization": "Bearer qt_nope", "Mcp-Session-Id": session},
            )
    assert opened.status_code == 200
    assert stolen.status_code == 404
    assert revoked.status_code == 401
    assert "quire user token" in revoked.json()["error"]["message"]


@asynccontextmanager
async def _account_client(world: World, token: str) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    transport = streamable_http_client(world.base + "/mcp", http_client=http)
    async with http, Client(transport, mode="legacy") as client:
        yield client


async def test_an_account_names_files_by_their_path_on_the_server(tmp_path: Path) -> None:
    async with multi_server(tmp_path) as world:
        alice = await world.account("alice", "open")
        plan = str(world.workspace / "open" / "plan.md")
        async with _account_client(world, alice) as client:
            by_workspace = data_of(
                await client.call_tool("open_file", {"path": "team/open/plan.md"})
            )
            only_workspace = data_of(await client.call_tool("open_file", {"path": "open/plan.md"}))
            home = error_of(await client.call_tool("open_file", {"path": "~/open/plan.md"}))
            up = error_of(await client.call_tool("open_file", {"path": "open/../open/plan.md"}))
            secret = error_of(await client.call_tool("open_file", {"path": "secret/keys.md"}))
            missing = error_of(await client.call_tool("open_file", {"path": "secret/none.md"}))
    assert by_workspace["path"] == only_workspace["path"] == plan
    assert "not this machine's home" in home and "team/note.md" in home
    assert "`.`, `..`" in up
    assert "hunter2" not in secret
    assert secret.replace("keys.md", "X") == missing.replace("none.md", "X")


async def test_an_accounts_resources_come_from_the_server_under_its_grants(
    tmp_path: Path,
) -> None:
    async with multi_server(tmp_path) as world:
        alice = await world.account("alice", "open")
        plan = world.workspace / "open" / "plan.md"
        secret = world.workspace / "secret" / "keys.md"
        async with _account_client(world, alice) as client:
            data_of(await client.call_tool("open_file", {"path": str(plan)}))
            recent = await client.read_resource("quire://recent-documents")
            text = await client.read_resource(plan.as_uri())
            listed = {str(item.uri) for item in (await client.list_resources()).resources}
            with pytest.raises(MCPError) as refused:
                await client.read_resource(secret.as_uri())
    described = json.loads(recent.contents[0].text)  # type: ignore[union-attr]
    assert [doc["path"] for doc in described["documents"]] == [str(plan)]
    assert described["documents"][0]["title"] == "Plan"
    assert described["documents"][0]["mtimeMs"] == plan.stat().st_mtime_ns // 1_000_000
    assert described["count"] == 1
    assert "Ship it." in text.contents[0].text  # type: ignore[union-attr]
    assert plan.as_uri() in listed and secret.as_uri() not in listed
    assert "hunter2" not in str(refused.value) and "not a file Quire lists" in str(refused.value)


needs_browser = pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="needs Debian's chromium for PDF export (apt-get install chromium)",
)


@needs_browser
async def test_an_account_exports_to_pdf_through_the_server_under_its_grants(
    tmp_path: Path,
) -> None:
    async with multi_server(tmp_path) as world:
        writer = await world.account("wanda", "open", access="write")
        reader = await world.account("rex", "open")
        async with _account_client(world, writer) as client:
            written = data_of(
                await client.call_tool("export_markdown_to_pdf", {"input": "open/plan.md"})
            )
            secret = error_of(
                await client.call_tool("export_markdown_to_pdf", {"input": "secret/keys.md"})
            )
        async with _account_client(world, reader) as client:
            refused = error_of(
                await client.call_tool(
                    "export_markdown_to_pdf", {"input": "open/plan.md", "output": "open/r.pdf"}
                )
            )
    pdf = world.workspace / "open" / "plan.pdf"
    assert written["path"] == str(pdf) and written["engine"] == "chromium"
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert "hunter2" not in secret and not (world.workspace / "secret" / "keys.pdf").exists()
    assert NOT_FROM_DISK not in refused and not (world.workspace / "open" / "r.pdf").exists()
