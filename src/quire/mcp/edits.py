"""The tools that change the open document: edit_document, stream_edit, stream_edit_apply,
set_content and replace_document.

Each refuses a request too large to send before sending it, then makes one call to the
server, which applies the change to the live document; matching rules live in the server. A
tool's structured result is the server's answer as its API model dumps it, and its output
schema is that model's.
"""

from __future__ import annotations

from typing import Any

from quire.api.documents import AppliedPreview, ContentSet, Replaced, StreamPreview
from quire.core.errors import InvalidArgument, NotOpen
from quire.core.pages import BUDGET_CHARS
from quire.markdown.edits import MAX_MATCH_INDEX, MAX_PREVIEW_LINES, check_request_size
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.documents import server
from quire.mcp.pages import MORE, kept, message_count, more_candidates

NO_DOCUMENT = "No document is open in Quire; open one first (open_file)."


def _path(env: ToolEnv, args: dict[str, Any]) -> str | None:
    return str(env.expand(args["path"], "path")) if "path" in args else None


async def edit_document_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Replace the one occurrence of ``find`` in the open document."""
    check_request_size(args["find"], args["replace"])
    api, _ = await server(env)
    try:
        replaced = await api.edit(
            args["find"],
            args["replace"],
            save=bool(args.get("save", False)),
            path=_path(env, args),
            base=env.edit_base(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    env.remember_version(replaced.doc_id, replaced.version)
    return replaced.dump()


async def stream_edit_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Preview a find/replace as a diff (or apply it at once with preview false)."""
    check_request_size(args["find"], args["replace"])
    api, _ = await server(env)
    try:
        preview = await api.stream_edit(
            args["find"],
            args["replace"],
            preview=bool(args.get("preview", True)),
            preview_lines=int(args.get("preview_lines", 5)),
            path=_path(env, args),
            base=env.edit_base(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    if preview.applied:
        env.remember_version(preview.doc_id, preview.version)
    return _bounded_preview(preview, args)


def _bounded_preview(preview: StreamPreview, args: dict[str, Any]) -> dict[str, Any]:
    """The preview with the candidates from ``offset`` on that one result holds, and the
    ``more`` that lists the rest (the call repeats find and replace, so they count too)."""
    offset = int(args.get("offset", 0))
    if preview.candidates is None:
        return preview.dump()
    if offset >= len(preview.candidates):
        raise InvalidArgument(
            f"offset {offset} is past the last candidate: find occurs {preview.match_count} "
            f"times, so offset runs from 0 to {preview.match_count - 1}.",
            argument="offset",
        )
    listed = preview.candidates[offset:]
    keep = kept(args, "find", "replace", "preview_lines", "path")
    budget = BUDGET_CHARS - len(preview.diff) - len(args["find"]) - len(args["replace"])
    count = message_count([len(item.diff) + 60 for item in listed], max(budget, 0))
    result = preview.model_copy(update={"candidates": listed[:count]}).dump()
    if count < len(listed):
        next_index = listed[count].match_index
        result["more"] = more_candidates(next_index, len(listed) - count, STREAM_EDIT.name, keep)
    return result


async def stream_edit_apply_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Apply occurrence ``match_index`` of a previewed edit."""
    check_request_size(args["find"], args["replace"])
    api, _ = await server(env)
    try:
        applied = await api.stream_edit_apply(
            args["find"],
            args["replace"],
            edit_id=args.get("edit_id"),
            match_index=int(args.get("match_index", 0)),
            save=bool(args.get("save", False)),
            path=_path(env, args),
            base=env.edit_base(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    env.remember_version(applied.doc_id, applied.version)
    return applied.dump()


async def set_content_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Replace the open document's whole text, merged onto the person's edits since the
    version this client last read (or ``base``)."""
    check_request_size(args["content"])
    api, _ = await server(env)
    active = (await api.window()).active
    if active is None:
        raise NotOpen(NO_DOCUMENT)
    base = args.get("base") or env.last_version(active)
    try:
        done = await api.set_content(args["content"], save=bool(args.get("save", False)), base=base)
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    env.remember_version(active, done.version)
    return done.dump()


_FIND = s.text(
    "The exact text to find, whitespace included (a line break matches LF or CRLF). Copy it "
    "from get_current_content.",
    filled=True,
    blank_ok=True,
)
_REPLACE = s.text("The text to put in its place (may be empty).")
_SAVE = s.boolean("Also save the document to its file.", False)
_EDIT_PATH = s.path("The document you expect to be open; the edit is refused when another one is.")
_SET_INPUT = s.obj(
    {
        "content": s.text("The document's whole new Markdown."),
        "save": _SAVE,
        "base": s.text(
            "The version (from get_current_content) your content rewrites; default: the one "
            "you last read.",
            filled=True,
        ),
    },
    ["content"],
)

EDIT_DOCUMENT = ToolSpec(
    name="edit_document",
    title="Edit the open document",
    description=(
        "Exact find/replace on the live text of the open document (the person sees it at once; "
        "their typing is kept). find must occur exactly once, else nothing changes and the error "
        "counts the matches: include enough surrounding text. replace keeps the line breaks of "
        "its line. save: true also writes the file. Prefer it to set_content."
    ),
    input_schema=s.obj(
        {"find": _FIND, "replace": _REPLACE, "save": _SAVE, "path": _EDIT_PATH},
        ["find", "replace"],
    ),
    output_schema=s.answer(Replaced),
    handler=edit_document_tool,
)

STREAM_EDIT = ToolSpec(
    name="stream_edit",
    title="Preview an edit",
    description=(
        "Preview a find/replace on the open document as a unified diff; when find occurs more "
        "than once, candidates [{matchIndex, startLine, diff, rank}] (else null) and matchCount. "
        "Then call stream_edit_apply with editId and match_index. preview: false applies a "
        "unique match at once (applied: true). Over ~20,000 tokens, more lists the rest."
    ),
    input_schema=s.obj(
        {
            "find": _FIND,
            "replace": _REPLACE,
            "preview": s.boolean("Only preview (false applies a unique match now).", True),
            "preview_lines": s.integer(
                "Context lines around each change in the diff.", 0, MAX_PREVIEW_LINES, 5
            ),
            "path": _EDIT_PATH,
            "offset": s.integer(
                "The first candidate to list (its matchIndex).", 0, MAX_MATCH_INDEX, 0
            ),
        },
        ["find", "replace"],
    ),
    output_schema=s.answer(StreamPreview, {"more": MORE}),
    handler=stream_edit_tool,
)

STREAM_EDIT_APPLY = ToolSpec(
    name="stream_edit_apply",
    title="Apply a previewed edit",
    description=(
        "Apply occurrence match_index (0-based) of a stream_edit preview to the live document. "
        "edit_id names an unapplied preview with the same find and replace; a stale or unknown "
        "one is refused, nothing changes (call stream_edit again)."
    ),
    input_schema=s.obj(
        {
            "edit_id": s.text("The editId stream_edit returned.", filled=True),
            "find": _FIND,
            "replace": _REPLACE,
            "match_index": s.integer("Which occurrence to replace, from 0.", 0, MAX_MATCH_INDEX, 0),
            "save": _SAVE,
            "path": _EDIT_PATH,
        },
        ["find", "replace"],
    ),
    output_schema=s.answer(AppliedPreview),
    handler=stream_edit_apply_tool,
)

REPLACE_DOCUMENT = ToolSpec(
    name="replace_document",
    title="Replace the whole document",
    description=(
        "Replace the entire text of the open document (as set_content), merged: your changes "
        "since the version you last read (or base) land on the live text; lines the person "
        "changed since keep their text (listed in conflicts). CRLF line breaks and a byte order "
        "mark are kept. Destructive: prefer edit_document for targeted changes."
    ),
    input_schema=_SET_INPUT,
    output_schema=s.answer(ContentSet),
    handler=set_content_tool,
    destructive=True,
    idempotent=True,
)

SET_CONTENT = ToolSpec(
    name="set_content",
    title="Set the document's content",
    description=(
        "Replace the entire text of the open document (as replace_document), merged onto what the"
        " person typed since the version you last read (or base); conflicts lists lines where "
        "their text was kept. save: true also writes the file. Destructive: prefer edit_document "
        "for targeted changes."
    ),
    input_schema=_SET_INPUT,
    output_schema=s.answer(ContentSet),
    handler=set_content_tool,
    destructive=True,
    idempotent=True,
)
