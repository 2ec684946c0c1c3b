from pathlib import Path

import pytest

from mcp import Client
from quire.mcp.actions import ACTIONS
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio


async def test_the_actions_come_with_their_prompt_templates(tmp_path: Path) -> None:
    h = make_harness(tmp_path, default_workspace=False)
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("list_ai_actions", {}))
    assert data["count"] == len(data["actions"]) == len(ACTIONS)
    ids = [action["id"] for action in data["actions"]]
    assert {"explain", "summarize", "rewrite", "translate"} <= set(ids)
    assert len(set(ids)) == len(ids)
    for action in data["actions"]:
        assert "{text}" in action["userPromptTemplate"]
        assert action["systemPrompt"]
        assert action["scope"] in ("selection", "document")
        assert ("{arg}" in action["userPromptTemplate"]) == ("argument" in action)


async def test_include_prompts_false_leaves_the_templates_out(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("list_ai_actions", {"include_prompts": False}))
    for action in data["actions"]:
        assert "systemPrompt" not in action
        assert "userPromptTemplate" not in action


@pytest.mark.parametrize("value", ["no", 0, "false", None])
async def test_include_prompts_takes_only_a_boolean(tmp_path: Path, value: object) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        result = await client.call_tool("list_ai_actions", {"include_prompts": value})
    if value is None:
        assert "systemPrompt" in data_of(result)["actions"][0]
    else:
        assert "`include_prompts` must be a boolean" in error_of(result)
