"""HTTP routes of the person's window: its state, present mode, views, tabs, recents and the
workspace file listing.

Thin: parse the request, call the windows service (or the workspaces), render JSON.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from quire.api.windows import NoBody, PresentBody, TabBody, ViewBody
from quire.services.windows import WindowState, window_data
from quire.vault.workspaces import PAGE_LIMIT
from quire.web.arguments import (
    absolute_path,
    query_args,
    query_int,
    read_body,
)
from quire.web.authors import requesting_agent
from quire.web.context import current_user, services_of


async def get_window(request: Request) -> JSONResponse:
    """The window: its tabs (docId, path, fileName, view, openedAt), the active docId, its
    view, and whether it is presented."""
    query_args(request, ())
    state = await services_of(request).windows.state(current_user(request))
    return _window(state)


async def present(request: Request) -> JSONResponse:
    """Show a document in Read view in present (zen) mode: `path`, else the open document.
    Answers `{ok: true, path}`; 409 NotOpen when no path is given and nothing is open. A
    token request's `present` event names the agent of its `X-Quire-Agent` header."""
    body = await read_body(request, PresentBody)
    path = None if body.path is None else absolute_path(body.path)
    opened = await services_of(request).windows.present(
        current_user(request), path, author=requesting_agent(request)
    )
    return JSONResponse({"ok": True, "path": str(opened.path), "docId": opened.doc_id})


async def leave_present(request: Request) -> JSONResponse:
    """Leave present mode (the person pressed Escape); answers the window."""
    await read_body(request, NoBody)
    state = await services_of(request).windows.leave_present(current_user(request))
    return _window(state)


async def set_view(request: Request) -> JSONResponse:
    """Set the view (read, edit or source) of the open tab `docId`; answers the window."""
    body = await read_body(request, ViewBody)
    state = await services_of(request).windows.set_view(
        current_user(request), body.docId, body.view
    )
    return _window(state)


async def activate(request: Request) -> JSONResponse:
    """Make the open tab `docId` the active document; answers the window."""
    body = await read_body(request, TabBody)
    state = await services_of(request).windows.activate(current_user(request), body.docId)
    return _window(state)


async def close_tab(request: Request) -> JSONResponse:
    """Close the tab `docId` (the next tab becomes active); answers the window."""
    body = await read_body(request, TabBody)
    state = await services_of(request).windows.close_tab(current_user(request), body.docId)
    return _window(state)


async def recent(request: Request) -> JSONResponse:
    """Recently opened documents, newest first: `[{path, fileName, openedAt}]` (openedAt in
    ms since the epoch). `limit` is a whole number from 1 to 200 (default 10)."""
    values = query_args(request, ("limit",))
    limit = query_int(values, "limit")
    windows = services_of(request).windows
    documents = (
        await windows.recent(current_user(request))
        if limit is None
        else await windows.recent(current_user(request), limit)
    )
    return JSONResponse(
        [
            {"path": str(item.path), "fileName": item.file_name, "openedAt": item.opened_at_ms}
            for item in documents
        ]
    )


async def workspaces(request: Request) -> JSONResponse:
    """The folders this server serves: `{workspaces: [{path, name}]}`, in the order given."""
    folders = services_of(request).workspaces.folders
    return JSONResponse(
        {"workspaces": [{"path": str(folder), "name": folder.name} for folder in folders]}
    )


async def files(request: Request) -> JSONResponse:
    """One page of the Markdown documents in the workspaces: `{files: [{path, workspace,
    relPath, mtimeMs, size}], nextCursor, total, truncated, note?}`. Pass the page's
    nextCursor as `cursor` for the next page; `limit` is 1 to 1,000 (default 100)."""
    values = query_args(request, ("cursor", "limit"))
    limit = query_int(values, "limit")
    cursor = values.get("cursor")
    workspaces = services_of(request).workspaces
    page = await anyio.to_thread.run_sync(
        lambda: workspaces.list_files(cursor, PAGE_LIMIT[2] if limit is None else limit)
    )
    data: dict[str, object] = {
        "files": [
            {
                "path": str(item.path),
                "workspace": str(item.workspace),
                "relPath": item.rel_path,
                "mtimeMs": item.mtime_ms,
                "size": item.size,
            }
            for item in page.files
        ],
        "nextCursor": page.next_cursor,
        "total": page.total,
        "truncated": page.truncated,
    }
    if page.note is not None:
        data["note"] = page.note
    return JSONResponse(data)


def _window(state: WindowState) -> JSONResponse:
    return JSONResponse(window_data(state))


routes: list[BaseRoute] = [
    Route("/api/window", get_window, methods=["GET"]),
    Route("/api/window/present", present, methods=["POST"]),
    Route("/api/window/leave-present", leave_present, methods=["POST"]),
    Route("/api/window/view", set_view, methods=["POST"]),
    Route("/api/window/activate", activate, methods=["POST"]),
    Route("/api/window/close", close_tab, methods=["POST"]),
    Route("/api/recent", recent, methods=["GET"]),
    Route("/api/files", files, methods=["GET"]),
    Route("/api/workspaces", workspaces, methods=["GET"]),
]
