"""The contract of the HTTP API: pydantic models of every request, answer, error and event.

Imports only ``quire.core`` and pydantic. The server dumps these models, the client parses
them, and the OpenAPI document, MCP output schemas and the UI's TypeScript types come from them.
"""
