"""File operations of the workspaces for every transport: the window, the API, CLI and MCP."""

from quire.services.files.operations import FileService
from quire.services.files.tree import RecentPaths, TreeFeed

__all__ = ["FileService", "RecentPaths", "TreeFeed"]
