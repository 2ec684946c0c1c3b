"""HTTP routes of the person's window: its state, present mode, views, tabs, recents and the
workspace file listing.

Thin: parse the request, call the windows service (or the listing), answer its model.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.windows import NoBody, PresentBody, TabBody, ViewBody
from quire.services.listing import file_page, workspace_list
from quire.services.windows import presented_answer, recents_answer, window_answer
from quire.web.answers import answer
from quire.web.arguments import (
    absolute_path,
    query_args,
    query_int,
    read_body,
)
from quire.web.authors import requesting_agent
from quire.web.context import current_user, services_of


async def get_window(request: Request) -> Response:
    """The window: its tabs (docId, path, fileName, view, openedAt), the active docId, its
    view, and whether it is presented."""
    query_args(request, ())
    state = await services_of(request).windows.state(current_user(request))
    return answer(window_answer(state))


async def present(request: Request) -> Response:
    """Show a document in Read view in present (zen) mode: `path`, else the open document.
    Answers `{ok: true, path, docId}`; 409 NotOpen when no path is given and nothing is open.
    A token request's `present` event names the agent of its `X-Quire-Agent` header."""
    body = await read_body(request, PresentBody)
    path = None if body.path is None else absolute_path(body.path)
    opened = await services_of(request).windows.present(
        current_user(request), path, author=requesting_agent(request)
    )
    return answer(presented_answer(opened))


async def leave_present(request: Request) -> Response:
    """Leave present mode (the person pressed Escape); answers the window."""
    await read_body(request, NoBody)
    state = await services_of(request).windows.leave_present(current_user(request))
    return answer(window_answer(state))


async def set_view(request: Request) -> Response:
    """Set the view (read, edit or source) of the open tab `docId`; answers the window."""
    body = await read_body(request, ViewBody)
    state = await services_of(request).windows.set_view(
        current_user(request), body.docId, body.view
    )
    return answer(window_answer(state))


async def activate(request: Request) -> Response:
    """Make the open tab `docId` the active document; answers the window."""
    body = await read_body(request, TabBody)
    state = await services_of(request).windows.activate(current_user(request), body.docId)
    return answer(window_answer(state))


async def close_tab(request: Request) -> Response:
    """Close the tab `docId` (the next tab becomes active); answers the window."""
    body = await read_body(request, TabBody)
    state = await services_of(request).windows.close_tab(current_user(request), body.docId)
    return answer(window_answer(state))


async def recent(request: Request) -> Response:
    """Recently opened documents, newest first: `{recent: [{path, fileName, openedAt}]}`
    (openedAt in ms since the epoch). `limit` is a whole number from 1 to 200 (default 10)."""
    values = query_args(request, ("limit",))
    limit = query_int(values, "limit")
    windows = services_of(request).windows
    documents = (
        await windows.recent(current_user(request))
        if limit is None
        else await windows.recent(current_user(request), limit)
    )
    return answer(recents_answer(documents))


async def recent_documents(request: Request) -> Response:
    """The recently opened documents that can still be read, newest first, each with its
    title, mtimeMs and a 200-character preview: `{documents: [{path, title, mtimeMs,
    preview}], count, skipped: {missing, notDocument, tooLarge, unreadable, notAllowed}}`.
    `limit` (1 to 200, default 10) counts the recents looked at, skipped ones included."""
    values = query_args(request, ("limit",))
    limit = query_int(values, "limit")
    windows = services_of(request).windows
    user = current_user(request)
    described = (
        await windows.recent_documents(user)
        if limit is None
        else await windows.recent_documents(user, limit)
    )
    return answer(described)


async def workspaces(request: Request) -> Response:
    """The folders this server serves: `{workspaces: [{path, name}]}`, in the order given."""
    return answer(workspace_list(services_of(request).workspaces))


async def files(request: Request) -> Response:
    """One page of the Markdown documents in the workspaces: `{files: [{path, workspace,
    relPath, mtimeMs, size}], nextCursor, total, truncated, note?}`. Pass the page's
    nextCursor as `cursor` for the next page; `limit` is 1 to 1,000 (default 100)."""
    values = query_args(request, ("cursor", "limit"))
    limit = query_int(values, "limit")
    page = await file_page(services_of(request).workspaces, values.get("cursor"), limit)
    return answer(page)


routes: list[BaseRoute] = [
    Route("/api/window", get_window, methods=["GET"]),
    Route("/api/window/present", present, methods=["POST"]),
    Route("/api/window/leave-present", leave_present, methods=["POST"]),
    Route("/api/window/view", set_view, methods=["POST"]),
    Route("/api/window/activate", activate, methods=["POST"]),
    Route("/api/window/close", close_tab, methods=["POST"]),
    Route("/api/recent", recent, methods=["GET"]),
    Route("/api/recent/documents", recent_documents, methods=["GET"]),
    Route("/api/files", files, methods=["GET"]),
    Route("/api/workspaces", workspaces, methods=["GET"]),
]
