"""HTTP routes of the file operations: create, move, copy, delete, append, upload, download,
and the trash.

Thin: parse the request, call the file service, answer with ``quire.api.files`` models.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.concurrency import iterate_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from quire.api.files import (
    AppendBody,
    CopyBody,
    FolderCreateBody,
    MoveBody,
    NoteCreateBody,
    PathBody,
    TrashEmptyBody,
    TrashRestoreBody,
)
from quire.core.errors import InvalidArgument
from quire.services.files import FileService
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, read_body
from quire.web.context import current_user, services_of


def _files(request: Request) -> FileService:
    files = services_of(request).files
    if files is None:
        raise InvalidArgument("This server runs without file operations.")
    return files


async def create_note(request: Request) -> Response:
    """Create a note at `path`: its name becomes a safe file name (`.md` added when missing),
    holding `content`, a copy of the note `template`, or nothing. 409 when the name is taken."""
    body = await read_body(request, NoteCreateBody)
    template = None if body.template is None else absolute_path(body.template, "template")
    made = await _files(request).create_note(
        current_user(request), absolute_path(body.path), content=body.content, template=template
    )
    return answer(made)


async def create_folder(request: Request) -> Response:
    """Create the folder `path` (its parents too); 409 when the name is taken."""
    body = await read_body(request, FolderCreateBody)
    return answer(
        await _files(request).create_folder(current_user(request), absolute_path(body.path))
    )


async def move(request: Request) -> Response:
    """Rename or move `path` to `to` (the new full path; a case-only rename works). Never
    replaces anything (409), never puts a folder inside itself. Open documents follow: their
    live buffers, unsaved edits and tabs move with the file. With `update_links`, the notes
    `/api/files/links` lists are rewritten after the move (`linksUpdated`)."""
    body = await read_body(request, MoveBody)
    moved = await _files(request).move(
        current_user(request),
        absolute_path(body.path),
        absolute_path(body.to, "to"),
        update_links=body.update_links,
    )
    return answer(moved)


async def links(request: Request) -> Response:
    """The notes moving `path` to `to` would rewrite with `update_links` (wikilinks and
    relative Markdown links naming it, or anything inside a folder; the moved note itself when
    its own relative links must be rebased), each with how many links and on which lines, and
    the notes that could not be checked. Writes nothing."""
    body = await read_body(request, MoveBody)
    updates = await _files(request).link_updates(
        absolute_path(body.path), absolute_path(body.to, "to")
    )
    return answer(updates)


async def copy(request: Request) -> Response:
    """Copy the file or folder `path` to the new path `to` (links inside are left out)."""
    body = await read_body(request, CopyBody)
    copied = await _files(request).copy(
        current_user(request), absolute_path(body.path), absolute_path(body.to, "to")
    )
    return answer(copied)


async def delete(request: Request) -> Response:
    """Move `path` to its workspace's trash (restorable for 30 days); its tabs close."""
    body = await read_body(request, PathBody)
    return answer(await _files(request).delete(current_user(request), absolute_path(body.path)))


async def append(request: Request) -> Response:
    """Append `content` to the note `path`, through its live document when it is open."""
    body = await read_body(request, AppendBody)
    appended = await _files(request).append(
        current_user(request), absolute_path(body.path), body.content, save=body.save
    )
    return answer(appended)


async def upload(request: Request) -> Response:
    """Upload the request body's bytes as the new file `path`; with `note` (instead of or
    beside `path`) the file lands in `assets/` beside that note and the answer carries the
    Markdown link to insert. Never replaces a file (409)."""
    values = query_args(request, ("path", "note", "name"))
    files = _files(request)
    note = None if "note" not in values else absolute_path(values["note"], "note")
    if "path" in values:
        path = absolute_path(values["path"])
    elif note is not None and "name" in values:
        path = files.assets_path(note, values["name"])
    else:
        raise InvalidArgument(
            "Pass `path` (where the file goes), or `note` and `name` (it goes to assets/ "
            "beside the note).",
            argument="path",
        )
    data = await request.body()
    uploaded = await files.upload(current_user(request), path, [data], note=note)
    return answer(uploaded)


async def download(request: Request) -> Response:
    """Download the file `path`, or the folder `path` as a zip, streamed."""
    values = query_args(request, ("path",))
    if "path" not in values:
        raise InvalidArgument("Pass `path`, the file or folder to download.", argument="path")
    got = await _files(request).download(absolute_path(values["path"]))
    headers = {"Content-Disposition": f"attachment; filename*=UTF-8''{quote(got.name)}"}
    return StreamingResponse(
        iterate_in_threadpool(got.chunks), media_type=got.media_type, headers=headers
    )


async def trash_list(request: Request) -> Response:
    """The workspaces' trash, newest first, with when each item is removed for good."""
    query_args(request, ())
    return answer(await _files(request).trash_list())


async def trash_restore(request: Request) -> Response:
    """Restore the trash entry `id` where it was (or at `to`); 409 when that name is taken."""
    body = await read_body(request, TrashRestoreBody)
    to = None if body.to is None else absolute_path(body.to, "to")
    return answer(await _files(request).restore(current_user(request), body.id, to))


async def trash_empty(request: Request) -> Response:
    """Remove the trash for good (`expired_only`: only what is past its 30 days)."""
    body = await read_body(request, TrashEmptyBody)
    return answer(await _files(request).empty_trash(expired_only=body.expired_only))


routes: list[BaseRoute] = [
    Route("/api/files/note", create_note, methods=["POST"]),
    Route("/api/files/folder", create_folder, methods=["POST"]),
    Route("/api/files/move", move, methods=["POST"]),
    Route("/api/files/links", links, methods=["POST"]),
    Route("/api/files/copy", copy, methods=["POST"]),
    Route("/api/files/delete", delete, methods=["POST"]),
    Route("/api/files/append", append, methods=["POST"]),
    Route("/api/files/upload", upload, methods=["POST"]),
    Route("/api/files/download", download, methods=["GET"]),
    Route("/api/trash", trash_list, methods=["GET"]),
    Route("/api/trash/restore", trash_restore, methods=["POST"]),
    Route("/api/trash/empty", trash_empty, methods=["POST"]),
]
