"""Every tool's advertised schema, driven through the strict check with bad values.

Each case must come back as an ``isError`` result naming the argument, before the tool does
anything: no server is running and none may be started (the link cannot start one).
"""

from pathlib import Path
from typing import Any

import pytest

from mcp import Client
from quire.mcp.catalog import TOOLS
from quire.mcp.context import ToolSpec
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio

GOOD: dict[str, Any] = {
    "string": "x.md",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": ["a"],
    "object": {},
}
WRONG_TYPES: list[Any] = ["5", 5, 2.5, True, None, [1], {"a": 1}]


def minimal(tool: ToolSpec) -> dict[str, Any]:
    """Valid values for the tool's required arguments."""
    properties = tool.input_schema["properties"]
    values: dict[str, Any] = {}
    for name in tool.input_schema.get("required", []):
        schema = properties[name]
        if "enum" in schema:
            values[name] = schema["enum"][0]
        elif name == "ops":
            values[name] = [{"type": "move_node", "id": "n", "x": 0, "y": 0}]
        else:
            values[name] = GOOD[schema["type"]]
    return values


def _wrong_values(schema: dict[str, Any]) -> list[Any]:
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else list(declared or [])
    wrong: list[Any] = []
    for value in WRONG_TYPES:
        if value is None:
            continue
        if "integer" in types and isinstance(value, int) and not isinstance(value, bool):
            continue
        if "string" in types and isinstance(value, str):
            continue
        if "boolean" in types and isinstance(value, bool):
            continue
        if "array" in types and isinstance(value, list):
            continue
        if "object" in types and isinstance(value, dict):
            continue
        wrong.append(value)
    return wrong


def _bound_cases(schema: dict[str, Any]) -> list[Any]:
    cases: list[Any] = []
    if "minimum" in schema:
        cases.append(schema["minimum"] - 1)
    if "maximum" in schema:
        cases.append(schema["maximum"] + 1)
    if "enum" in schema:
        cases.append("not-a-choice")
    if schema.get("minLength"):
        cases.append("")
    if schema.get("pattern") == r"\S":
        cases.extend([" ", "\t\n "])
    if schema.get("minItems"):
        cases.append([])
    return cases


def cases() -> list[tuple[str, str, Any]]:
    found: list[tuple[str, str, Any]] = []
    for tool in TOOLS:
        for name, schema in tool.input_schema["properties"].items():
            for value in _wrong_values(schema) + _bound_cases(schema):
                found.append((tool.name, name, value))
    return found


def _tool(name: str) -> ToolSpec:
    return next(tool for tool in TOOLS if tool.name == name)


@pytest.mark.parametrize(("tool_name", "argument", "value"), cases())
async def test_a_value_the_schema_refuses_is_an_error_naming_the_argument(
    tmp_path: Path, tool_name: str, argument: str, value: Any
) -> None:
    h = make_harness(tmp_path)
    arguments = {**minimal(_tool(tool_name)), argument: value}
    async with Client(h.server) as client:
        message = error_of(await client.call_tool(tool_name, arguments))
    assert f"`{argument}`" in message
    assert not (h.state / "server.json").exists()


@pytest.mark.parametrize("tool_name", [tool.name for tool in TOOLS])
async def test_an_undeclared_argument_is_named_with_the_closest_match(
    tmp_path: Path, tool_name: str
) -> None:
    h = make_harness(tmp_path)
    tool = _tool(tool_name)
    properties = list(tool.input_schema["properties"])
    typo = properties[0] + properties[0][-1] if properties else "path"
    async with Client(h.server) as client:
        message = error_of(await client.call_tool(tool_name, {**minimal(tool), typo: "v"}))
    assert f"`{typo}` is not an argument of {tool_name}" in message
    if properties:
        assert f"Did you mean `{properties[0]}`?" in message
    else:
        assert "takes no arguments" in message


@pytest.mark.parametrize(
    ("tool_name", "argument"),
    [(tool.name, name) for tool in TOOLS for name in tool.input_schema.get("required", [])],
)
async def test_a_missing_required_argument_is_named(
    tmp_path: Path, tool_name: str, argument: str
) -> None:
    h = make_harness(tmp_path)
    arguments = minimal(_tool(tool_name))
    del arguments[argument]
    async with Client(h.server) as client:
        message = error_of(await client.call_tool(tool_name, arguments))
    assert f"`{argument}` is required" in message


ADVERSARIAL_PATHS = [
    ("a\0b.md", "NUL byte"),
    ("\ud800.md", "cannot be part of a file name"),
    ("/etc/passwd", "not inside an allowed folder"),
    ("../escape.md", "not inside an allowed folder"),
    ("folder", "folder"),
]


PATH_ARGUMENTS = [
    ("open_file", "path"),
    ("present_document", "path"),
    ("request_review", "path"),
    ("get_user_annotations", "path"),
    ("export_text", "path"),
    ("export_metadata", "path"),
    ("diff_documents", "path_a"),
    ("edit_canvas", "path"),
    ("search_vault", "vault"),
]


@pytest.mark.parametrize(
    ("tool_name", "argument", "raw", "fragment"),
    [
        (tool, argument, raw, fragment)
        for tool, argument in PATH_ARGUMENTS
        for raw, fragment in ADVERSARIAL_PATHS
        # A folder is a valid vault, and a canvas's name is checked before its path.
        if not (raw == "folder" and tool in ("search_vault", "edit_canvas"))
    ],
)
async def test_a_hostile_path_is_refused_by_every_path_tool(
    tmp_path: Path, tool_name: str, argument: str, raw: str, fragment: str
) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "folder").mkdir()
    (h.workspace / "ok.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "escape.md").write_text("x\n", encoding="utf-8")
    arguments = {**minimal(_tool(tool_name)), argument: raw}
    if tool_name == "diff_documents":
        arguments["path_b"] = "ok.md"
    if tool_name == "edit_canvas":
        arguments[argument] = raw[:-3] + ".canvas" if raw.endswith(".md") else raw + ".canvas"
    async with Client(h.server) as client:
        result = await client.call_tool(tool_name, arguments)
    if fragment == "folder" and tool_name == "get_user_annotations":
        # Annotations answer with no tasks and say why, rather than failing.
        assert fragment in data_of(result)["tasksNote"]
    else:
        assert fragment in error_of(result)
    assert not (h.state / "server.json").exists()
