"""Searching the served documents for the window: the workspaces' files and the recent
documents, through the same bounded word search (``quire.search.grep``) as the agents' tool.

Checks the query and the bounds, lists what to search and says what was left out; knows
nothing of HTTP and reads files only through ``quire.search.grep``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import anyio

from quire.api.search import SearchAnswer, SearchLine, SearchResult, UnreadFile
from quire.core.errors import InvalidArgument
from quire.core.views import whole_number
from quire.search.grep import MAX_FILES, GrepResult, grep_files, unread_note
from quire.vault.workspaces import Workspaces

LIMIT = (1, 200, 50)
"""How many files one search may return: least, most and default (as the agents' tool)."""

MAX_QUERY_CHARS = 1000
"""The longest query: longer ones are refused, since no line worth finding is that phrase."""

UNREAD_LISTED = 20
"""How many unreadable files an answer names one by one (unread_count counts them all)."""


def checked_query(raw: str | None) -> str:
    """The query to search for: ``raw`` without surrounding spaces, neither empty nor longer
    than 1,000 characters. Raises InvalidArgument naming ``q``."""
    query = (raw or "").strip()
    if not query:
        raise InvalidArgument(
            "`q` must hold the words to search for; it is empty or only spaces.", argument="q"
        )
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(
            f"`q` is {len(query):,} characters long; search for at most {MAX_QUERY_CHARS:,} "
            "characters (a phrase from the line you are looking for).",
            argument="q",
        )
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


async def search_documents(
    workspaces: Workspaces,
    recents: Sequence[Path],
    query: str,
    *,
    limit: int = LIMIT[2],
    workspace: Path | None = None,
) -> SearchAnswer:
    """Search the served folders' documents and the ``recents`` (or only those inside
    ``workspace``) for ``query``, ignoring case; files with the most matching lines first.

    Reads at most 5,000 listed files and 512 MiB of text; files that are not UTF-8, too
    large or not regular documents are skipped and named. Raises InvalidArgument for an
    empty or too long query, a limit outside 1 to 200, or a folder that is not served.
    """
    query = checked_query(query)
    whole_number(limit, "limit", LIMIT[0], LIMIT[1])
    if workspace is not None and workspace not in workspaces.folders:
        raise InvalidArgument(
            f"`workspace` '{workspace}' is not a folder this server serves.", argument="workspace"
        )
    paths, listing_note = await anyio.to_thread.run_sync(
        partial(_listed, workspaces, recents, workspace)
    )
    grep = await anyio.to_thread.run_sync(partial(grep_files, paths, query, around_match=True))
    return _answer(query, grep, limit, listing_note)


def _listed(
    workspaces: Workspaces, recents: Sequence[Path], only: Path | None
) -> tuple[list[Path], str | None]:
    """The files to search, the served folders' first and no file twice, and a note when
    the listing was cut short."""
    listing = workspaces.all_files()
    found = [item.path for item in listing.files if only is None or item.workspace == only]
    notes: list[str] = []
    if listing.note:
        notes.append(listing.note)
    elif listing.truncated:
        notes.append("The server could not list every file of its workspaces.")
    if len(found) > MAX_FILES:
        found = found[:MAX_FILES]
        notes.append(
            f"Only the first {MAX_FILES:,} of the {listing.total:,} workspace files were "
            "searched; pick a workspace to search the rest."
        )
    if only is not None:
        recents = [path for path in recents if path.is_relative_to(only)]
    unique = list(dict.fromkeys([*found, *recents]))
    return unique, " ".join(notes) or None


def _answer(query: str, grep: GrepResult, limit: int, listing_note: str | None) -> SearchAnswer:
    notes = [listing_note] if listing_note else []
    if grep.bytes_cut:
        notes.append(
            "The search stopped after reading 512 MiB of text, so some files were not "
            "searched; pick a workspace to search fewer files."
        )
    unread = unread_note(grep.unread)
    if unread:
        notes.append(unread)
    return SearchAnswer(
        query=query,
        results=tuple(
            SearchResult(
                path=hit.path,
                title=hit.title,
                matches=hit.matches,
                lines=tuple(SearchLine(line=line.line, text=line.text) for line in hit.lines),
            )
            for hit in grep.hits[:limit]
        ),
        total=len(grep.hits),
        searched=grep.searched,
        unread=tuple(
            UnreadFile(path=item.path, reason=item.reason) for item in grep.unread[:UNREAD_LISTED]
        ),
        unread_count=len(grep.unread),
        truncated=listing_note is not None or grep.bytes_cut,
        note=" ".join(notes) or None,
    )
