"""The edit_canvas tool: typed ops applied to a JSON Canvas file on disk, all or nothing.

Checks the ops before the file is read, reads and writes the canvas through ``quire.fs`` (a
new temp file renamed over it); applying the ops is ``quire.canvas.edits``'.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio

from quire.canvas.edits import CANVAS_OP_SCHEMA, apply_canvas_ops, is_canvas_name, validate_ops
from quire.core.errors import InvalidArgument, PathRefused
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs.oserror import open_failed
from quire.fs.safeio import decode_utf8, read_regular_bytes, write_atomic
from quire.fs.sandbox import is_dotfile_name
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


def _resolve_canvas(path: Path) -> Path:
    try:
        resolved = Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        raise open_failed(exc, doing="edit", path=path, what="canvas") from None
    if not is_canvas_name(resolved.name) or is_dotfile_name(resolved.name):
        raise PathRefused(
            f"Refusing to edit '{path}': it leads to '{resolved}', and only .canvas files "
            "that are not dotfiles can be edited."
        )
    return resolved


def _edit(path: Path, ops: list[Any], save: bool) -> dict[str, Any]:
    resolved = _resolve_canvas(path)
    source = decode_utf8(
        read_regular_bytes(resolved, limit=MAX_DOCUMENT_BYTES, what="canvas"), path=path
    )
    edit = apply_canvas_ops(source, ops)
    if save:
        # Renaming a new file over the canvas: a link swapped in is replaced, not written through.
        write_atomic(resolved, edit.content, overwrite=True)
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
    path = await env.allowed_path(raw, "path", "edit")
    save = bool(args.get("save", True))
    return await anyio.to_thread.run_sync(_edit, path, args["ops"], save)


EDIT_CANVAS = ToolSpec(
    name="edit_canvas",
    title="Edit a canvas",
    description=(
        "Apply typed edit ops to a JSON Canvas (.canvas) file, all or nothing: move_node, "
        "resize_node, edit_node, set_node_color, add_node, delete_node (and its edges), "
        "add_edge, delete_edge, edit_edge, reorder_edges. Each op sees the canvas the ops "
        "before it left. Keys Quire does not know are written back unchanged. With save "
        "false nothing is written and content holds the new canvas. Destructive: it rewrites "
        "the file in place. Needs no server."
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
