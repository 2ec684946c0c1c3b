"""The served folders and their Markdown files, as the window's API answers them.

Turns the workspaces' listing (``quire.vault.workspaces``) into the ``quire.api.windows``
answers, walking off the event loop; it never decides what is listed. In multi mode an account
is shown only what its grants reach, file by file: the pages, their ``total`` and their
cursors are those of the files it may read, so nothing counts the others.
"""

from __future__ import annotations

import bisect

import anyio

from quire.api.windows import FilePage, Workspace, WorkspaceFile, WorkspaceList
from quire.services.users.access import Access, current_access
from quire.vault.workspaces import PAGE_LIMIT, Workspaces, decode_cursor, encode_cursor
from quire.vault.workspaces import FilePage as Listing
from quire.vault.workspaces import WorkspaceFile as Listed

INCOMPLETE = (
    "Some files of the workspaces could not be listed (the listing's limits, or folders the "
    "server cannot read); ask the server's operator if a file you expect is missing."
)
"""The note of an account's listing: the server's own note may name or count other files."""


async def file_page(
    workspaces: Workspaces, cursor: str | None = None, limit: int | None = None
) -> FilePage:
    """One page of the workspaces' Markdown files from ``cursor`` (the previous page's
    ``next_cursor``); ``limit`` is 1 to 1,000 (default 100). Raises InvalidArgument for a
    cursor or limit the listing refuses. In multi mode only the files the request may read
    are listed (and counted)."""
    size = PAGE_LIMIT[2] if limit is None else limit
    access = current_access()
    if access.restricted:
        page = await anyio.to_thread.run_sync(_readable_page, workspaces, access, cursor, size)
    else:
        page = await anyio.to_thread.run_sync(lambda: workspaces.list_files(cursor, size))
    return FilePage(
        files=tuple(
            WorkspaceFile(
                path=str(item.path),
                workspace=str(item.workspace),
                rel_path=item.rel_path,
                mtime_ms=item.mtime_ms,
                size=item.size,
            )
            for item in page.files
        ),
        next_cursor=page.next_cursor,
        total=page.total,
        truncated=page.truncated,
        note=page.note,
    )


def workspace_list(workspaces: Workspaces) -> WorkspaceList:
    """The folders the server serves, in the order it was given them; in multi mode only
    those the request has some grant in."""
    access = current_access()
    return WorkspaceList(
        workspaces=tuple(
            Workspace(path=str(folder), name=folder.name)
            for folder in workspaces.folders
            if not access.restricted or access.sees_folder(folder)
        )
    )


def _readable_page(
    workspaces: Workspaces, access: Access, cursor: str | None, limit: int
) -> Listing:
    """A page of the files ``access`` may read, over the whole listing (read page by page
    from the workspaces, so their walk is shared and reused as for anyone)."""
    low, high, _ = PAGE_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int) or not low <= limit <= high:
        workspaces.list_files(None, limit)  # raises the listing's own refusal
    after = None if cursor is None else decode_cursor(cursor, workspaces.folders)
    visible: list[Listed] = []
    truncated, noted = False, False
    through: str | None = None
    while True:
        page = workspaces.list_files(through, high)
        visible.extend(item for item in page.files if access.may_read(item.path))
        truncated, noted = page.truncated, page.note is not None
        through = page.next_cursor
        if through is None:
            break
    order = {folder: index for index, folder in enumerate(workspaces.folders)}
    start = 0
    if after is not None:
        start = bisect.bisect_right(
            visible, after, key=lambda item: (order[item.workspace], item.rel_path)
        )
    files = visible[start : start + limit]
    more = start + limit < len(visible)
    return Listing(
        files,
        encode_cursor(files[-1]) if more and files else None,
        len(visible),
        truncated=truncated,
        note=INCOMPLETE if noted else None,
    )
