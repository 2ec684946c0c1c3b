"""The window tools: open_file, get_current_content, list_recent and present_document.

Each checks its path against the allowed folders and the document rule, then makes one call
to the server (starting it when none runs); the window itself is the server's.
"""

from __future__ import annotations

import json
from typing import Any

from quire.api.windows import Recents
from quire.client.api import QuireApi
from quire.core.errors import NotOpen
from quire.core.views import OPEN_MODES, RECENT_LIMIT
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolOutput, ToolSpec
from quire.mcp.pages import MORE, PAGE_ARGUMENTS, PAGED, kept, paged, text_page

NO_DOCUMENT = "No document is open in Quire. Open one first (open_file)."
NO_DOCUMENT_TO_PRESENT = (
    "No document is open to present. Pass path to present_document, or call open_file with "
    "the document's path first."
)


async def server(env: ToolEnv) -> tuple[QuireApi, str | None]:
    """The server's API, started when none runs, and a note when this call started it."""
    before = env.link.started
    api = await env.link.api()
    if env.link.started is not None and env.link.started is not before:
        return api, (
            f"Quire started its server in the background at {api.info.url}; the person sees "
            "the document in Quire's web page there."
        )
    return api, None


async def open_file_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Open a Markdown file in the person's window."""
    path = await env.document_path(args["path"], "path", "open")
    api, note = await server(env)
    opened = await api.open(str(path), args.get("mode"), args.get("line"))
    result: dict[str, Any] = {
        "opened": True,
        "path": opened.path,
        "docId": opened.doc_id,
        "view": opened.view,
        "url": api.info.url,
    }
    if opened.version is not None:
        result["version"] = opened.version
        env.remember_version(opened.doc_id, opened.version)
    if note:
        result["note"] = note
    return result


async def get_current_content_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """The open document's path and live Markdown (unsaved edits included), one page of it
    when it is long; the version names the whole text."""
    api, _ = await server(env)
    current = await api.current()
    if current.path is None:
        raise NotOpen(NO_DOCUMENT)
    page = text_page(current.content, args)
    keep = kept(args, "limit")
    result = paged({"path": current.path}, "content", page, GET_CURRENT_CONTENT.name, keep)
    if current.dirty is not None:
        result["dirty"] = current.dirty
    if current.version is not None:
        result["version"] = current.version
        env.remember_version(current.doc_id, current.version)
    return result


async def list_recent_tool(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    """Recently opened documents, most recent first."""
    api, _ = await server(env)
    recent = Recents(recent=await api.recent(int(args.get("limit", RECENT_LIMIT[2]))))
    structured = recent.dump()
    return ToolOutput(structured, text=json.dumps(structured["recent"], ensure_ascii=False))


async def present_document_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Show a document (or the open one) in the distraction-free reading view."""
    path = None
    if "path" in args:
        path = str(await env.document_path(args["path"], "path", "present"))
    api, _ = await server(env)
    try:
        presented = await api.present(path)
    except NotOpen:
        raise NotOpen(NO_DOCUMENT_TO_PRESENT) from None
    return {"ok": True, "path": presented.path}


OPEN_FILE = ToolSpec(
    name="open_file",
    title="Open a document for the person",
    description=(
        "Open a Markdown file (.md .markdown .mdown .mkd .mdx, not a dotfile, inside the allowed "
        "folders) as a tab in the person's Quire window (the page of `quire serve`); it becomes "
        "the open document the other tools work on. mode read or edit sets its view (else a tab "
        "keeps its view); line scrolls there. Starts the server when none runs."
    ),
    input_schema=s.obj(
        {
            "path": s.path("The Markdown file to open."),
            "mode": s.enum("The view to open it in.", OPEN_MODES),
            "line": s.integer("The 1-based line to show.", 1, 100_000_000),
        },
        ["path"],
    ),
    output_schema=s.out(
        {
            "opened": s.BOOLEAN,
            "path": s.STRING,
            "docId": s.STRING,
            "view": s.STRING,
            "url": s.STRING,
            "note": s.STRING,
            "version": s.STRING,
        },
        ["opened", "path", "docId", "view", "url"],
    ),
    handler=open_file_tool,
    idempotent=True,
)

GET_CURRENT_CONTENT = ToolSpec(
    name="get_current_content",
    title="Read the open document",
    description=(
        "The open document's path and Markdown as the person sees it (unsaved edits included; "
        "dirty: any unsaved) and its version (of the whole text; set_content's base). Call "
        "open_file first." + PAGED
    ),
    input_schema=s.obj(PAGE_ARGUMENTS),
    output_schema=s.out(
        {
            "path": s.STRING,
            "content": s.STRING,
            "dirty": s.BOOLEAN,
            "version": s.STRING,
            "more": MORE,
        },
        ["path", "content"],
    ),
    handler=get_current_content_tool,
    read_only=True,
    idempotent=True,
)

LIST_RECENT = ToolSpec(
    name="list_recent",
    title="List recent documents",
    description=(
        "Recently opened documents, most recent first: [{path, fileName, openedAt}] "
        "(openedAt in ms since the Unix epoch)."
    ),
    input_schema=s.obj(
        {
            "limit": s.integer(
                "How many documents to list.", RECENT_LIMIT[0], RECENT_LIMIT[1], RECENT_LIMIT[2]
            )
        }
    ),
    output_schema=s.answer(Recents),
    handler=list_recent_tool,
    read_only=True,
    idempotent=True,
)

PRESENT_DOCUMENT = ToolSpec(
    name="present_document",
    title="Present a document",
    description=(
        "Show a document to the person in Quire's distraction-free reading view (read view, "
        "with the tabs and panels hidden; Escape leaves it), ideal for a finished result. "
        "With path it opens that file first; without it presents the open document."
    ),
    input_schema=s.obj({"path": s.path("The Markdown file to present.")}),
    output_schema=s.out({"ok": s.BOOLEAN, "path": s.STRING}, ["ok", "path"]),
    handler=present_document_tool,
    idempotent=True,
)
