"""The tool catalog: which tools exist, in ``tools/list`` order, and how they are advertised.

The order follows the reference tool table with the destructive tools last, so a client that
shows them in order offers targeted edits before whole rewrites. Tools are listed here
explicitly, never registered by importing a module; the chat tools only while chat is on.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from quire.mcp.actions import LIST_AI_ACTIONS
from quire.mcp.canvas import EDIT_CANVAS
from quire.mcp.chat import CHAT_TOOLS
from quire.mcp.context import ToolSpec
from quire.mcp.conversation import GET_CONVERSATION_CONTEXT, SAVE_CONVERSATION_MESSAGE
from quire.mcp.documents import GET_CURRENT_CONTENT, LIST_RECENT, OPEN_FILE, PRESENT_DOCUMENT
from quire.mcp.edits import (
    EDIT_DOCUMENT,
    REPLACE_DOCUMENT,
    SET_CONTENT,
    STREAM_EDIT,
    STREAM_EDIT_APPLY,
)
from quire.mcp.export_files import EXPORT_TOOLS
from quire.mcp.exports import DIFF_DOCUMENTS, EXPORT_METADATA, EXPORT_TEXT
from quire.mcp.files import CREATE_DOCUMENT, DELETE_DOCUMENT, MOVE_DOCUMENT
from quire.mcp.history import HISTORY_TOOLS, RESTORE_VERSION
from quire.mcp.reviews import GET_USER_ANNOTATIONS, REQUEST_REVIEW
from quire.mcp.search import SEARCH_VAULT

TOOLS: tuple[ToolSpec, ...] = (
    OPEN_FILE,
    GET_CURRENT_CONTENT,
    LIST_RECENT,
    REQUEST_REVIEW,
    GET_USER_ANNOTATIONS,
    EDIT_DOCUMENT,
    SEARCH_VAULT,
    PRESENT_DOCUMENT,
    LIST_AI_ACTIONS,
    GET_CONVERSATION_CONTEXT,
    SAVE_CONVERSATION_MESSAGE,
    DIFF_DOCUMENTS,
    STREAM_EDIT,
    STREAM_EDIT_APPLY,
    EXPORT_TEXT,
    EXPORT_METADATA,
    *CHAT_TOOLS,
    *HISTORY_TOOLS,
    CREATE_DOCUMENT,
    EDIT_CANVAS,
    *EXPORT_TOOLS,
    REPLACE_DOCUMENT,
    SET_CONTENT,
    MOVE_DOCUMENT,
    DELETE_DOCUMENT,
    RESTORE_VERSION,
)

"""Every tool Quire has, in ``tools/list`` order (the chat tools among them)."""

BY_NAME: dict[str, ToolSpec] = {tool.name: tool for tool in TOOLS}

CHAT_TOOL_NAMES: frozenset[str] = frozenset(tool.name for tool in CHAT_TOOLS)

CHAT_OFF = (
    "Chat is turned off in this Quire's settings (`[chat] enabled = false` in quire.toml), "
    "so {name} is not offered. Ask the person to turn it on if the chat tools are needed."
)


DISK_TOOL_NAMES: frozenset[str] = frozenset(
    {"diff_documents", "edit_canvas", "get_conversation_context", "save_conversation_message"}
)
"""The tools that only read and write files on the MCP process's disk (or its conversation
memory), never through the server: not offered to a remote call, where the server alone
checks an account's grants (``ToolEnv.remote``)."""

NOT_REMOTE = (
    "{name} works on files on this process's disk, which Quire does not offer for an "
    "account's call (its grants are checked by the server's API only), so it is not offered "
    "here. Open documents with open_file and read them with get_current_content."
)


def tools(chat_enabled: bool = True, remote: bool = False) -> tuple[ToolSpec, ...]:
    """The tools offered: every tool, without the chat tools while chat is off, and without
    the disk tools for a remote call."""
    if chat_enabled and not remote:
        return TOOLS
    return tuple(tool for tool in TOOLS if offered(tool.name, chat_enabled, remote) is not None)


def offered(name: str, chat_enabled: bool = True, remote: bool = False) -> ToolSpec | None:
    """The tool ``name`` when it is offered, else None."""
    if not chat_enabled and name in CHAT_TOOL_NAMES:
        return None
    if remote and name in DISK_TOOL_NAMES:
        return None
    return BY_NAME.get(name)


NO_SERVER_TOOLS: tuple[str, ...] = (
    "export_text (with path)",
    "export_metadata (with path)",
    "diff_documents",
    "edit_canvas",
    "search_vault (with vault)",
    "get_user_annotations (tasks from disk)",
    "list_ai_actions",
    "get_conversation_context",
    "save_conversation_message",
    "export_markdown_to_pdf",
)
"""The tools that work with no server, as the instructions name them."""


def advertised(tool: ToolSpec) -> types.Tool:
    """The tool as ``tools/list`` shows it: schemas, annotations and a title (given once, not
    again in the annotations: every tools/list carries it)."""
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema,
        output_schema=tool.output_schema,
        # A hint left out means its default in the MCP spec: readOnlyHint and idempotentHint
        # default to false (sent only when true); destructiveHint and openWorldHint default to
        # true, so their false is always sent. Every tools/list carries them, so the bytes count.
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only or None,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent or None,
            open_world_hint=False,
        ),
    )


def listed_tools(chat_enabled: bool = True, remote: bool = False) -> list[types.Tool]:
    """Every offered tool in ``tools/list`` order."""
    return [advertised(tool) for tool in tools(chat_enabled, remote)]


def schema_export() -> list[dict[str, Any]]:
    """Every tool sorted by name with its complete input schema and description
    (``quire mcp --export-tool-schema``)."""
    return [
        {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description,
            "inputSchema": tool.input_schema,
            "outputSchema": tool.output_schema,
            "annotations": {
                "readOnlyHint": tool.read_only,
                "destructiveHint": tool.destructive,
                "idempotentHint": tool.idempotent,
                "openWorldHint": False,
            },
        }
        for tool in sorted(TOOLS, key=lambda tool: tool.name)
    ]
