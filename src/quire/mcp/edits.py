"""The tools that change the open document: edit_document, stream_edit, stream_edit_apply,
set_content and replace_document.

Each makes one call to the server, which applies the change to the live document; matching
rules and size checks live in the server (the client refuses a body too large to send before
sending it). A tool's structured result is the server's answer as its API model dumps it, and
its output schema is that model's.
"""

from __future__ import annotations

from typing import Any

from quire.api.documents import AppliedPreview, Candidate, ContentSet, Replaced, StreamPreview
from quire.core.errors import InvalidArgument, NotOpen
from quire.core.pages import BUDGET_CHARS, MAX_LINES, page_of
from quire.markdown.edits import MAX_MATCH_INDEX, MAX_PREVIEW_LINES
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.documents import server
from quire.mcp.pages import MORE, kept, message_count, more_candidates, more_lines

NO_DOCUMENT = "No document is open in Quire; open one first (open_file)."


async def _path(env: ToolEnv, args: dict[str, Any]) -> str | None:
    return str(await env.server_path(args["path"], "path")) if "path" in args else None


async def edit_document_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Replace the one occurrence of ``find`` in the open document."""
    api, _ = await server(env)
    try:
        replaced = await api.edit(
            args["find"],
            args["replace"],
            save=bool(args.get("save", False)),
            path=await _path(env, args),
            read_versions=env.read_versions(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    env.remember_version(replaced.doc_id, replaced.version)
    return replaced.dump()


async def stream_edit_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Preview a find/replace as a diff (or apply it at once with preview false)."""
    api, _ = await server(env)
    try:
        preview = await api.stream_edit(
            args["find"],
            args["replace"],
            preview=bool(args.get("preview", True)),
            preview_lines=int(args.get("preview_lines", 5)),
            path=await _path(env, args),
            read_versions=env.read_versions(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    if preview.applied:
        env.remember_version(preview.doc_id, preview.version)
    return _bounded_preview(preview, args)


def _bounded_preview(preview: StreamPreview, args: dict[str, Any]) -> dict[str, Any]:
    """The preview as one result holds it (the call that reads on repeats find and replace,
    so they count too): its ``diff`` from line ``diff_offset`` on, cut at a line; once the
    diff's last line is in, the candidates from ``offset`` on (a candidate's diff longer than
    half a result cut at a line), and the ``more`` that names the next call."""
    offset = int(args.get("offset", 0))
    if preview.candidates is not None and offset >= len(preview.candidates):
        raise InvalidArgument(
            f"offset {offset} is past the last candidate: find occurs {preview.match_count} "
            f"times, so offset runs from 0 to {preview.match_count - 1}.",
            argument="offset",
        )
    budget = max(BUDGET_CHARS - len(args["find"]) - len(args["replace"]), 0)
    keep = kept(args, "find", "replace", "preview_lines", "path")
    page = page_of(preview.diff, int(args.get("diff_offset", 1)), None, budget)
    more = more_lines(page, STREAM_EDIT.name, keep | kept(args, "offset"), key="diff_offset")
    candidates = preview.candidates
    if candidates is not None and page.remaining:
        candidates = []  # the diff fills this result; the candidates follow its last page
    elif candidates is not None:
        listed = [_cut_diff(item) for item in candidates[offset:]]
        room = max(budget - len(page.text), 0)
        count = message_count([len(item.diff) + 60 for item in listed], room)
        candidates = listed[:count]
        if count < len(listed):
            more = more_candidates(
                listed[count].match_index, len(listed) - count, STREAM_EDIT.name, keep
            )
    result = preview.model_copy(update={"diff": page.text, "candidates": candidates}).dump()
    if more is not None:
        result["more"] = more
    return result


def _cut_diff(candidate: Candidate) -> Candidate:
    if len(candidate.diff) <= BUDGET_CHARS // 2:
        return candidate
    return candidate.model_copy(
        update={"diff": page_of(candidate.diff, 1, None, BUDGET_CHARS // 2).text}
    )


async def stream_edit_apply_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Apply occurrence ``match_index`` of a previewed edit, counted in the text ``base``
    names (default: the preview's; without an edit id, the version this client last read)."""
    api, _ = await server(env)
    edit_id = args.get("edit_id")
    try:
        applied = await api.stream_edit_apply(
            args["find"],
            args["replace"],
            edit_id=edit_id,
            match_index=int(args.get("match_index", 0)),
            save=bool(args.get("save", False)),
            path=await _path(env, args),
            base=args.get("base"),
            read_versions=env.read_versions(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    env.remember_version(applied.doc_id, applied.version)
    return applied.dump()


async def set_content_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Replace the open document's whole text, merged onto the person's edits since the
    version this client last read of it (or ``base``): the server picks the open document's
    entry of the versions sent, so no call asks which document is open first."""
    api, _ = await server(env)
    try:
        done = await api.set_content(
            args["content"],
            save=bool(args.get("save", False)),
            base=args.get("base"),
            read_versions=env.read_versions(),
        )
    except NotOpen:
        raise NotOpen(NO_DOCUMENT) from None
    env.remember_version(done.doc_id, done.version)
    return done.dump()


_FIND = s.text(
    "The exact text to find, whitespace included (a line break matches LF or CRLF).",
    filled=True,
    blank_ok=True,
)
_REPLACE = s.text("The text to put in its place (may be empty).")
_SAVE = s.boolean("Also write the file.", False)
_EDIT_PATH = s.path("Refused unless this is the open document.")
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
        "counts the matches: include enough surrounding text. replace keeps its line's line "
        "breaks. Prefer it to set_content."
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
        "Preview a find/replace on the open document as a unified diff, with candidates "
        "[{matchIndex, startLine, diff, rank}] when find occurs more than once (else null). "
        "Then stream_edit_apply with editId and match_index. preview: false applies a unique "
        "match at once. Over ~20,000 tokens, more reads on."
    ),
    input_schema=s.obj(
        {
            "find": _FIND,
            "replace": _REPLACE,
            "preview": s.boolean("Only preview (false applies a unique match now).", True),
            "preview_lines": s.integer(
                "Context lines around each change.", 0, MAX_PREVIEW_LINES, 5
            ),
            "path": _EDIT_PATH,
            "offset": s.integer(
                "The first candidate to list (its matchIndex).", 0, MAX_MATCH_INDEX, 0
            ),
            "diff_offset": s.integer("The diff line to start at (see more).", 1, MAX_LINES, 1),
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
        "Apply occurrence match_index (0-based) of a stream_edit preview, merged onto what the "
        "person typed since. edit_id names an unapplied preview with the same find and replace;"
        " a stale or unknown one is refused, nothing changes (call stream_edit again)."
    ),
    input_schema=s.obj(
        {
            "edit_id": s.text("The editId stream_edit returned.", filled=True),
            "find": _FIND,
            "replace": _REPLACE,
            "match_index": s.integer("Which occurrence to replace, from 0.", 0, MAX_MATCH_INDEX, 0),
            "save": _SAVE,
            "path": _EDIT_PATH,
            "base": s.text(
                "The version match_index counts in; default: the preview's (its version).",
                filled=True,
            ),
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
        "The same tool as set_content: the open document's whole text, merged from base (CRLF "
        "and a byte order mark kept). Destructive: prefer edit_document for targeted changes."
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
        "Replace the open document's whole text, merged: your changes since base land on the "
        "person's text; conflicts lists lines where theirs was kept. Destructive: prefer "
        "edit_document for targeted changes."
    ),
    input_schema=_SET_INPUT,
    output_schema=s.answer(ContentSet),
    handler=set_content_tool,
    destructive=True,
    idempotent=True,
)
