"""The real thing: a `quire serve` process, `quire mcp` as a stdio subprocess, the SDK client.

Only these tests catch wiring bugs between the processes: discovery through server.json,
the token, the HTTP API, and auto-start.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from quire.client.api import QuireApi
from quire.core.server_info import ServerInfo
from quire.settings.server_file import Found, discover, is_process_alive
from tests.mcp.harness import data_of

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

PYTHON = sys.executable


def environment(state: Path) -> dict[str, str]:
    return {**os.environ, "QUIRE_HOME": str(state), "QUIRE_PORT": "0"}


async def wait_for_server(
    state: Path, process: subprocess.Popen[bytes] | None = None
) -> ServerInfo:
    """The server.json of ``state`` once a live server wrote it (bounded wait)."""
    with anyio.fail_after(30):
        while True:
            found = discover(state)
            if isinstance(found, Found):
                return found.info
            if process is not None and process.poll() is not None:
                raise AssertionError(f"quire serve exited with {process.returncode}")
            await anyio.sleep(0.05)


def stop(pid: int) -> None:
    """Stop a server this test started (by its pid) and wait until it is gone."""
    if is_process_alive(pid):
        os.kill(pid, signal.SIGTERM)


@contextmanager
def serve(workspace: Path, state: Path) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [PYTHON, "-m", "quire.cli.main", "serve", "--port", "0", "--no-browser", str(workspace)],
        env=environment(state),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


@asynccontextmanager
async def mcp_client(workspace: Path, state: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=PYTHON,
        args=["-m", "quire.cli.main", "mcp"],
        env=environment(state),
        cwd=workspace,
    )
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        yield client


async def active_review(person: QuireApi) -> dict[str, Any]:
    with anyio.fail_after(30):
        while True:
            found = (await person.call("GET", "/api/reviews/active"))["review"]
            if found is not None:
                return dict(found)
            await anyio.sleep(0.05)


async def test_open_edit_read_back_and_review_through_real_processes(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    plan = workspace / "plan.md"
    plan.write_text("# Plan\n\n## Goals\n\nShip.\n", encoding="utf-8")
    with serve(workspace, state) as process:
        info = await wait_for_server(state, process)
        person = QuireApi(info, server_file=state / "server.json")
        results: list[types.CallToolResult] = []
        try:
            async with mcp_client(workspace, state) as client:
                opened = data_of(await client.call_tool("open_file", {"path": "plan.md"}))
                data_of(
                    await client.call_tool(
                        "edit_document", {"find": "## Goals", "replace": "## Objectives"}
                    )
                )
                current = data_of(await client.call_tool("get_current_content", {}))
                async with anyio.create_task_group() as group:

                    async def ask() -> None:
                        results.append(
                            await client.call_tool("request_review", {"path": "plan.md"})
                        )

                    group.start_soon(ask)
                    review = await active_review(person)
                    with anyio.fail_after(10):
                        await client.session.send_ping()
                    await person.decide(review["reviewId"], "approved", "Go ahead.")
        finally:
            await person.aclose()
    assert opened["path"] == str(plan)
    assert opened["url"] == info.url
    assert current["content"] == "# Plan\n\n## Objectives\n\nShip.\n"
    assert data_of(results[0]) == {
        "verdict": "approved",
        "reviewId": review["reviewId"],
        "comments": "Go ahead.",
    }


async def test_a_tool_that_needs_the_server_starts_one(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    (workspace / "a.md").write_text("# A\n", encoding="utf-8")
    started: ServerInfo | None = None
    try:
        async with mcp_client(workspace, state) as client:
            opened = data_of(await client.call_tool("open_file", {"path": "a.md"}))
            started = await wait_for_server(state)
            listed = await client.list_resources()
    finally:
        if started is not None:
            stop(started.pid)
    assert opened["path"] == str(workspace / "a.md")
    assert "started its server in the background" in opened["note"]
    assert opened["url"] == started.url
    assert any(resource.uri.endswith("/a.md") for resource in listed.resources)


async def test_a_stale_token_gets_one_message_with_the_fix(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    (workspace / "a.md").write_text("- [ ] task\n", encoding="utf-8")
    with serve(workspace, state) as process:
        info = await wait_for_server(state, process)
        server_file = state / "server.json"
        text = server_file.read_text(encoding="utf-8").replace(info.token, "f" * 64)
        server_file.write_text(text, encoding="utf-8")
        async with mcp_client(workspace, state) as client:
            refused = await client.call_tool("get_current_content", {})
            annotations = data_of(await client.call_tool("get_user_annotations", {"path": "a.md"}))
    assert refused.is_error
    [block] = refused.content
    assert isinstance(block, types.TextContent)
    assert "refused the token" in block.text and "start it again" in block.text
    assert annotations["serverAuthFailed"] is True
    assert annotations["tasks"] == [{"line": 1, "checked": False, "text": "task"}]
