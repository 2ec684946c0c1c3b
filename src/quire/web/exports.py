"""Export routes: write an export (``POST /api/export``), stream one to the browser
(``GET /api/export/download``), ask the window for its export dialog
(``POST /api/export/dialog``) and the ``/export?path=&format=`` link.

Thin: parse the request, call the export service over the server's workspaces (the folders an
export may read from and write to), answer. Rendering and the output rules are the service's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast, get_args
from urllib.parse import quote

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from quire.api.export_requests import ExportBody, ExportDialogBody, ExportDialogOpened
from quire.api.exports import (
    EXPORT_FORMATS,
    EXPORT_THEMES,
    PAPERS,
    Engines,
    ExportFormat,
    ExportJob,
)
from quire.core.errors import EngineMissing, InvalidArgument, QuireError
from quire.services.export_dialog import ask_for_dialog, export_for_download
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, read_body
from quire.web.context import current_user, services_of
from quire.web.preview import first_values, ignored

if TYPE_CHECKING:
    from quire.services.export import ExportService

_LINK_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _allowed(request: Request) -> list[Path]:
    return list(services_of(request).workspaces.folders)


def _export(request: Request) -> ExportService:
    export = services_of(request).export
    if export is None:
        raise EngineMissing(
            "This Quire server was started without its export service, so it cannot export. "
            "Restart it with `quire serve`."
        )
    return export


async def export_file(request: Request) -> Response:
    """Export the Markdown file `path` (absolute) as `format` (pdf, html, docx or epub) with
    `theme` and `paper`, to `output_path` (absolute; default beside the file with the format's
    extension). Both must lie in the server's workspaces; an existing output is replaced only
    with `overwrite: true`. Answers `{path, format, bytes, pages, engine, warnings,
    diagramErrors}`."""
    body = await read_body(request, ExportBody)
    source = absolute_path(body.path)
    output = None if body.output_path is None else absolute_path(body.output_path, "output_path")
    job = ExportJob(
        source,
        body.format,
        output=output,
        overwrite=body.overwrite,
        theme=body.theme,
        paper=body.paper,
    )
    result = await _export(request).export(job, allowed=_allowed(request))
    return answer(result)


_Choice = TypeVar("_Choice", bound=str)


def _choice(
    values: dict[str, str], name: str, choices: tuple[_Choice, ...], default: _Choice
) -> _Choice:
    raw = values.get(name)
    if raw is None:
        return default
    if raw not in choices:
        raise InvalidArgument(
            f"`{name}` must be one of {', '.join(choices)}, got {raw!r}.", argument=name
        )
    return choices[choices.index(raw)]


async def download_export(request: Request) -> Response:
    """The export of `path` as `format` (with `theme` and `paper`) as a file to save: the
    bytes with `Content-Disposition: attachment` and the file's name. Nothing is written
    beside the document; `X-Quire-Export-Engine` names the engine that made it."""
    values = query_args(request, ("path", "format", "theme", "paper"))
    raw_path = values.get("path")
    if raw_path is None:
        raise InvalidArgument("`path` is required: the Markdown file to export.", argument="path")
    download = await export_for_download(
        _export(request),
        absolute_path(raw_path),
        format=_choice(values, "format", EXPORT_FORMATS, "pdf"),
        theme=_choice(values, "theme", EXPORT_THEMES, "light"),
        paper=_choice(values, "paper", PAPERS, "a4"),
        allowed=_allowed(request),
    )
    encoded = quote(download.filename, safe="")
    headers = {
        "Content-Disposition": f"attachment; filename*=UTF-8''{encoded}",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "X-Quire-Export-Engine": download.result.engine,
    }
    return Response(download.content, media_type=download.media_type, headers=headers)


async def export_engines(request: Request) -> Response:
    """Which export engines the server's machine has (chromium, weasyprint, pandoc), the
    formats each makes, and how to install the missing ones: `{engines: [...]}`."""
    query_args(request, ())
    engines = await anyio.to_thread.run_sync(_export(request).engines)
    return answer(Engines(engines=engines))


async def export_dialog(request: Request) -> Response:
    """Open the export dialog in the person's window for `path` (absolute; default the open
    document), with `format` selected. `path` is opened in the window first when it is not
    the open document. Answers `{ok, dialog: true, path, format, browserConnected}`."""
    body = await read_body(request, ExportDialogBody)
    services = services_of(request)
    user = current_user(request)
    if body.path is None:
        opened = await services.windows.target(user)
    else:
        opened = await services.windows.open(user, absolute_path(body.path), "read")
    connected = ask_for_dialog(
        services.bus, user, path=opened.path, doc_id=opened.doc_id, format=body.format
    )
    return answer(
        ExportDialogOpened(path=str(opened.path), format=body.format, browser_connected=connected)
    )


def _link_request(query: bytes) -> tuple[str, ExportFormat] | str:
    """The path and format an `/export` link asks for, or why it is ignored."""
    values = first_values(query)
    raw_mode = values.get("mode")
    if raw_mode is not None and raw_mode != b"read":
        return "An export link opens the file in Read view; it cannot ask for another view."
    raw_format = values.get("format", b"pdf").decode("utf-8", "replace")
    if raw_format not in get_args(ExportFormat):
        return (
            f"The link asks for the export format {raw_format!r}; Quire exports "
            f"{', '.join(EXPORT_FORMATS)}."
        )
    raw_path = values.get("path")
    if not raw_path:
        return "The link names no file: add path=/absolute/path/to/file.md."
    try:
        return raw_path.decode("utf-8"), cast("ExportFormat", raw_format)
    except UnicodeDecodeError:
        return "The link's path is not UTF-8 text once percent-decoded; nothing was opened."


async def export_link(request: Request) -> Response:
    """`/export?path=…&format=pdf|html|docx|epub`: open the file in Read view, then show the
    window with its export dialog and that format selected (pdf by default).

    Decoded and refused as `/open` links are: a refused link opens nothing, and the window
    says why.
    """
    if request.method != "GET":
        return RedirectResponse("/", status_code=303, headers=_LINK_HEADERS)
    target = _link_request(request.scope.get("query_string", b""))
    if isinstance(target, str):
        return ignored(target)
    path, format = target
    try:
        await services_of(request).windows.open(current_user(request), absolute_path(path), "read")
    except QuireError as err:
        return ignored(err.message)
    return RedirectResponse(f"/#export={format}", status_code=303, headers=_LINK_HEADERS)


routes: list[BaseRoute] = [
    Route("/api/export", export_file, methods=["POST"]),
    Route("/api/export/download", download_export, methods=["GET"]),
    Route("/api/export/dialog", export_dialog, methods=["POST"]),
    Route("/api/export/engines", export_engines, methods=["GET"]),
    Route("/export", export_link, methods=["GET"]),
]
