"""HTTP routes of the open document: open, current content, edits, stream-edit previews and
applies, whole-content replacement and save.

Thin: parse the request, find the open document through the windows service (with the
``path`` assertion), call the live documents (which refuse edits too large to send), answer
with the API's models.
"""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.documents import (
    MERGE_HINT,
    AppliedPreview,
    ApplyBody,
    Candidate,
    ContentBody,
    ContentSet,
    CurrentDocument,
    EditBody,
    MergeConflict,
    OpenBody,
    OpenedDocument,
    Replaced,
    SaveBody,
    Saved,
    StreamEditBody,
    StreamPreview,
)
from quire.services.windows import Opened
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, read_body
from quire.web.authors import request_author, requesting_agent
from quire.web.context import current_user, services_of


async def open_document(request: Request) -> Response:
    """Open the Markdown file at `path` (absolute) in the window and make it the active
    document. `mode` (read or edit) sets its view; without it a tab already open keeps its
    own. `line` (1-based) scrolls there. Answers `{opened: true, path, docId, view,
    browserConnected}`; `browserConnected` says whether a browser window of this user is
    listening for events, so a client knows whether anyone will see the document. A token
    request's `open` event names the agent of its `X-Quire-Agent` header as `author`."""
    body = await read_body(request, OpenBody)
    services = services_of(request)
    user = current_user(request)
    opened = await services.windows.open(
        user, absolute_path(body.path), body.mode, body.line, author=requesting_agent(request)
    )
    return answer(
        OpenedDocument(
            path=str(opened.path),
            doc_id=opened.doc_id,
            view=opened.view,
            browser_connected=services.bus.subscriber_count(user) > 0,
            version=(await services.documents.read(opened.doc_id))[1],
        )
    )


async def current_document(request: Request) -> Response:
    """The open document: `{path, content, docId, dirty}` with its live text, unsaved edits
    included; `{path: null, content: ""}` only when no document is open."""
    query_args(request, ())
    current = await services_of(request).windows.current(current_user(request))
    if current.path is None:
        return answer(CurrentDocument(path=None, content=""))
    return answer(
        CurrentDocument(
            path=str(current.path),
            content=current.content,
            doc_id=current.doc_id,
            dirty=current.dirty,
            version=current.version,
        )
    )


def _read(read_versions: dict[str, str] | None, doc_id: str) -> str | None:
    """The version of ``doc_id`` a caller says it last read, if it says."""
    return None if read_versions is None else read_versions.get(doc_id)


async def edit_document(request: Request) -> Response:
    """Replace the one exact occurrence of `find` with `replace` in the open document (`path`,
    when given, must be it). `save: true` also writes the file. Answers `{ok: true,
    replaced: 1}`; 409 with `matchCount` when find is not found or not unique. The edit is
    attributed to the agent of the `X-Quire-Agent` header (`agent` without one)."""
    body = await read_body(request, EditBody)
    opened = await _target(request, body.path)
    outcome = await services_of(request).documents.replace_unique(
        opened.doc_id,
        body.find,
        body.replace,
        author=request_author(request),
        save=body.save,
        read=_read(body.read_versions, opened.doc_id),
    )
    return answer(Replaced(replaced=1, version=outcome.version, doc_id=outcome.doc_id))


