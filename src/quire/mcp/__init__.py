"""The MCP server of Quire: tools, resources and prompts over the client layer (SDK v2)."""
