"""``/mcp`` over Streamable HTTP, bound to a real app in process, on a real socket."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import Client
from quire.cli.serve import server_app
from quire.mcp.catalog import TOOLS
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from tests.mcp.harness import data_of, error_of
from tests.mcp.test_roots import STATELESS
from tests.support.machines import machine_under
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

TOKEN = "0123456789abcdef" * 4


def clock() -> int:
    return time.time_ns() // 1_000_000


@asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[str]:
    """The whole server (the app with /mcp, as `quire serve` builds it) on a real socket;
    yields the base URL."""
    async with served_app(tmp_path) as (base, _services):
        yield base


@asynccontextmanager
async def served_app(tmp_path: Path) -> AsyncIterator[tuple[str, AppServices]]:
    """As ``served``, and the app's services (to play the person)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=4747)
    async with open_services(
        settings, token=TOKEN, clock=clock, machine=machine_under(tmp_path)
    ) as services:
        quire_app = server_app(services)
        async with quire_app.router.lifespan_context(quire_app), live_server(quire_app) as port:
            yield f"http://127.0.0.1:{port}", services


async def test_the_tools_answer_over_streamable_http(tmp_path: Path) -> None:
    async with served(tmp_path) as base:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
        async with http, Client(streamable_http_client(base + "/mcp", http_client=http)) as client:
            tools = (await client.list_tools()).tools
            opened = data_of(await client.call_tool("open_file", {"path": "a.md"}))
            found = data_of(await client.call_tool("search_vault", {"query": "ALPHA"}))
            refused = error_of(await client.call_tool("export_text", {"path": "/etc/hosts.md"}))
            typo = error_of(await client.call_tool("list_recent", {"limt": 3}))
    assert len(tools) == len(TOOLS)
    assert opened["path"] == str(tmp_path / "ws" / "a.md")
    assert [hit["title"] for hit in found["results"]] == ["A"]
    assert "not inside an allowed folder" in refused
    assert "Did you mean `limit`?" in typo


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic " + TOKEN])
async def test_mcp_needs_the_bearer_token(tmp_path: Path, header: str | None) -> None:
    async with served(tmp_path) as base:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if header is not None:
            headers["Authorization"] = header
        async with httpx.AsyncClient() as http:
            response = await http.post(base + "/mcp", headers=headers, content=b"{}")
    assert response.status_code == 401
    assert "Bearer" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "headers",
    [{"Host": "evil.com"}, {"Origin": "http://evil.com"}],
    ids=["host", "origin"],
)
async def test_mcp_is_behind_the_host_and_origin_check(
    tmp_path: Path, headers: dict[str, str]
) -> None:
    async with served(tmp_path) as base:
        sent = {
            "Authorization": f"Bearer {TOKEN}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }
        async with httpx.AsyncClient() as http:
            response = await http.post(base + "/mcp", headers=sent, content=b"{}")
    assert response.status_code == 403


MALFORMED = [
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', None, -32600, '"id" must be'),
    (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None, -32600, "got a boolean"),
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}', 7, -32602, "an array"),
    (b'{"jsonrpc":"1.0","id":"q","method":"tools/list"}', "q", -32600, '"jsonrpc" must be'),
    (b"[1]", None, -32600, "not an object"),
    (b"nope", None, -32700, "not valid JSON"),
]


@pytest.mark.parametrize(("body", "request_id", "code", "says"), MALFORMED)
async def test_malformed_json_rpc_over_http_gets_the_error_the_specification_names(
    tmp_path: Path, body: bytes, request_id: object, code: int, says: str
) -> None:
    async with served(tmp_path) as base:
        headers = {
            "Authorization": f"Bearer {TOKEN}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        async with httpx.AsyncClient(headers=headers) as http:
            initialize = await http.post(
                base + "/mcp",
                json={
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                },
            )
            session = {"mcp-session-id": initialize.headers["mcp-session-id"]}
            response = await http.post(base + "/mcp", headers=session, content=body)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] == request_id
    assert answer["error"]["code"] == code
    assert says in answer["error"]["message"]


@pytest.mark.parametrize("era", ["legacy", STATELESS])
async def test_one_http_client_s_read_is_never_another_s_base(tmp_path: Path, era: str) -> None:
    """Agent A reads; the person changes line 3; agent B, which never read, rewrites line 3
    without a base: B's rewrite is a plain replace, not merged from A's read (which would keep
    the person's line and report a conflict B never caused). A legacy client's own read is
    still its base; a 2026-07-28 client, which no connection tells apart, passes base."""
    async with served_app(tmp_path) as (base, services):
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)

        def client() -> Client:
            return Client(streamable_http_client(base + "/mcp", http_client=http), mode=era)

        async with http, client() as a, client() as b:
            doc_id = data_of(await a.call_tool("open_file", {"path": "a.md"}))["docId"]
            data_of(await a.call_tool("get_current_content", {}))
            await services.documents.replace_unique(doc_id, "alpha", "person", author="p")
            plain = data_of(await b.call_tool("set_content", {"content": "# A\n\nagent b\n"}))
            replaced = await services.documents.text(doc_id)
            read = data_of(await b.call_tool("get_current_content", {}))
            await services.documents.replace_unique(doc_id, "# A", "# Person's A", author="p")
            own = {"content": "# A\n\nagent b again\n"}
            if era == STATELESS:
                own["base"] = read["version"]
            merged = data_of(await b.call_tool("set_content", own))
            after = await services.documents.text(doc_id)
    assert plain["conflicts"] == [] and replaced == "# A\n\nagent b\n"
    assert merged["conflicts"] == [] and after == "# Person's A\n\nagent b again\n"
