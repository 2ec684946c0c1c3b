"""``quire mcp --server @alias``: the stdio MCP server acting for a signed-in account.

Real processes: ``quire serve --multi``, ``quire login`` on a client machine, and ``quire
mcp --server @alias`` driven over stdio by the official MCP SDK client.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from mcp import Client, StdioServerParameters
from quire.mcp.catalog import DISK_TOOL_NAMES
from quire.mcp.context import NOT_FROM_DISK
from tests.mcp.harness import data_of, error_of
from tests.teams.remote_world import Machine, RemoteServer, clean_environment, remote_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    with remote_server(tmp_path_factory.mktemp("remote")) as running:
        yield running


@asynccontextmanager
async def remote_mcp(laptop: Machine, alias: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "quire.cli.main", "mcp", "--server", alias],
        env=clean_environment(laptop.state, laptop.home),
        cwd=laptop.home,
    )
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        yield client


def signed_in(server: RemoteServer, tmp_path: Path, name: str, prefix: str) -> Machine:
    token = server.account(name, grants=[("team", prefix, "read")])
    laptop = server.machine(tmp_path)
    done = laptop.quire("login", "@team", server.url, "--token-stdin", stdin=token)
    assert done.returncode == 0, done.stderr
    return laptop


async def test_an_agent_reads_a_note_its_account_may_read(
    server: RemoteServer, tmp_path: Path
) -> None:
    laptop = signed_in(server, tmp_path, "frank", "open")
    plan = str(server.workspace / "open" / "plan.md")
    async with remote_mcp(laptop, "@team") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        opened = data_of(await client.call_tool("open_file", {"path": plan}))
        current = data_of(await client.call_tool("get_current_content", {}))
        from_disk = error_of(await client.call_tool("export_text", {"path": plan}))
        with pytest.raises(MCPError, match="not offered"):
            await client.call_tool("diff_documents", {"path_a": plan, "path_b": plan})
    assert opened["path"] == plan
    assert "Ship it." in current["content"]
    assert NOT_FROM_DISK in from_disk
    assert not names & DISK_TOOL_NAMES and "open_file" in names


async def test_a_note_the_account_may_not_read_is_not_found(
    server: RemoteServer, tmp_path: Path
) -> None:
    laptop = signed_in(server, tmp_path, "gina", "open")
    secret = str(server.workspace / "secret" / "keys.md")
    missing = str(server.workspace / "secret" / "nothing-here.md")
    async with remote_mcp(laptop, "@team") as client:
        refused = error_of(await client.call_tool("open_file", {"path": secret}))
        absent = error_of(await client.call_tool("open_file", {"path": missing}))
    assert "hunter2" not in refused
    assert refused.replace("keys.md", "X") == absent.replace("nothing-here.md", "X")


async def test_an_unknown_alias_or_a_revoked_token_says_what_to_do(
    server: RemoteServer, tmp_path: Path
) -> None:
    laptop = signed_in(server, tmp_path, "hugo", "open")
    unknown = laptop.quire("mcp", "--server", "@elsewhere")
    assert unknown.returncode == 2 and "quire login @elsewhere URL" in unknown.stderr
    server.user("disable", "hugo")
    plan = str(server.workspace / "open" / "plan.md")
    async with remote_mcp(laptop, "@team") as client:
        refused = error_of(await client.call_tool("open_file", {"path": plan}))
    assert "refused the token saved for it" in refused
    assert f"quire login @team {server.url}" in refused


async def test_relative_paths_name_the_servers_files_not_this_machines(
    server: RemoteServer, tmp_path: Path
) -> None:
    laptop = signed_in(server, tmp_path, "iris", "open")
    (laptop.home / "open").mkdir(parents=True, exist_ok=True)
    (laptop.home / "open" / "plan.md").write_text("# Local plan\n", encoding="utf-8")
    plan = str(server.workspace / "open" / "plan.md")
    async with remote_mcp(laptop, "@team") as client:
        by_workspace = data_of(await client.call_tool("open_file", {"path": "team/open/plan.md"}))
        inside = data_of(await client.call_tool("open_file", {"path": "open/plan.md"}))
        current = data_of(await client.call_tool("get_current_content", {}))
        home = error_of(await client.call_tool("open_file", {"path": "~/open/plan.md"}))
    assert by_workspace["path"] == inside["path"] == plan
    assert "Ship it." in current["content"] and "Local plan" not in current["content"]
    assert "not this machine's home" in home
