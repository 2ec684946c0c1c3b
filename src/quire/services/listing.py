"""The served folders and their Markdown files, as the window's API answers them.

Turns the workspaces' listing (``quire.vault.workspaces``) into the ``quire.api.windows``
answers, walking off the event loop; it never decides what is listed.
"""

from __future__ import annotations

import anyio

from quire.api.windows import FilePage, Workspace, WorkspaceFile, WorkspaceList
from quire.vault.workspaces import PAGE_LIMIT, Workspaces


async def file_page(
    workspaces: Workspaces, cursor: str | None = None, limit: int | None = None
) -> FilePage:
    """One page of the workspaces' Markdown files from ``cursor`` (the previous page's
    ``next_cursor``); ``limit`` is 1 to 1,000 (default 100). Raises InvalidArgument for a
    cursor or limit the listing refuses."""
    page = await anyio.to_thread.run_sync(
        lambda: workspaces.list_files(cursor, PAGE_LIMIT[2] if limit is None else limit)
    )
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
    """The folders the server serves, in the order it was given them."""
    return WorkspaceList(
        workspaces=tuple(
            Workspace(path=str(folder), name=folder.name) for folder in workspaces.folders
        )
    )