async def stream_edit(request: Request) -> Response:
    """Preview a find/replace on the open document as unified diffs: `{ok, editId, diff,
    candidates, matchCount, applied: false}` (candidates null for one match). With
    `preview: false` the edit is applied at once (find must match once): `applied: true`,
    an empty diff and an editId that names no preview. `preview_lines` is 0 to 20."""
    body = await read_body(request, StreamEditBody)
    opened = await _target(request, body.path)
    documents = services_of(request).documents
    if not body.preview:
        outcome = await documents.replace_unique(
            opened.doc_id,
            body.find,
            body.replace,
            author=request_author(request),
            read=_read(body.read_versions, opened.doc_id),
        )
        return answer(
            StreamPreview(
                edit_id=f"applied-{secrets.token_hex(8)}",
                diff="",
                candidates=None,
                match_count=1,
                applied=True,
                version=outcome.version,
                doc_id=outcome.doc_id,
            )
        )
    previewed = await documents.preview(opened.doc_id, body.find, body.replace, body.preview_lines)
    preview = previewed.preview
    candidates = (
        None
        if preview.candidates is None
        else [
            Candidate(
                match_index=item.matchIndex,
                start_line=item.startLine,
                diff=item.diff,
                rank=item.rank,
            )
            for item in preview.candidates
        ]
    )
    return answer(
        StreamPreview(
            edit_id=previewed.edit_id,
            diff=preview.diff,
            candidates=candidates,
            match_count=preview.matchCount,
            applied=False,
            version=previewed.version,
            doc_id=opened.doc_id,
        )
    )


async def stream_edit_apply(request: Request) -> Response:
    """Apply occurrence `match_index` (0-based, default 0) of a previewed find/replace.
    A given `edit_id` must name a preview of the open document with the same find and
    replace, not yet applied, made from `base` when one is given (409 otherwise). `base`
    (a `version` the server gave out; default: the preview's, or without `edit_id` this
    document's entry in `read_versions`) names the text `match_index` counts in; the edit is
    merged from it onto the live text. Answers `{ok: true, replaced: 1, matchIndex}`."""
    body = await read_body(request, ApplyBody)
    opened = await _target(request, body.path)
    read = _read(body.read_versions, opened.doc_id)
    base = body.base if body.base is not None or body.edit_id is not None else read
    outcome = await services_of(request).documents.apply_preview(
        opened.doc_id,
        body.edit_id,
        body.find,
        body.replace,
        body.match_index,
        author=request_author(request),
        save=body.save,
        base=base,
        read=read,
    )
    return answer(
        AppliedPreview(
            replaced=1,
            match_index=outcome.match_index,
            version=outcome.version,
            doc_id=outcome.doc_id,
        )
    )


async def set_content(request: Request) -> Response:
    """Replace the whole text of the open document (a CRLF document keeps CRLF, a BOM is
    kept), applied as the smallest change. `save: true` also writes the file. With `base`
    (a `version` the server gave out; default: the open document's entry in `read_versions`,
    the caller's last read of each document by docId) the rewrite is merged onto the
    person's edits since."""
    body = await read_body(request, ContentBody)
    opened = await _target(request, body.path)
    base = body.base
    if base is None:
        base = _read(body.read_versions, opened.doc_id)
    done = await services_of(request).documents.set_content(
        opened.doc_id,
        body.content,
        author=request_author(request),
        save=body.save,
        base=base,
    )
    conflicts = tuple(
        MergeConflict(
            start_line=conflict.start_line,
            end_line=conflict.end_line,
            agent_text=conflict.agent_text,
            hint=MERGE_HINT,
        )
        for conflict in done.conflicts
    )
    return answer(ContentSet(version=done.version, conflicts=conflicts, doc_id=opened.doc_id))


async def save_document(request: Request) -> Response:
    """Write the open document's live text to its file; answers `{ok: true, path}`."""
    body = await read_body(request, SaveBody)
    opened = await _target(request, body.path)
    await services_of(request).documents.save(opened.doc_id, author=request_author(request))
    return answer(Saved(path=str(opened.path)))


async def _target(request: Request, path: str | None) -> Opened:
    asserted = None if path is None else absolute_path(path)
    return await services_of(request).windows.target(current_user(request), asserted)


routes: list[BaseRoute] = [
    Route("/api/documents/open", open_document, methods=["POST"]),
    Route("/api/documents/current", current_document, methods=["GET"]),
    Route("/api/documents/edit", edit_document, methods=["POST"]),
    Route("/api/documents/stream-edit", stream_edit, methods=["POST"]),
    Route("/api/documents/stream-edit-apply", stream_edit_apply, methods=["POST"]),
    Route("/api/documents/set-content", set_content, methods=["POST"]),
    Route("/api/documents/save", save_document, methods=["POST"]),
]
