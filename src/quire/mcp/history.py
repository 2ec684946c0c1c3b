"""The history tools: get_history, get_version and restore_version.

Each checks its path against the allowed folders of this MCP process (``ToolEnv``), then makes
one call to the server's history routes (starting the server when none runs); the server's
git history decides the rest. A refusal names the call to make next.
"""

from __future__ import annotations

from typing import Any

from quire.api.history import Restored
from quire.client.history import HistoryApi
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.mcp.documents import server
from quire.mcp.pages import MORE, PAGE_ARGUMENTS, PAGED, kept, paged, text_page

REV = "A rev from get_history, HEAD or HEAD~N."

ENTRY = s.out(
    {
        "rev": s.STRING,
        "author": s.STRING,
        "timeMs": s.INTEGER,
        "message": s.STRING,
        "path": s.NULLABLE_STRING,
    },
    ["rev", "author", "timeMs", "message"],
)
"""One commit as get_history lists it: a short answer, so tools/list stays small."""


async def _history(env: ToolEnv) -> HistoryApi:
    api, _ = await server(env)
    return HistoryApi(api)


async def get_history_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """A note's commits, newest first."""
    path = await env.allowed_path(args["path"], "path", "read the history of")
    history = await _history(env)
    page = await history.history(str(path), limit=args.get("limit"), cursor=args.get("cursor"))
    entries = [
        {"rev": entry.short, "author": entry.author, "timeMs": entry.time_ms,
         "message": entry.message, "path": entry.path}
        for entry in page.entries
    ]  # fmt: skip
    answer: dict[str, Any] = {"entries": entries}
    if page.next_cursor is not None:
        answer["nextCursor"] = page.next_cursor
    return answer


async def get_version_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """A note's text at one commit, one page of it when it is long (size counts it whole)."""
    path = await env.allowed_path(args["path"], "path", "read the history of")
    history = await _history(env)
    version = await history.version(str(path), args["rev"])
    page = text_page(version.content, args)
    # The next page names the full rev, so a branch that moves meanwhile cannot mix texts.
    keep = {"path": version.path, "rev": version.rev} | kept(args, "limit")
    answer = {"path": version.path, "rev": version.rev, "size": version.size}
    return paged(answer, "content", page, GET_VERSION_NAME, keep)


async def restore_version_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Restore a note to one commit's text."""
    path = await env.allowed_path(args["path"], "path", "restore")
    history = await _history(env)
    return (await history.restore(str(path), args["rev"])).dump()


GET_HISTORY = ToolSpec(
    name="get_history",
    title="A note's history",
    description=(
        "A note's commits, newest first: rev, author (`agent (via account)` for an agent), "
        "time, message. nextCursor pages on."
    ),
    input_schema=s.obj(
        {
            "path": s.path("The note."),
            "limit": s.integer("Commits per page.", 1, 200, default=20),
            "cursor": s.text("The nextCursor of the previous page.", filled=True),
        },
        ["path"],
    ),
    output_schema=s.out(
        {"entries": {"type": "array", "items": ENTRY}, "nextCursor": s.STRING}, ["entries"]
    ),
    handler=get_history_tool,
    read_only=True,
)

GET_VERSION_NAME = "get_version"

GET_VERSION = ToolSpec(
    name=GET_VERSION_NAME,
    title="A note at one commit",
    description="A note's text as it was at one commit of its history." + PAGED,
    input_schema=s.obj(
        {"path": s.path("The note."), "rev": s.text(REV, filled=True), **PAGE_ARGUMENTS},
        ["path", "rev"],
    ),
    output_schema=s.out(
        {
            "path": s.STRING,
            "rev": s.STRING,
            "content": s.STRING,
            "size": s.INTEGER,
            "more": MORE,
        },
        ["path", "rev", "content", "size"],
    ),
    handler=get_version_tool,
    read_only=True,
)

RESTORE_VERSION = ToolSpec(
    name="restore_version",
    title="Restore a note to a commit",
    description=(
        "Make a note hold its text at one rev again (open editors merge it; a commit of its "
        "own). Replaces the current text: ask the person first."
    ),
    input_schema=s.obj(
        {"path": s.path("The note."), "rev": s.text(REV, filled=True)}, ["path", "rev"]
    ),
    output_schema=s.answer(Restored),
    handler=restore_version_tool,
    destructive=True,
)

HISTORY_TOOLS = (GET_HISTORY, GET_VERSION)
"""The history tools that only read (restore_version goes last, with the destructive ones)."""
