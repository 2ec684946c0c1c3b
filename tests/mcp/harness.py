"""Builds a Quire MCP server over temporary folders for in-memory client tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
from mcp.server import Server

from quire.client.autostart import Starter
from quire.client.connection import ServerLink
from quire.core.server_info import ServerInfo
from quire.mcp.context import Services
from quire.mcp.roots import FolderGate
from quire.mcp.server import build_server
from quire.memory.sessions import SessionStore

NOW_MS = 1_700_000_000_000


@dataclass
class Harness:
    """A workspace (the working directory), a home and a state folder, and the server."""

    workspace: Path
    home: Path
    state: Path
    services: Services
    server: Server[Any]


def make_harness(
    tmp_path: Path,
    *,
    allow: Sequence[Path] = (),
    use_roots: bool = True,
    default_workspace: bool = True,
    fixed: ServerInfo | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    starter: Starter | None = None,
    remote: bool = False,
) -> Harness:
    workspace = tmp_path / "ws"
    home = tmp_path / "home"
    state = tmp_path / "state"
    for folder in (workspace, home):
        folder.mkdir(exist_ok=True)
    link = ServerLink(state=state, starter=starter, fixed=fixed, transport=transport, remote=remote)
    gate = FolderGate(
        allow=list(allow),
        use_roots=use_roots,
        default_workspace=workspace if default_workspace else None,
    )
    sessions = SessionStore(state / "sessions", clock=lambda: NOW_MS, cwd=workspace, home=home)
    services = Services(
        link=link, gate=gate, sessions=sessions, cwd=workspace, home=home, clock=lambda: NOW_MS
    )
    return Harness(workspace, home, state, services, build_server(services))


def text_of(result: types.CallToolResult) -> str:
    """The text content of a tool result (one text block)."""
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def data_of(result: types.CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result, checked against its text."""
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_of(result: types.CallToolResult) -> str:
    """The message of an ``isError`` result."""
    assert result.is_error, f"expected an error, got {text_of(result)}"
    return text_of(result)


def json_text(result: types.CallToolResult) -> Any:
    """The text content decoded as JSON."""
    return json.loads(text_of(result))
