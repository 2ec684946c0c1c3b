"""A tool call acts for the MCP client that made it: the client's name (from its initialize)
reaches the server on every request, so the person's window names that agent, in process and
over /mcp."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import Client
from quire.api.events import Event
from quire.cli.serve import server_app
from quire.core.views import OWNER
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of
from tests.support.machines import machine_under
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

TOKEN = "0123456789abcdef" * 4
PLAN = "# Plan\n\n- step one\n- step two\n"


class Recorder:
    """The owner's window events while a test runs."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def authors(self, kind: str) -> list[object]:
        return [event.data.dump().get("author") for event in self.events if event.kind == kind]


@asynccontextmanager
async def recorded(services: AppServices) -> AsyncIterator[Recorder]:
    recorder = Recorder()
    async with services.bus.subscribe(OWNER) as events, anyio.create_task_group() as group:

        async def collect() -> None:
            async for event in events:
                recorder.events.append(event)

        group.start_soon(collect)
        yield recorder
        await anyio.wait_all_tasks_blocked()
        group.cancel_scope.cancel()


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("edit_document", {"find": "step one", "replace": "step 1"}),
    ("stream_edit", {"find": "step two", "replace": "step 2", "preview": False}),
    ("stream_edit_apply", {"find": "step", "replace": "stage", "match_index": 1}),
    ("set_content", {"content": "# Plan\n\nall new\n"}),
    ("replace_document", {"content": "# Plan\n\nnewer\n"}),
]


@pytest.mark.parametrize(
    ("client_name", "author"),
    [
        ("test-agent", "test-agent"),
        ("claude-code\u202e\n", "claude-code"),
        ("\u200b\0", "agent"),
        ("n" * 100, "n" * 60),
    ],
)
async def test_each_change_names_the_client_that_made_it(
    tmp_path: Path, client_name: str, author: str
) -> None:
    info = types.Implementation(name=client_name, version="1")
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "plan.md").write_text(PLAN, encoding="utf-8")
        async with (
            Client(h.mcp.server, mode="legacy", client_info=info) as client,
            recorded(h.app) as recorder,
        ):
            data_of(await client.call_tool("open_file", {"path": "plan.md"}))
            for name, arguments in CALLS:
                data_of(await client.call_tool(name, arguments))
            data_of(await client.call_tool("present_document", {}))
    assert recorder.authors("activity") == [author] * len(CALLS)
    assert recorder.authors("document") == [author] * len(CALLS)
    assert recorder.authors("open") == [author]
    assert recorder.authors("present") == [author]


async def test_two_clients_of_one_server_are_told_apart(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "plan.md").write_text(PLAN, encoding="utf-8")
        first_info = types.Implementation(name="first-agent", version="1")
        second_info = types.Implementation(name="second-agent", version="1")
        async with (
            Client(h.mcp.server, mode="legacy", client_info=first_info) as first,
            Client(h.mcp.server, mode="legacy", client_info=second_info) as second,
            recorded(h.app) as recorder,
        ):
            data_of(await first.call_tool("open_file", {"path": "plan.md"}))
            data_of(await second.call_tool("edit_document", {"find": "one", "replace": "1"}))
            data_of(await first.call_tool("edit_document", {"find": "two", "replace": "2"}))
            read = data_of(await second.call_tool("get_current_content", {}))
    assert recorder.authors("activity") == ["second-agent", "first-agent"]
    assert read["content"] == "# Plan\n\n- step 1\n- step 2\n"


def clock() -> int:
    return time.time_ns() // 1_000_000


async def test_over_streamable_http_the_client_name_reaches_the_window(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "plan.md").write_text(PLAN, encoding="utf-8")
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=4747)
    info = types.Implementation(name="test-agent", version="1")
    async with open_services(
        settings, token=TOKEN, clock=clock, machine=machine_under(tmp_path)
    ) as services:
        app = server_app(services)
        async with app.router.lifespan_context(app), live_server(app) as port:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
            transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            async with (
                http,
                Client(transport, client_info=info) as client,
                recorded(services) as recorder,
            ):
                data_of(await client.call_tool("open_file", {"path": "plan.md"}))
                data_of(await client.call_tool("edit_document", {"find": "one", "replace": "1"}))
    assert recorder.authors("activity") == ["test-agent"]
    assert recorder.authors("open") == ["test-agent"]
