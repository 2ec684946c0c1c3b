"""Search over the workspaces: the index service, its cursors and the checks on a query."""

from __future__ import annotations

from quire.services.search.queries import checked_query, served_folder
from quire.services.search.service import INDEX_FILE, LIMIT, SearchService

__all__ = ["INDEX_FILE", "LIMIT", "SearchService", "checked_query", "served_folder"]
