"""docs/mcp-tools.md documents every tool, argument, resource, prompt and flag."""

import re
from pathlib import Path

import pytest

from quire.cli.mcp import mcp_command
from quire.mcp.catalog import TOOLS
from quire.mcp.context import ToolSpec
from quire.mcp.prompts import PROMPTS
from quire.mcp.resources import RECENT_URI, SEARCH_TEMPLATE, STATIC

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mcp-tools.md"
TEXT = DOCS.read_text(encoding="utf-8")


def section(name: str) -> str:
    """The text of the tool's ``### `name``` section."""
    match = re.search(rf"^### `{re.escape(name)}`\n(.*?)(?=^##|\Z)", TEXT, re.M | re.S)
    assert match is not None, f"docs/mcp-tools.md has no section for the tool {name}"
    return match.group(1)


@pytest.mark.parametrize("tool", TOOLS, ids=[tool.name for tool in TOOLS])
def test_every_tool_and_each_of_its_arguments_is_documented(tool: ToolSpec) -> None:
    text = section(tool.name)
    for argument in tool.input_schema["properties"]:
        assert f"| `{argument}` |" in text, f"{tool.name}'s `{argument}` is undocumented"


def test_the_tools_are_documented_in_list_order() -> None:
    documented = re.findall(r"^### `([a-z_]+)`$", TEXT, re.M)
    assert documented == [tool.name for tool in TOOLS]


def test_every_resource_and_prompt_is_documented() -> None:
    for resource in STATIC:
        assert f"`{resource.uri}`" in TEXT
    assert f"`{SEARCH_TEMPLATE}`" in TEXT and RECENT_URI in TEXT
    for prompt in PROMPTS:
        assert f"`{prompt.name}`" in TEXT


def test_every_flag_of_quire_mcp_is_documented() -> None:
    for parameter in mcp_command.params:
        for flag in parameter.opts:
            if flag.startswith("--"):
                assert f"`{flag}" in TEXT, f"{flag} is undocumented"
