"""The floor of the MCP benchmark: the same SDK over stdio, serving one tool that does nothing.

Run as ``python -m bench.noop_mcp``; ``bench.mcp`` starts it as a subprocess.
"""

from __future__ import annotations

from mcp.server import MCPServer

server: MCPServer = MCPServer("noop")


@server.tool()
def noop() -> str:
    """Answer at once with nothing."""
    return "ok"


if __name__ == "__main__":
    server.run("stdio")
