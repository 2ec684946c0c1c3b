"""Tools that read a document's text out: export_text, export_metadata and diff_documents.

With a path they read the file from disk (no server needed); without one, export_* read the
open document's live text from a running server. The analysis is ``quire.markdown``'s.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import anyio

from quire.core.errors import InvalidArgument, NotOpen, ServerUnreachable
from quire.core.pages import BUDGET_CHARS, MAX_LINES
from quire.markdown.diff import MAX_CONTEXT_LINES, unified_diff
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.pages import (
    MORE,
    PAGE_ARGUMENTS,
    PAGED,
    kept,
    message_count,
    more_candidates,
    paged,
    text_page,
)

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
    from quire.markdown.text import export_text  # the parser loads on first use, not at start

    path, source, version = await _source(env, args)
    plain = await anyio.to_thread.run_sync(export_text, source)
    page = text_page(plain.text, args)
    keep = kept(args, "limit") | ({"path": path} if "path" in args else {})
    result: dict[str, Any] = {**dataclasses.asdict(plain), "path": path}
    if version is not None:
        result["version"] = version
    return paged(result, "text", page, "export_text", keep)


async def export_metadata_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Front matter, headings, wikilinks, images and words of a document; the lists from
    item ``offset`` on, as many as one result holds (see ``metadata_page``)."""
    from quire.markdown.metadata import export_metadata  # loaded on first use, not at start

    path, source, _version = await _source(env, args)
    metadata = await anyio.to_thread.run_sync(export_metadata, source)
    keep = {"path": path} if "path" in args else {}
    return metadata_page({**dataclasses.asdict(metadata), "path": path}, args, keep)


LISTS = ("headings", "wikilinks", "wikilink_headings")
"""The lists of export_metadata that grow with a document, paged as one run of items in this
order."""


def metadata_page(
    result: dict[str, Any], args: dict[str, Any], keep: dict[str, Any]
) -> dict[str, Any]:
    """``result`` with its lists cut to the items from ``offset`` (0-based, counted through
    headings, then wikilinks, then wikilink_headings) that fit in one result, and the ``more``
    that reads on."""
    items = [(name, item) for name in LISTS for item in result[name]]
    offset = int(args.get("offset", 0))
    if offset and offset >= len(items):
        raise InvalidArgument(
            f"offset {offset} is past the last item: the lists hold {len(items)} items, so "
            f"offset runs from 0 to {max(len(items) - 1, 0)}.",
            argument="offset",
        )
    listed = items[offset:]
    budget = BUDGET_CHARS - len(json_size_of(result["frontmatter"]))
    count = message_count([_size(item) for _name, item in listed], max(budget, 0))
    for name in LISTS:
        result[name] = [item for owner, item in listed[:count] if owner == name]
    if count < len(listed):
        result["more"] = more_candidates(
            offset + count, len(listed) - count, EXPORT_METADATA.name, keep
        )
    return result


def _size(item: str | dict[str, Any]) -> int:
    """About how many characters ``item`` (a wikilink, or a heading as a dict) takes."""
    if isinstance(item, str):
        return len(item) + 4
    return sum(len(str(value)) + 16 for value in item.values())


def json_size_of(value: object) -> str:
    """``value`` as JSON (to count its characters)."""
    return json.dumps(value, ensure_ascii=False, default=str)


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
        "Structure of a Markdown document: frontmatter (a YAML subset; null when not closed), "
        "headings in order, distinct wikilink targets, wikilink_headings, "
        "embedded_image_count and word_count. With "
        "path it reads that file (no server needed); without, the open document's live text. "
        "Over ~20,000 tokens the lists are cut; more reads on."
    ),
    input_schema=s.obj(
        {
            "path": _PATH_OPTIONAL,
            "offset": s.integer("The first list item to return (see more).", 0, MAX_LINES, 0),
        }
    ),
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
            "more": MORE,
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
