"""Routes the browser's document views need besides the agents' API: the Read view's HTML,
task checkbox clicks, the document's saved/conflict state, ending a conflict, and `/open` links.

Thin: parse the request, call the live documents, the window or the rendering service, answer.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote_to_bytes

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from quire.api.documents import (
    Conflict,
    ConflictResolved,
    DocumentState,
    RenderedBlock,
    RenderedBlocks,
    RenderedDocument,
    ResolveConflictBody,
    TaskToggled,
    ToggleTaskBody,
)
from quire.core.errors import InvalidArgument, NotOpen, QuireError
from quire.core.views import OPEN_MODES, OpenMode
from quire.services import rendering
from quire.services.live.document import LiveDocument
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, read_body
from quire.web.context import current_user, services_of

PERSON = "person"
"""The author of the person's own changes made through these routes (a task checkbox)."""

_DOC_ID = re.compile(r"[0-9a-f]{24}")
_LINK_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _doc_id(raw: str | None) -> str:
    if raw is None:
        raise InvalidArgument(
            "`docId` is required: pass the docId of an open tab (GET /api/window lists them).",
            argument="docId",
        )
    if not _DOC_ID.fullmatch(raw):
        raise InvalidArgument(
            f"`docId` must be 24 lowercase hex digits as the window gives them, got {raw!r}.",
            argument="docId",
        )
    return raw


async def _live(request: Request, doc_id: str) -> LiveDocument:
    live = await services_of(request).documents.restore(doc_id)
    if live is None:
        raise NotOpen(
            f"No open document has the id '{doc_id}'. Open the document first "
            "(POST /api/documents/open) and use the docId it answers."
        )
    return live


def _head(part: str | None) -> bool:
    if part not in (None, "head"):
        raise InvalidArgument(
            f"`part` must be head (or left out for the whole document), got {part!r}.",
            argument="part",
        )
    return part == "head"


_VERSION = re.compile(r"[0-9a-f]{16}")


async def rendered_blocks(request: Request) -> Response:
    """The Read view of the open document `docId` by block: `{version, base, start,
    deleteCount, blocks: [{id, html}], total, has_math, has_mermaid, dirty, partial}`. With
    `since` (a `version` this route answered before), only the units that changed since then
    are sent, as one splice of that version's units; without it, or when the server no longer
    knows that version, `base` is left out and `blocks` are every unit. Each unit re-renders
    only when its source changed. `part=head` as for `/api/documents/render`."""
    values = query_args(request, ("docId", "part", "since"))
    head = _head(values.get("part"))
    since = values.get("since")
    if since is not None and not _VERSION.fullmatch(since):
        raise InvalidArgument(
            f"`since` must be a `version` this route answered (16 hex digits), got {since!r}.",
            argument="since",
        )
    live = await _live(request, _doc_id(values.get("docId")))
    remote = services_of(request).settings.loads_remote_images(live.path)
    found = await rendering.render_blocks(live.text(), since=since, head=head, remote_images=remote)
    view, splice = found.view, found.splice
    return answer(
        RenderedBlocks(
            version=view.version,
            base=splice.base,
            start=splice.start,
            delete_count=splice.delete_count,
            blocks=[RenderedBlock(id=unit.id, html=unit.html) for unit in splice.units],
            total=len(view.units),
            has_math=view.rendered.has_math,
            has_mermaid=view.rendered.has_mermaid,
            dirty=live.is_dirty,
            partial=found.partial,
        )
    )


async def rendered_document(request: Request) -> Response:
    """The Read view of the open document `docId`: `{html, has_math, has_mermaid, dirty,
    partial}`, rendered from its live text (unsaved edits included) by the same renderer as
    exports (remote images are click-to-load placeholders unless the document's folder is in
    `preview.remote_images`). `part=head` asks for the beginning of a long document first (up
    to a heading past its first 8 KB; `partial: true`), so the view shows it at once; a short
    document is rendered whole either way."""
    values = query_args(request, ("docId", "part"))
    head = _head(values.get("part"))
    live = await _live(request, _doc_id(values.get("docId")))
    remote = services_of(request).settings.loads_remote_images(live.path)
    view = await rendering.render_document(live.text(), head=head, remote_images=remote)
    return answer(
        RenderedDocument(
            html=view.rendered.html,
            has_math=view.rendered.has_math,
            has_mermaid=view.rendered.has_mermaid,
            dirty=live.is_dirty,
            partial=view.partial,
        )
    )


