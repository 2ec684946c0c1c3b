"""The conversation memory tools: get_conversation_context and save_conversation_message.

Both work with no server, on the session files of ``quire.memory`` in the state folder;
this module only maps arguments to the store and its results back to JSON.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio

from quire.mcp import schemas as s
from quire.mcp.arguments import BLANK_PATTERN
from quire.mcp.context import ToolEnv, ToolSpec
from quire.memory.sessions import MAX_CONTEXT_LIMIT, ROLES


async def get_conversation_context_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """The last messages of a session, oldest first, and the documents they cite."""
    store = env.services.sessions
    limit = int(args.get("limit", 20))
    context = await anyio.to_thread.run_sync(store.context, args["session_id"], limit)
    return dataclasses.asdict(context)


async def save_conversation_message_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Append one message to a session's memory."""
    store = env.services.sessions
    saved = await anyio.to_thread.run_sync(
        lambda: store.save(
            args["session_id"], args["role"], args["content"], args.get("cited_docs")
        )
    )
    return {key: value for key, value in dataclasses.asdict(saved).items() if value is not None}


_SESSION_ID = s.text(
    "The conversation session's id, such as the task's name. Letters, digits, - and _ are "
    "kept in its file name; other bytes take three each, up to 200.",
    filled=True,
)
_MESSAGE = {
    "type": "object",
    "properties": {
        "id": s.STRING,
        "sessionId": s.STRING,
        "role": s.STRING,
        "content": s.STRING,
        "citedDocs": {"type": "array", "items": s.STRING},
        "timestampMs": s.INTEGER,
    },
    "required": ["id", "sessionId", "role", "content", "citedDocs", "timestampMs"],
}

GET_CONVERSATION_CONTEXT = ToolSpec(
    name="get_conversation_context",
    title="Read conversation memory",
    description=(
        "The last messages (oldest first) of a conversation session's memory, kept on disk "
        "in Quire's state folder, and recentDocs: the documents they cite, most recently "
        "cited first. An unknown session is empty. Needs no server."
    ),
    input_schema=s.obj(
        {
            "session_id": _SESSION_ID,
            "limit": s.integer("How many messages to return.", 1, MAX_CONTEXT_LIMIT, 20),
        },
        ["session_id"],
    ),
    output_schema=s.out(
        {
            "sessionId": s.STRING,
            "messages": {"type": "array", "items": _MESSAGE},
            "count": s.INTEGER,
            "recentDocs": {"type": "array", "items": s.STRING},
        },
        ["sessionId", "messages", "count", "recentDocs"],
    ),
    handler=get_conversation_context_tool,
    read_only=True,
    idempotent=True,
)

SAVE_CONVERSATION_MESSAGE = ToolSpec(
    name="save_conversation_message",
    title="Save to conversation memory",
    description=(
        "Append a message to a conversation session's memory (a file in Quire's state "
        "folder, owner-only). cited_docs are stored as absolute paths, each once. A session "
        "is kept within 16 MiB: the oldest messages make room (dropped says how many). "
        "Needs no server."
    ),
    input_schema=s.obj(
        {
            "session_id": _SESSION_ID,
            "role": s.enum("Who said it.", ROLES),
            "content": s.text("The message's text.", filled=True),
            "cited_docs": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "pattern": BLANK_PATTERN},
                "description": (
                    "Documents the message cites: absolute, relative to the working "
                    "directory, or starting with ~/."
                ),
            },
        },
        ["session_id", "role", "content"],
    ),
    output_schema=s.out(
        {
            "ok": s.BOOLEAN,
            "messageId": s.STRING,
            "sessionId": s.STRING,
            "role": s.STRING,
            "timestampMs": s.INTEGER,
            "dropped": s.INTEGER,
            "note": s.STRING,
        },
        ["ok", "messageId", "sessionId", "role", "timestampMs"],
    ),
    handler=save_conversation_message_tool,
)
