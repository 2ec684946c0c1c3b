"""Claude Code's MCP registration: ``claude mcp get/add/remove`` at user scope, and how to
read what ``claude mcp get`` prints.
"""

from __future__ import annotations

from quire.services.agents.mcp_cli import McpCli
from quire.services.agents.registration import SERVER_NAME, Found

NAME = "Claude Code"
NEXT_STEP = (
    "Next: restart Claude Code (quit it and start a new session), then ask it to open its plan "
    "in Quire and request your review. To have the Markdown it writes open by itself, run "
    "`quire connect hook`."
)


def parse_get(printed: str) -> Found:
    """The program and arguments in ``claude mcp get`` output (``Command:`` and ``Args:``
    lines); a server without a Command line is named by its ``URL:``, when it has one."""
    fields: dict[str, str] = {}
    for line in printed.splitlines():
        key, colon, value = line.strip().partition(":")
        if colon and key in ("Command", "Args", "URL", "Type") and key not in fields:
            fields[key] = value.strip()
    command = fields.get("Command")
    if command:
        return Found(command, tuple(fields.get("Args", "").split()))
    if fields.get("URL"):
        return Found(None, (), f"the URL {fields['URL']}")
    if fields.get("Type"):
        return Found(None, (), f"a {fields['Type']} server")
    return Found(None)


CLAUDE = McpCli(
    name=NAME,
    agent_id="claude-code",
    program="claude",
    get_args=("mcp", "get", SERVER_NAME),
    remove_args=("mcp", "remove", "--scope", "user", SERVER_NAME),
    add_prefix=("mcp", "add", "--scope", "user", SERVER_NAME),
    parse=parse_get,
    next_step=NEXT_STEP,
)
"""Claude Code, registered at user scope so Quire is there in every project."""
