"""File operations of the workspaces for every transport: the window, the API, CLI and MCP."""

from quire.services.files.operations import FileService

__all__ = ["FileService"]