async def document_state(request: Request) -> Response:
    """Whether the open document `docId` has unsaved edits, and its conflict when its file
    changed on disk under them: `{docId, path, dirty, conflict: {mine, disk} | null}`."""
    values = query_args(request, ("docId",))
    live = await _live(request, _doc_id(values.get("docId")))
    conflict = None
    if live.conflict is not None:
        conflict = Conflict(mine=live.text(), disk=live.conflict)
    return answer(
        DocumentState(
            doc_id=live.doc_id, path=str(live.path), dirty=live.is_dirty, conflict=conflict
        )
    )


async def toggle_task_box(request: Request) -> Response:
    """Tick or clear the task checkbox on `line` (1-based) of the open document `docId`, in
    its live text (the change is unsaved, like any edit). Answers `{ok: true, changed}`."""
    body = await read_body(request, ToggleTaskBody)
    live = await _live(request, _doc_id(body.docId))
    changed = await services_of(request).documents.toggle_task(
        live.doc_id, body.line, body.checked, author=PERSON
    )
    return answer(TaskToggled(changed=changed))


async def resolve_conflict(request: Request) -> Response:
    """End the conflict of the open document `docId`: `keep` "mine" keeps the live text
    (unsaved, now based on the file as it is on disk), "disk" takes the file's text.
    Answers `{ok: true, dirty}`."""
    body = await read_body(request, ResolveConflictBody)
    documents = services_of(request).documents
    live = await _live(request, _doc_id(body.docId))
    await documents.resolve_conflict(live.doc_id, body.keep)
    return answer(ConflictResolved(dirty=live.is_dirty))


def first_values(query: bytes) -> dict[str, bytes]:
    """Each parameter's first value, percent-decoded once (``+`` stays a plus sign)."""
    values: dict[str, bytes] = {}
    for part in query.split(b"&"):
        name, _, value = part.partition(b"=")
        key = unquote_to_bytes(name).decode("utf-8", "replace")
        if key and key not in values:
            values[key] = unquote_to_bytes(value)
    return values


def ignored(reason: str) -> RedirectResponse:
    # The window shows the reason; the link itself changed nothing.
    return RedirectResponse(
        "/#notice=" + quote(reason, safe=""), status_code=303, headers=_LINK_HEADERS
    )


def _link_target(query: bytes) -> tuple[str, OpenMode | None] | str:
    """The path and mode an `/open` link asks for, or why it is ignored."""
    values = first_values(query)
    raw_mode = values.get("mode")
    mode: OpenMode | None = None
    if raw_mode is not None:
        text = raw_mode.decode("utf-8", "replace")
        if text not in OPEN_MODES:
            return f"The link asks for the view {text!r}; Quire opens links in read or edit only."
        mode = "read" if text == "read" else "edit"
    raw_path = values.get("path")
    if not raw_path:
        return "The link names no file: add path=/absolute/path/to/file.md."
    try:
        return raw_path.decode("utf-8"), mode
    except UnicodeDecodeError:
        return "The link's path is not UTF-8 text once percent-decoded; nothing was opened."


async def open_link(request: Request) -> Response:
    """`/open?path=…&mode=read|edit`: open the file in the window, then show the window.

    The path is percent-decoded once; a parameter given twice counts once (the first), other
    parameters are ignored. The same refusals as opening through the API apply; a refused
    link opens nothing and the window says why.
    """
    if request.method != "GET":
        return RedirectResponse("/", status_code=303, headers=_LINK_HEADERS)
    target = _link_target(request.scope.get("query_string", b""))
    if isinstance(target, str):
        return ignored(target)
    path, mode = target
    try:
        await services_of(request).windows.open(current_user(request), absolute_path(path), mode)
    except QuireError as err:
        return ignored(err.message)
    return RedirectResponse("/", status_code=303, headers=_LINK_HEADERS)


routes: list[BaseRoute] = [
    Route("/api/documents/render", rendered_document, methods=["GET"]),
    Route("/api/documents/blocks", rendered_blocks, methods=["GET"]),
    Route("/api/documents/state", document_state, methods=["GET"]),
    Route("/api/documents/toggle-task", toggle_task_box, methods=["POST"]),
    Route("/api/documents/resolve-conflict", resolve_conflict, methods=["POST"]),
    Route("/open", open_link, methods=["GET"]),
]
