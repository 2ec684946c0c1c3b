"""The tools that write exports: ``export`` (the open document, through the person's window)
and ``export_markdown_to_pdf`` (any allowed Markdown file, no server needed).

``export`` asks the server: with ``output_path`` it writes the file, without one it opens the
window's export dialog. ``export_markdown_to_pdf`` checks its paths against the allowed folders
of this MCP process, then runs the exporter it was given in process (a standalone export
service for ``quire mcp``, the server's own for ``/mcp``); without one, or for an account's
call (whose grants only the server's API checks), it asks the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from quire.api.export_requests import ExportDialogOpened
from quire.api.exports import (
    EXPORT_FORMATS,
    EXPORT_THEMES,
    PAPERS,
    ExportFormat,
    ExportJob,
    ExportResult,
    ExportTheme,
    Paper,
)
from quire.client.exports import ExportApi
from quire.core.errors import NotOpen
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.documents import server

NO_DOCUMENT = (
    'No document is open to export. Call open_file with the document\'s path and mode "read", '
    "then retry, or call export_markdown_to_pdf with the file's path (no window needed)."
)
UNSAVED = (
    "The document has edits in the window that are not saved; the export is of the file as "
    "saved. Save it (or ask the person to) and export again to include them."
)


class Exporter(Protocol):
    """What the tools need of an export service (``quire.services.export.ExportService``)."""

    async def export(self, job: ExportJob, *, allowed: Sequence[Path]) -> ExportResult: ...


async def export_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Export the open document to ``output_path``, or open the window's export dialog."""
    format: ExportFormat = args["format"]
    output = None
    if "output_path" in args:
        output = await env.allowed_path(args["output_path"], "output_path", "write")
    api, note = await server(env)
    current = await api.current()
    if current.path is None:
        raise NotOpen(NO_DOCUMENT)
    exports = ExportApi(api)
    if output is None:
        opened = await exports.dialog(format, current.path)
        data = opened.dump()
    else:
        result = await exports.export(
            current.path,
            format=format,
            output_path=str(output),
            overwrite=bool(args.get("overwrite", False)),
        )
        if current.dirty:
            result = result.model_copy(update={"warnings": [*result.warnings, UNSAVED]})
        data = {"ok": True, **result.dump()}
    if note:
        data["note"] = note
    return data


async def export_markdown_to_pdf_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Export any allowed Markdown file to PDF, in process when this server has an exporter."""
    source = await env.allowed_path(args["input"], "input", "export")
    output = None
    if "output" in args:
        output = await env.allowed_path(args["output"], "output", "write")
    force = bool(args.get("force", False))
    theme: ExportTheme = args.get("theme", "light")
    paper: Paper = args.get("paper", "a4")
    exporter = env.services.exporter
    if exporter is None or env.remote:  # an account's export: the server checks its grants
        api, _ = await server(env)
        result = await ExportApi(api).export(
            str(source),
            format="pdf",
            output_path=None if output is None else str(output),
            overwrite=force,
            theme=theme,
            paper=paper,
        )
    else:
        folders = await env.folders()
        job = ExportJob(source, "pdf", output=output, overwrite=force, theme=theme, paper=paper)
        result = await exporter.export(job, allowed=list(folders.folders))
    return {"ok": True, **result.dump()}


def _either(*models: type[ExportResult] | type[ExportDialogOpened]) -> dict[str, Any]:
    """One output schema for answers of several shapes: every property any of them has,
    required when all of them require it."""
    properties: dict[str, Any] = {"ok": s.BOOLEAN, "note": s.STRING}
    required: set[str] | None = None
    for model in models:
        schema = s.answer(model)
        properties.update(schema["properties"])
        names = set(schema.get("required", []))
        required = names if required is None else required & names
    return s.out(properties, sorted(required or ()))


_THEME = s.enum("The preview theme the PDF is drawn in.", EXPORT_THEMES)
_PAPER = s.enum("The page size.", PAPERS)

EXPORT = ToolSpec(
    name="export",
    title="Export the open document",
    description=(
        "Export the open document as pdf, html, docx or epub, as saved, drawn as the preview "
        "shows it. With output_path (the format's extension, in an existing allowed folder) it "
        "writes that file (overwrite: true replaces one); without it the window's export dialog "
        "opens (dialog: true). Call open_file first."
    ),
    input_schema=s.obj(
        {
            "format": s.enum("The format to export.", EXPORT_FORMATS),
            "output_path": s.path(
                "Where to write the export. Leave it out to let the person choose in the "
                "window's export dialog."
            ),
            "overwrite": s.boolean("Replace a file already at output_path.", False),
        },
        ["format"],
    ),
    output_schema=_either(ExportResult, ExportDialogOpened),
    handler=export_tool,
    destructive=True,
)

EXPORT_MARKDOWN_TO_PDF = ToolSpec(
    name="export_markdown_to_pdf",
    title="Export a Markdown file to PDF",
    description=(
        "Export a Markdown file to PDF as Quire's preview draws it (diagrams, math), no "
        "window or server needed. output (default: beside input) is a .pdf in an existing "
        "allowed folder, replaced only with force. Failed diagrams are in diagramErrors."
    ),
    input_schema=s.obj(
        {
            "input": s.path("The Markdown file to export."),
            "output": s.path("The PDF to write (default: beside input, with .pdf)."),
            "force": s.boolean("Replace a PDF already at output.", False),
            "theme": _THEME,
            "paper": _PAPER,
        },
        ["input"],
    ),
    output_schema=_either(ExportResult),
    handler=export_markdown_to_pdf_tool,
    destructive=True,
)

EXPORT_TOOLS: tuple[ToolSpec, ...] = (EXPORT_MARKDOWN_TO_PDF, EXPORT)
"""The writing export tools, in ``tools/list`` order (destructive: listed last)."""
