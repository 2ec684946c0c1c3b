"""Protocol behaviour of Quire's MCP server through the SDK's in-memory client."""

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mcp import Client, MCPError
from quire.mcp.catalog import BY_NAME
from quire.mcp.context import ToolEnv
from quire.mcp.server import INSTRUCTIONS, run_tool
from tests.mcp.harness import error_of, make_harness

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_instructions_name_the_first_tools_the_review_loop_and_disk_tools(
    tmp_path: Path, mode: Any
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server, mode=mode) as client:
        instructions = client.instructions
        tools = (await client.list_tools()).tools
    assert instructions == INSTRUCTIONS
    for words in ("open_file", "shows a document to the person", "review_id", "from disk"):
        assert words in INSTRUCTIONS
    for name in ("diff_documents", "edit_canvas", "list_ai_actions", "save_conversation_message"):
        assert name in INSTRUCTIONS
    assert len(tools) == len(BY_NAME)


@pytest.mark.parametrize(("name", "guess"), [("open_fiel", "open_file"), ("zzz", None)])
async def test_an_unknown_tool_is_a_protocol_error_with_the_closest_name(
    tmp_path: Path, name: str, guess: str | None
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool(name, {})
    assert caught.value.code == -32602
    assert "tools/list" in caught.value.message
    assert (f"Did you mean '{guess}'?" in caught.value.message) == (guess is not None)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_argument_errors_are_tool_results_in_every_protocol_era(
    tmp_path: Path, mode: Any
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server, mode=mode) as client:
        message = error_of(await client.call_tool("list_recent", {"limit": "5"}))
    assert "`limit` must be an integer" in message


async def test_a_bug_in_a_tool_comes_back_as_words(tmp_path: Path) -> None:
    h = make_harness(tmp_path)

    async def broken(env: Any, args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("boom")

    tool = replace(BY_NAME["list_ai_actions"], handler=broken)
    result = await run_tool(tool, ToolEnv(h.services), {})
    assert result.is_error
    assert "list_ai_actions failed unexpectedly (RuntimeError: boom)" in error_of(result)


async def test_arguments_that_are_not_an_object_are_a_tool_error(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    result = await run_tool(BY_NAME["export_text"], ToolEnv(h.services), ["a.md"])
    assert "must be a JSON object" in error_of(result)
