"""The edit_canvas tool: typed ops applied to a JSON Canvas file on disk, all or nothing.

Checks the ops before the file is read, reads and writes the canvas through ``quire.fs`` (a
new temp file renamed over it); applying the ops is ``quire.canvas.edits``'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from quire.canvas.edits import CANVAS_OP_SCHEMA, apply_canvas_ops, is_canvas_name, validate_ops
from quire.core.errors import InvalidArgument
from quire.fs.documents import FileKind, read_file, write_file
from quire.fs.encoding import decode_utf8
from quire.fs.folders import AllowedFolders
from quire.fs.sandbox import is_dotfile_name, participle
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec


def _check_name(raw: str) -> None:
    if not is_canvas_name(raw):
        shown = raw.rsplit("/", 1)[-1] or raw
        raise InvalidArgument(
            f"`path` must point to a .canvas file, got `{shown}`. Pass the path of a JSON "
            "Canvas file (ending in .canvas).",
            argument="path",
        )


CANVAS = FileKind(
    "canvas",
    lambda name: is_canvas_name(name) and not is_dotfile_name(name),
    lambda verb: f"only .canvas files that are not dotfiles can be {participle(verb)}",
)
"""JSON Canvas files that are not dotfiles."""


def _edit(folders: AllowedFolders, path: Path, ops: list[Any], save: bool) -> dict[str, Any]:
    found, data = read_file(folders, path, verb="edit", kind=CANVAS)
    source = decode_utf8(data, path=path)
    edit = apply_canvas_ops(source, ops)
    resolved = found.path
    if save:
        # Renaming a new file over the canvas, in the folder it was read from: a link swapped in
        # is replaced, not written through, and a folder swapped meanwhile is refused.
        write_file(folders, resolved, edit.content, kind=CANVAS, folder=found.folder, verb="edit")
    return {
        "ok": True,
        "path": str(resolved),
        "nodes_count": edit.nodes_count,
        "edges_count": edit.edges_count,
        "node_ids": edit.node_ids,
        "edge_ids": edit.edge_ids,
        "removed_edge_ids": edit.removed_edge_ids,
        "ops_applied": edit.ops_applied,
        "saved": save,
        "content": None if save else edit.content,
    }


async def edit_canvas_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Apply ``ops`` to the canvas at ``path``; write it back unless ``save`` is false."""
    raw = args["path"]
    _check_name(raw)
    validate_ops(args["ops"])
    path = env.expand(raw, "path")
    folders = await env.folders()
    save = bool(args.get("save", True))
    return await anyio.to_thread.run_sync(_edit, folders, path, args["ops"], save)


EDIT_CANVAS = ToolSpec(
    name="edit_canvas",
    title="Edit a canvas",
    description=(
        "Apply typed ops to a JSON Canvas (.canvas) file, all or nothing, in order. Unknown "
        "keys are kept. save false writes nothing and returns content. Needs no server."
    ),
    input_schema=s.obj(
        {
            "path": s.path("The .canvas file to edit."),
            "ops": {
                "type": "array",
                "minItems": 1,
                "items": CANVAS_OP_SCHEMA,
                "description": "The ops to apply, in order.",
            },
            "save": s.boolean("Write the canvas back to its file.", True),
        },
        ["path", "ops"],
    ),
    output_schema=s.out(
        {
            "ok": s.BOOLEAN,
            "path": s.STRING,
            "nodes_count": s.INTEGER,
            "edges_count": s.INTEGER,
            "node_ids": {"type": "array", "items": s.STRING},
            "edge_ids": {"type": "array", "items": s.STRING},
            "removed_edge_ids": {"type": "array", "items": s.STRING},
            "ops_applied": s.INTEGER,
            "saved": s.BOOLEAN,
            "content": s.NULLABLE_STRING,
        },
        [
            "ok",
            "path",
            "nodes_count",
            "edges_count",
            "node_ids",
            "edge_ids",
            "removed_edge_ids",
            "ops_applied",
            "saved",
            "content",
        ],
    ),
    handler=edit_canvas_tool,
    destructive=True,
)
