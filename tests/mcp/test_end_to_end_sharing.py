"""Several agents and a browser on one real ``quire serve``: every read sees every change made
before it, by any of them, and the window names the agent behind each change.

Each agent is a ``quire mcp`` subprocess driven by the SDK's stdio client; the browser is a Yjs
client on the document's WebSocket and a listener on ``/ws/events``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from websockets.asyncio.client import ClientConnection, connect

from bench.yjs_client import yjs_browser
from mcp import Client, StdioServerParameters
from quire.core.server_info import ServerInfo
from quire.services.live.versions import version_of
from tests.mcp.harness import data_of
from tests.mcp.test_end_to_end import PYTHON, environment, serve, wait_for_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ROUNDS = 8
STEP_S = 30


@asynccontextmanager
async def agent(workspace: Path, state: Path, name: str) -> AsyncIterator[Client]:
    """``quire mcp`` over stdio, its client introducing itself as ``name``."""
    params = StdioServerParameters(
        command=PYTHON, args=["-m", "quire.cli.main", "mcp"], env=environment(state), cwd=workspace
    )
    info = types.Implementation(name=name, version="1")
    async with Client(params, mode="legacy", read_timeout_seconds=120, client_info=info) as client:
        yield client


@asynccontextmanager
async def window_events(info: ServerInfo) -> AsyncIterator[ClientConnection]:
    url = info.url.replace("http://", "ws://", 1) + "/ws/events"
    headers = {"Authorization": f"Bearer {info.token}"}
    async with connect(url, additional_headers=headers) as socket:
        yield socket


async def next_event(socket: ClientConnection, kind: str) -> dict[str, Any]:
    """The data of the next event of ``kind`` (earlier events of other kinds are skipped)."""
    with anyio.fail_after(STEP_S):
        while True:
            frame = json.loads(await socket.recv())
            if frame["kind"] == kind:
                data: dict[str, Any] = frame["data"]
                return data


def holding(part: str) -> Callable[[str], bool]:
    return lambda text: part in text


async def content(client: Client) -> str:
    text = data_of(await client.call_tool("get_current_content", {}))["content"]
    assert isinstance(text, str)
    return text


async def test_an_agent_edit_over_stdio_is_shown_under_the_agent_name(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    (workspace / "plan.md").write_text("# Plan\n\n- step one\n", encoding="utf-8")
    with serve(workspace, state) as process:
        info = await wait_for_server(state, process)
        async with window_events(info) as events, agent(workspace, state, "test-agent") as client:
            data_of(await client.call_tool("open_file", {"path": "plan.md"}))
            opened = await next_event(events, "open")
            data_of(await client.call_tool("edit_document", {"find": "one", "replace": "1"}))
            activity = await next_event(events, "activity")
            document = await next_event(events, "document")
    assert opened["author"] == "test-agent"
    assert activity == {"path": str(workspace / "plan.md"), "author": "test-agent", "kind": "edit"}
    assert document["author"] == "test-agent"


async def test_every_read_sees_the_changes_before_it_from_agents_and_the_browser(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    (workspace / "plan.md").write_text("# Plan\n\nstart\n", encoding="utf-8")
    (workspace / "other.md").write_text("# Other\n", encoding="utf-8")
    with serve(workspace, state) as process:
        info = await wait_for_server(state, process)
        async with (
            agent(workspace, state, "agent-a") as first,
            agent(workspace, state, "agent-b") as second,
        ):
            opened = data_of(await first.call_tool("open_file", {"path": "plan.md"}))
            async with (
                yjs_browser(info.url, opened["docId"], info.token) as typing,
                yjs_browser(info.url, opened["docId"], info.token) as watching,
            ):
                for index in range(ROUNDS):
                    # An agent's edit is seen by the other agent's very next read, and by
                    # the browser.
                    writer, reader = (first, second) if index % 2 == 0 else (second, first)
                    mark = f"agent-{index}"
                    data_of(
                        await writer.call_tool(
                            "edit_document", {"find": "start", "replace": f"start {mark}"}
                        )
                    )
                    assert mark in await content(reader)
                    with anyio.fail_after(STEP_S):
                        await typing.until(holding(mark))
                    # The person's keystrokes, once the server has them (a second browser
                    # received them from it), are in the very next read of either agent.
                    typed = f" typed-{index}"
                    typing.insert(len(typing.text), typed)
                    with anyio.fail_after(STEP_S):
                        await watching.until(holding(typed))
                    assert typed in await content(reader)
                    assert typed in await content(writer)
                final = typing.text
            # Opening another document is seen by the other agent's next read.
            data_of(await second.call_tool("open_file", {"path": "other.md"}))
            switched = data_of(await first.call_tool("get_current_content", {}))
            data_of(await first.call_tool("open_file", {"path": "plan.md"}))
            back = await content(second)
    assert switched == {
        "path": str(workspace / "other.md"),
        "content": "# Other\n",
        "dirty": False,
        "version": version_of("# Other\n"),
    }
    assert back == final
    assert all(f"agent-{index}" in final and f"typed-{index}" in final for index in range(ROUNDS))


async def test_edits_from_two_agents_at_once_both_land(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    lines = "".join(f"- item {index}\n" for index in range(2 * ROUNDS))
    (workspace / "plan.md").write_text("# Plan\n\n" + lines, encoding="utf-8")
    with serve(workspace, state) as process:
        await wait_for_server(state, process)
        async with (
            agent(workspace, state, "agent-a") as first,
            agent(workspace, state, "agent-b") as second,
        ):
            data_of(await first.call_tool("open_file", {"path": "plan.md"}))

            async def edit(client: Client, parity: int) -> None:
                for index in range(parity, 2 * ROUNDS, 2):
                    arguments = {"find": f"- item {index}\n", "replace": f"- done {index}\n"}
                    data_of(await client.call_tool("edit_document", arguments))

            async with anyio.create_task_group() as group:
                group.start_soon(edit, first, 0)
                group.start_soon(edit, second, 1)
            seen = await content(first), await content(second)
    expected = "# Plan\n\n" + "".join(f"- done {index}\n" for index in range(2 * ROUNDS))
    assert seen == (expected, expected)
