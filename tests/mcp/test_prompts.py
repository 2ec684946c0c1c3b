from pathlib import Path

import mcp_types as types
import pytest

from mcp import Client, MCPError
from quire.mcp.resources import RESOURCE_NOT_FOUND, SERVER_ERROR
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import make_harness

pytestmark = pytest.mark.anyio


async def test_the_three_prompts_are_listed_and_say_they_take_no_arguments(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["summarize", "review_plan", "improve_writing"]
    for prompt in prompts:
        assert not prompt.arguments
        assert "takes no arguments" in (prompt.description or "")
        assert "-32000" in (prompt.description or "")


@pytest.mark.parametrize("name", ["summarize", "review_plan", "improve_writing"])
async def test_a_prompt_embeds_the_live_document(tmp_path: Path, name: str) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "plan.md").write_text("# Plan\nStep.\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "plan.md"})
            await client.call_tool("edit_document", {"find": "Step.", "replace": "Unsaved step."})
            result = await client.get_prompt(name, {})
    [message] = result.messages
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text.endswith("# Plan\nUnsaved step.\n")
    assert str(h.mcp.workspace / "plan.md") in message.content.text


async def test_a_prompt_with_nothing_open_is_resource_not_found(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("summarize")
    assert caught.value.code == RESOURCE_NOT_FOUND


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("sumarize", None, "Did you mean `summarize`?"),
        ("", None, "Quire's prompts are"),
        ("summarize", {"path": "a.md"}, "takes no arguments, got `path`"),
    ],
)
async def test_a_bad_prompt_request_is_invalid_params(
    tmp_path: Path, name: str, arguments: dict[str, str] | None, fragment: str
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt(name, arguments)
    assert caught.value.code == -32602
    assert fragment in caught.value.message


async def test_a_prompt_without_a_server_that_cannot_start_is_a_server_error(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("summarize")
    assert caught.value.code == SERVER_ERROR
    assert "No Quire server is running" in caught.value.message
