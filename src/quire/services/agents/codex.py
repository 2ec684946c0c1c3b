"""Codex's MCP registration: ``codex mcp get --json/add/remove``, and how to read the JSON
``codex mcp get`` prints (older versions put ``command`` at the top, newer ones in
``transport``).
"""

from __future__ import annotations

import json

from quire.services.agents.mcp_cli import McpCli
from quire.services.agents.registration import SERVER_NAME, Found

NAME = "Codex"
NEXT_STEP = (
    "Next: start a new Codex session (it reads its servers when it starts), then ask it to "
    "open its plan in Quire and request your review."
)


def parse_get(printed: str) -> Found:
    """The program and arguments in ``codex mcp get NAME --json`` output."""
    try:
        data = json.loads(printed)
    except ValueError:
        return Found(None)
    if not isinstance(data, dict):
        return Found(None)
    transport = data.get("transport")
    server = transport if isinstance(transport, dict) else data
    command = server.get("command")
    args = server.get("args")
    if isinstance(command, str) and command:
        listed = args if isinstance(args, list) else []
        return Found(command, tuple(str(arg) for arg in listed))
    url = server.get("url")
    if isinstance(url, str) and url:
        return Found(None, (), f"the URL {url}")
    return Found(None)


CODEX = McpCli(
    name=NAME,
    agent_id="codex",
    program="codex",
    get_args=("mcp", "get", SERVER_NAME, "--json"),
    remove_args=("mcp", "remove", SERVER_NAME),
    add_prefix=("mcp", "add", SERVER_NAME),
    parse=parse_get,
    next_step=NEXT_STEP,
)
"""Codex, whose ``mcp add`` writes ``[mcp_servers.quire]`` to ``~/.codex/config.toml``."""
