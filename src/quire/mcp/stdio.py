"""MCP over stdio: the SDK's transport, plus a JSON-RPC error for each line that is no message.

The SDK drops a line that is not JSON, or not a JSON-RPC message, without a word; JSON-RPC
asks for a Parse error (-32700) or an Invalid Request (-32600) with a null id, so a client
sees its mistake. Nothing else is changed, and stdout carries only protocol messages.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def fault_reply(exc: Exception) -> types.JSONRPCError | None:
    """The error answer to a line that could not be read as a message (None: say nothing)."""
    kind = "other"
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        kind = first["type"]
        if kind == "json_invalid" and not str(first.get("input", "x")).strip():
            return None
    if kind == "json_invalid":
        error = types.ErrorData(
            code=PARSE_ERROR,
            message="Parse error: the line is not valid JSON. Send one JSON-RPC message per line.",
        )
    else:
        error = types.ErrorData(
            code=INVALID_REQUEST,
            message=(
                "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (it needs "
                '"jsonrpc": "2.0", a string or integer "id" for a request, a "method", and '
                '"params" as an object).'
            ),
        )
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until stdin closes."""
    async with stdio_server() as (read_stream, write_stream):
        sender, receiver = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def forward() -> None:
            async with sender:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        reply = fault_reply(item)
                        logger.warning("unreadable message on stdin: %s", type(item).__name__)
                        if reply is not None:
                            await write_stream.send(SessionMessage(reply))
                        continue
                    await sender.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(forward)
            await server.run(receiver, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()
