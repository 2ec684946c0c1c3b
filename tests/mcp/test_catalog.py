"""The tool catalog is a contract: names, order, annotations and schemas are pinned here."""

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.shared.exceptions import MCPError

from mcp import Client
from quire.mcp.catalog import TOOLS, listed_tools, schema_export, tools
from quire.mcp.server import build_server
from tests.mcp.harness import make_harness, text_of

SNAPSHOT = Path(__file__).with_name("tool_catalog.json")

ORDER = [
    "open_file",
    "get_current_content",
    "list_recent",
    "request_review",
    "get_user_annotations",
    "edit_document",
    "search_vault",
    "present_document",
    "list_ai_actions",
    "get_conversation_context",
    "save_conversation_message",
    "diff_documents",
    "stream_edit",
    "stream_edit_apply",
    "export_text",
    "export_metadata",
    "list_chats",
    "create_chat",
    "read_chat",
    "post_chat",
    "wait_chat",
    "list_chat_gifs",
    "set_chat_avatar",
    "get_history",
    "get_version",
    "create_document",
    "edit_canvas",
    "export_markdown_to_pdf",
    "export",
    "replace_document",
    "set_content",
    "move_document",
    "delete_document",
    "restore_version",
]

CHAT_TOOLS = [
    "list_chats",
    "create_chat",
    "read_chat",
    "post_chat",
    "wait_chat",
    "list_chat_gifs",
    "set_chat_avatar",
]

# name: (readOnlyHint, destructiveHint, idempotentHint)
ANNOTATIONS = {
    "open_file": (False, False, True),
    "get_current_content": (True, False, True),
    "list_recent": (True, False, True),
    "request_review": (False, False, False),
    "get_user_annotations": (True, False, True),
    "edit_document": (False, False, False),
    "search_vault": (True, False, True),
    "present_document": (False, False, True),
    "list_ai_actions": (True, False, True),
    "get_conversation_context": (True, False, True),
    "save_conversation_message": (False, False, False),
    "diff_documents": (True, False, True),
    "stream_edit": (False, False, False),
    "stream_edit_apply": (False, False, False),
    "export_text": (True, False, True),
    "export_metadata": (True, False, True),
    "list_chats": (True, False, True),
    "create_chat": (False, False, True),
    "read_chat": (False, False, False),
    "post_chat": (False, False, False),
    "wait_chat": (False, False, False),
    "list_chat_gifs": (True, False, True),
    "set_chat_avatar": (False, False, True),
    "edit_canvas": (False, True, False),
    "export_markdown_to_pdf": (False, True, False),
    "export": (False, True, False),
    "replace_document": (False, True, True),
    "set_content": (False, True, True),
    "create_document": (False, False, False),
    "move_document": (False, True, False),
    "delete_document": (False, True, False),
    "get_history": (True, False, False),
    "get_version": (True, False, False),
    "restore_version": (False, True, False),
}

ARGUMENTS = {
    "open_file": (["path", "mode", "line"], ["path"]),
    "get_current_content": (["offset", "limit"], []),
    "list_recent": (["limit"], []),
    "request_review": (["path", "content", "blocking", "timeout_ms", "wait_ms", "review_id"], []),
    "get_user_annotations": (["path"], ["path"]),
    "edit_document": (["find", "replace", "save", "path"], ["find", "replace"]),
    "search_vault": (["query", "limit", "semantic", "vault", "mode", "cursor"], ["query"]),
    "present_document": (["path"], []),
    "list_ai_actions": (["include_prompts"], []),
    "get_conversation_context": (["session_id", "limit"], ["session_id"]),
    "save_conversation_message": (
        ["session_id", "role", "content", "cited_docs"],
        ["session_id", "role", "content"],
    ),
    "diff_documents": (
        ["path_a", "path_b", "context_lines", "offset", "limit"],
        ["path_a", "path_b"],
    ),
    "stream_edit": (
        ["find", "replace", "preview", "preview_lines", "path", "offset", "diff_offset"],
        ["find", "replace"],
    ),
    "stream_edit_apply": (
        ["edit_id", "find", "replace", "match_index", "save", "path", "base"],
        ["find", "replace"],
    ),
    "export_text": (["path", "offset", "limit"], []),
    "export_metadata": (["path", "offset"], []),
    "list_chats": (["workspace", "as"], []),
    "create_chat": (["path", "title", "private"], ["path"]),
    "read_chat": (["path", "as", "after"], ["path"]),
    "post_chat": (["path", "body", "as"], ["path", "body"]),
    "wait_chat": (["path", "as", "mentions_only", "after", "timeout_seconds"], ["path"]),
    "list_chat_gifs": (["workspace"], []),
    "set_chat_avatar": (["workspace", "as", "pick", "svg"], []),
    "edit_canvas": (["path", "ops", "save"], ["path", "ops"]),
    "export_markdown_to_pdf": (["input", "output", "force", "theme", "paper"], ["input"]),
    "export": (["format", "output_path", "overwrite"], ["format"]),
    "replace_document": (["content", "save", "base"], ["content"]),
    "set_content": (["content", "save", "base"], ["content"]),
    "create_document": (["path", "content", "template"], ["path"]),
    "move_document": (["path", "to", "update_links"], ["path", "to"]),
    "delete_document": (["path"], ["path"]),
    "get_history": (["path", "limit", "cursor"], ["path"]),
    "get_version": (["path", "rev", "offset", "limit"], ["path", "rev"]),
    "restore_version": (["path", "rev"], ["path", "rev"]),
}

