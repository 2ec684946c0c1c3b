"""The floor of the MCP benchmark: the same SDK over stdio, serving tools that do nothing.

``noop`` answers "ok"; ``sized`` answers a text of a given length in the shape
get_current_content uses, so a large document's row can be compared with what the SDK and the
pipe alone cost to carry that many characters.

Run as ``python -m bench.noop_mcp``; ``bench.mcp`` starts it as a subprocess.
"""

from __future__ import annotations

from mcp.server import MCPServer

server: MCPServer = MCPServer("noop")


@server.tool()
def noop() -> str:
    """Answer at once with nothing."""
    return "ok"


@server.tool()
def sized(chars: int) -> dict[str, str]:
    """Answer with ``chars`` characters of text, as get_current_content shapes a document."""
    return {"path": "/bench/plan.md", "content": "x" * chars}


if __name__ == "__main__":
    server.run("stdio")
