"""The checks every search makes on what it is asked before touching the index.

Pure: the query's text and length, and the served folder a ``workspace`` argument names.
"""

from __future__ import annotations

from pathlib import Path

from quire.core.errors import InvalidArgument
from quire.vault.workspaces import Workspaces

MAX_QUERY_CHARS = 1000
"""The longest query: longer ones are refused, since no line worth finding is that phrase."""


def checked_query(raw: str | None, *, argument: str = "q") -> str:
    """The query to search for: ``raw`` without surrounding spaces, neither empty nor longer
    than 1,000 characters, and UTF-8 text. Raises InvalidArgument naming ``argument``."""
    query = (raw or "").strip()
    if not query:
        raise InvalidArgument(
            f"`{argument}` must hold the words to search for; it is empty or only spaces.",
            argument=argument,
        )
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(
            f"`{argument}` is {len(query):,} characters long; search for at most "
            f"{MAX_QUERY_CHARS:,} characters (a phrase from the line you are looking for).",
            argument=argument,
        )
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            f"`{argument}` holds a lone surrogate, which is not text; send UTF-8 text.",
            argument=argument,
        ) from None
    return query


def served_folder(workspaces: Workspaces, raw: str) -> Path:
    """The served folder ``raw`` names (its path, as GET /api/workspaces lists it).
    Raises InvalidArgument naming ``workspace`` and the served folders."""
    if raw.startswith("/") and "\0" not in raw:
        for folder in workspaces.folders:
            if Path(raw) == folder:
                return folder
    names = ", ".join(f"'{folder}'" for folder in workspaces.folders)
    raise InvalidArgument(
        f"`workspace` {raw!r} is not a folder this server serves. Pass one of: {names} "
        "(GET /api/workspaces lists them), or leave workspace out to search them all.",
        argument="workspace",
    )