# The declared bounds reference A's tool table gives, which the checks enforce.
BOUNDS = {
    ("list_recent", "limit"): (1, 200),
    ("search_vault", "limit"): (1, 200),
    ("get_conversation_context", "limit"): (1, 200),
    ("diff_documents", "context_lines"): (0, 10000),
    ("stream_edit", "preview_lines"): (0, 20),
    ("stream_edit_apply", "match_index"): (0, 4294967295),
    ("request_review", "timeout_ms"): (5000, 600000),
    ("request_review", "wait_ms"): (1000, 600000),
    ("wait_chat", "timeout_seconds"): (1, 300),
    ("wait_chat", "after"): (0, 2147483647),
    ("read_chat", "after"): (0, 2147483647),
    ("get_current_content", "offset"): (1, 100000000),
    ("get_current_content", "limit"): (1, 100000000),
    ("export_text", "offset"): (1, 100000000),
    ("diff_documents", "limit"): (1, 100000000),
    ("stream_edit", "offset"): (0, 4294967295),
    ("stream_edit", "diff_offset"): (1, 100000000),
    ("export_metadata", "offset"): (0, 100000000),
    ("get_history", "limit"): (1, 200),
}


def test_tools_list_in_the_pinned_order_with_destructive_tools_last() -> None:
    names = [tool.name for tool in listed_tools()]
    assert names == ORDER
    destructive = [tool.name for tool in TOOLS if tool.destructive]
    assert names[-len(destructive) :] == destructive


@pytest.mark.parametrize("name", ORDER)
def test_each_tool_carries_its_annotations(name: str) -> None:
    tool = next(tool for tool in listed_tools() if tool.name == name)
    assert tool.annotations is not None
    # readOnlyHint and idempotentHint are left out when false (their default in the spec).
    hints = (
        bool(tool.annotations.read_only_hint),
        tool.annotations.destructive_hint,
        bool(tool.annotations.idempotent_hint),
    )
    assert hints == ANNOTATIONS[name]


@pytest.mark.parametrize("name", ORDER)
def test_each_tool_takes_the_reference_arguments(name: str) -> None:
    tool = next(tool for tool in TOOLS if tool.name == name)
    properties, required = ARGUMENTS[name]
    assert list(tool.input_schema["properties"]) == properties
    assert tool.input_schema.get("required", []) == required
    assert tool.input_schema["additionalProperties"] is False


@pytest.mark.parametrize(("tool_name", "argument"), sorted(BOUNDS))
def test_integer_arguments_declare_their_bounds(tool_name: str, argument: str) -> None:
    tool = next(tool for tool in TOOLS if tool.name == tool_name)
    schema = tool.input_schema["properties"][argument]
    assert (schema["minimum"], schema["maximum"]) == BOUNDS[(tool_name, argument)]


def test_every_integer_argument_declares_a_minimum_and_a_maximum() -> None:
    for tool in TOOLS:
        for name, schema in tool.input_schema["properties"].items():
            if schema.get("type") == "integer":
                assert "minimum" in schema and "maximum" in schema, (tool.name, name)


def test_every_schema_is_valid_json_schema_with_an_object_output() -> None:
    for tool in TOOLS:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.output_schema["type"] == "object"
        assert tool.description and tool.title


def test_the_schemas_match_the_pinned_export() -> None:
    pinned: list[dict[str, Any]] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert schema_export() == pinned, (
        "The tool catalog changed: review the change, then run "
        "`.venv/bin/quire mcp --export-tool-schema > tests/mcp/tool_catalog.json`"
    )


def test_the_export_is_sorted_by_name_with_descriptions() -> None:
    exported = schema_export()
    assert [item["name"] for item in exported] == sorted(ORDER)
    for item in exported:
        for name, schema in item["inputSchema"]["properties"].items():
            assert schema.get("description"), (item["name"], name)


@pytest.mark.anyio
async def test_tools_list_over_the_protocol_carries_schemas_and_annotations(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == ORDER
    by_name = {tool.name: tool for tool in listed}
    for spec in TOOLS:
        assert by_name[spec.name].input_schema == spec.input_schema
        assert by_name[spec.name].output_schema == spec.output_schema


def test_with_chat_off_the_chat_tools_are_not_listed() -> None:
    names = [tool.name for tool in listed_tools(chat_enabled=False)]
    assert names == [name for name in ORDER if name not in CHAT_TOOLS]
    assert [tool.name for tool in tools(chat_enabled=True)] == ORDER


@pytest.mark.anyio
async def test_with_chat_off_a_chat_tool_is_refused_saying_why(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    server = build_server(replace(h.services, chat_enabled=False))
    async with Client(server) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        with pytest.raises(MCPError) as raised:
            await client.call_tool("read_chat", {"path": "c.md"})
        other = await client.call_tool("list_ai_actions", {})
    assert not set(CHAT_TOOLS) & set(listed)
    assert "Chat is turned off" in str(raised.value) and "quire.toml" in str(raised.value)
    assert "actions" in text_of(other)
