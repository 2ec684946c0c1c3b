"""Tools that read a document's text out: export_text, export_metadata and diff_documents.

With a path they read the file from disk (no server needed); without one, export_* read the
open document's live text from a running server. The analysis is ``quire.markdown``'s.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio

from quire.core.errors import NotOpen, ServerUnreachable
from quire.markdown.diff import MAX_CONTEXT_LINES, unified_diff
from quire.markdown.metadata import export_metadata
from quire.markdown.text import export_text
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.pages import MORE, PAGE_ARGUMENTS, PAGED, kept, paged, text_page

NO_DOCUMENT = "No document is open in Quire; pass path to read a file."
NO_SERVER = (
    "No Quire server is running, so no document is open in it; pass path to read a file "
    "from disk (no server needed)."
)


async def _source(env: ToolEnv, args: dict[str, Any]) -> tuple[str, str, str | None]:
    """The text to export, its path and, for the open document's live text, its version (None
    for a file read from disk). Not remembered as a version the client read: it sees plain
    text or metadata, not the Markdown a later rewrite would be merged from."""
    if "path" in args:
        resolved, text = await env.read(args["path"], "path")
        return str(resolved), text, None
    api = await env.link.running()
    if api is None:
        raise ServerUnreachable(NO_SERVER)
    current = await api.current()
    if current.path is None:
        raise NotOpen(NO_DOCUMENT)
    return current.path, current.content, current.version


async def export_text_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Plain text of a document (one page of it when long), with the whole text's word and
    character counts."""
    path, source, version = await _source(env, args)
    plain = await anyio.to_thread.run_sync(export_text, source)
    page = text_page(plain.text, args)
    keep = kept(args, "limit") | ({"path": path} if "path" in args else {})
    result: dict[str, Any] = {**dataclasses.asdict(plain), "path": path}
    if version is not None:
        result["version"] = version
    return paged(result, "text", page, "export_text", keep)


async def export_metadata_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Front matter, headings, wikilinks, images and words of a document."""
    path, source, _version = await _source(env, args)
    metadata = await anyio.to_thread.run_sync(export_metadata, source)
    return {**dataclasses.asdict(metadata), "path": path}


async def diff_documents_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Unified diff of two Markdown files on disk."""
    path_a, text_a = await env.read(args["path_a"], "path_a")
    path_b, text_b = await env.read(args["path_b"], "path_b")
    context = int(args.get("context_lines", 3))
    diff = await anyio.to_thread.run_sync(
        lambda: unified_diff(
            text_a, text_b, label_a=str(path_a), label_b=str(path_b), context_lines=context
        )
    )
    page = text_page(diff.diff, args)
    keep: dict[str, Any] = {"path_a": str(path_a), "path_b": str(path_b)}
    keep |= kept(args, "context_lines", "limit")
    result = {**dataclasses.asdict(diff), "path_a": str(path_a), "path_b": str(path_b)}
    return paged(result, "diff", page, "diff_documents", keep)


_PATH_OPTIONAL = s.path(
    "The Markdown file to read from disk (default: the open document's live text, which "
    "needs a running server)."
)

EXPORT_TEXT = ToolSpec(
    name="export_text",
    title="Export plain text",
    description=(
        "Plain text of a Markdown document (code as written, tables as tab-separated cells, "
        "links as their text), with word_count and char_count (of the whole text). With "
        "path it reads that file (no server needed); without, the open document's live "
        "text and its version." + PAGED
    ),
    input_schema=s.obj({"path": _PATH_OPTIONAL, **PAGE_ARGUMENTS}),
    output_schema=s.out(
        {
            "text": s.STRING,
            "word_count": s.INTEGER,
            "char_count": s.INTEGER,
            "path": s.STRING,
            "version": s.STRING,
            "more": MORE,
        },
        ["text", "word_count", "char_count", "path"],
    ),
    handler=export_text_tool,
    read_only=True,
    idempotent=True,
)

EXPORT_METADATA = ToolSpec(
    name="export_metadata",
    title="Export metadata",
    description=(
        "Structure of a Markdown document: frontmatter (a YAML subset, null when the block "
        "is not closed), headings [{level, text}] in order, the distinct wikilink targets, "
        "wikilink_headings [{target, heading}], embedded_image_count and word_count. With "
        "path it reads that file (no server needed); without, the open document's live text."
    ),
    input_schema=s.obj({"path": _PATH_OPTIONAL}),
    output_schema=s.out(
        {
            "frontmatter": {"type": ["object", "null"]},
            "headings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"level": s.INTEGER, "text": s.STRING},
                    "required": ["level", "text"],
                },
            },
            "wikilinks": {"type": "array", "items": s.STRING},
            "wikilink_headings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"target": s.STRING, "heading": s.STRING},
                    "required": ["target", "heading"],
                },
            },
            "embedded_image_count": s.INTEGER,
            "word_count": s.INTEGER,
            "path": s.STRING,
        },
        [
            "frontmatter",
            "headings",
            "wikilinks",
            "wikilink_headings",
            "embedded_image_count",
            "word_count",
            "path",
        ],
    ),
    handler=export_metadata_tool,
    read_only=True,
    idempotent=True,
)

DIFF_DOCUMENTS = ToolSpec(
    name="diff_documents",
    title="Diff two documents",
    description=(
        "Unified diff (as diff -u prints it) of two Markdown files on disk, with the hunks and "
        "lines added and removed (of the whole diff). CRLF and LF lines differ. Identical files "
        "give an empty diff. Needs no server." + PAGED
    ),
    input_schema=s.obj(
        {
            "path_a": s.path("The first Markdown file (the old side)."),
            "path_b": s.path("The second Markdown file (the new side)."),
            "context_lines": s.integer(
                "Unchanged lines shown around each change.", 0, MAX_CONTEXT_LINES, 3
            ),
            **PAGE_ARGUMENTS,
        },
        ["path_a", "path_b"],
    ),
    output_schema=s.out(
        {
            "diff": s.STRING,
            "hunks": s.INTEGER,
            "added": s.INTEGER,
            "removed": s.INTEGER,
            "path_a": s.STRING,
            "path_b": s.STRING,
            "more": MORE,
        },
        ["diff", "hunks", "added", "removed", "path_a", "path_b"],
    ),
    handler=diff_documents_tool,
    read_only=True,
    idempotent=True,
)
