"""The file tools: create_document, move_document and delete_document.

Each checks its paths against the allowed folders of this MCP process (``ToolEnv``), then makes
one call to the server's file service (starting the server when none runs), whose rules decide
the rest: safe names, no traversal, never replacing a file, the workspace's trash. A refusal
names the call to make next.
"""

from __future__ import annotations

from typing import Any

from quire.api.files import Deleted, Moved, NoteCreated
from quire.client.files import FileApi
from quire.core.errors import FileMissing, NameTaken
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.documents import server

TAKEN_NEXT = (
    " Nothing was replaced. Call create_document or move_document again with another path, "
    "or open_file to work on the existing one."
)
MISSING_NEXT = " Call search_vault or list_recent to find the document's current path."


async def _files(env: ToolEnv) -> FileApi:
    api, _ = await server(env)
    return FileApi(api)


async def create_document_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Create a new note (never over an existing file)."""
    path = await env.allowed_path(args["path"], "path", "create")
    template = None
    if "template" in args:
        template = str(await env.document_path(args["template"], "template", "read"))
    files = await _files(env)
    try:
        made = await files.create_note(str(path), content=args.get("content"), template=template)
    except NameTaken as error:
        raise NameTaken(str(error) + TAKEN_NEXT) from None
    except FileMissing as error:
        raise FileMissing(str(error) + MISSING_NEXT) from None
    return made.dump()


async def move_document_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Rename or move a document or folder; open documents follow."""
    path = await env.allowed_path(args["path"], "path", "move")
    to = await env.allowed_path(args["to"], "to", "move to")
    files = await _files(env)
    try:
        moved = await files.move(
            str(path), str(to), update_links=bool(args.get("update_links", False))
        )
    except NameTaken as error:
        raise NameTaken(str(error) + TAKEN_NEXT) from None
    except FileMissing as error:
        raise FileMissing(str(error) + MISSING_NEXT) from None
    return moved.dump()


async def delete_document_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Move a document or folder to its workspace's trash."""
    path = await env.allowed_path(args["path"], "path", "delete")
    files = await _files(env)
    try:
        deleted = await files.delete(str(path))
    except FileMissing as error:
        raise FileMissing(str(error) + MISSING_NEXT) from None
    return {**deleted.dump(), "restore": f"quire trash restore {deleted.trash_id}"}


CREATE_DOCUMENT = ToolSpec(
    name="create_document",
    title="Create a document",
    description=(
        "Create a Markdown note at path (name made safe, .md added) holding content, a "
        "template's text, or nothing. Never replaces a file."
    ),
    input_schema=s.obj(
        {
            "path": s.path("The new note."),
            "content": s.text("The note's text (default: empty)."),
            "template": s.path("An existing note whose text the new one starts with."),
        },
        ["path"],
    ),
    output_schema=s.answer(NoteCreated),
    handler=create_document_tool,
)

MOVE_DOCUMENT = ToolSpec(
    name="move_document",
    title="Rename or move a document",
    description=(
        "Rename or move a document or folder (path) to the full path to. Never replaces a "
        "file; open tabs follow."
    ),
    input_schema=s.obj(
        {
            "path": s.path("The document or folder to move."),
            "to": s.path("Its new full path (not the folder to put it in)."),
            "update_links": s.boolean("Rewrite the links pointing to it.", default=False),
        },
        ["path", "to"],
    ),
    output_schema=s.answer(Moved),
    handler=move_document_tool,
    destructive=True,
)

DELETE_DOCUMENT = ToolSpec(
    name="delete_document",
    title="Delete a document",
    description=(
        "Move a document or folder to its workspace's trash for 30 days (restore says how "
        "to bring it back). Ask the person first."
    ),
    input_schema=s.obj({"path": s.path("The document or folder to delete.")}, ["path"]),
    output_schema=s.answer(Deleted, {"restore": s.STRING}),
    handler=delete_document_tool,
    destructive=True,
)

FILE_TOOLS = (CREATE_DOCUMENT, MOVE_DOCUMENT, DELETE_DOCUMENT)
