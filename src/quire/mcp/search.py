"""The search_vault tool (and the search behind ``text://vault-search``).

With a server: one page of its search index (``GET /api/search``), grep or words mode, with
cursors. With ``vault`` naming a folder the server does not serve (or with no server at all),
that folder is grepped on disk through ``quire.search.grep`` (mode grep-disk, no cursor).
``semantic`` asks the server for its semantic mode (the words ranking fused with the notes
nearest in meaning; the server says in ``note`` when its extra is not installed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from quire.api.search import SEARCH_MODES, SearchMode, SearchPage
from quire.core.errors import InvalidArgument, PathRefused
from quire.fs.sandbox import is_dotfile_name
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec

LIMIT = (1, 200, 50)
"""How many results one search may return: least, most and default."""

MODES = ("grep", "words")
"""The modes an agent may ask for; ``semantic: true`` asks for the server's semantic mode."""


async def search(
    env: ToolEnv,
    query: str,
    *,
    limit: int = LIMIT[2],
    semantic: bool | None = None,
    vault: str | None = None,
    mode: str | None = None,
    cursor: str | None = None,
    start_server: bool = True,
) -> dict[str, Any]:
    """Search for ``query``: the server's index, or ``vault`` on disk when no server serves it."""
    query = query.strip()
    if not query:
        raise InvalidArgument("`query` must not be empty or only whitespace.", argument="query")
    if mode is not None and mode not in MODES:
        raise InvalidArgument(f"`mode` must be grep or words, got {mode!r}.", argument="mode")
    notes: list[str] = []
    chosen: SearchMode = "semantic" if semantic else "words" if mode == "words" else "grep"
    if vault is not None:
        folder = await _vault_folder(env, vault)
        served = await _serving(env, folder)
        if served is None:
            if cursor is not None:
                raise InvalidArgument(
                    "`cursor` pages the server's index, and this vault is searched on disk "
                    "(no server serves it), which answers in one page. Leave cursor out.",
                    argument="cursor",
                )
            if chosen != "grep":
                notes.append(
                    f"{chosen.capitalize()} search needs the server's index, which does not "
                    "serve this folder, so it was grepped on disk (case-insensitive substring)."
                )
            # The grep (and the Markdown parser its titles need) loads only for a disk search.
            from quire.mcp.disk_search import search_disk

            return await search_disk(env, query, folder, limit, notes)
        api, workspace = served
        page = await api.search(query, mode=chosen, limit=limit, cursor=cursor, workspace=workspace)
        return _page_answer(page, notes, vault=str(folder))
    if start_server:
        api = await env.link.api()
    else:
        api = await env.link.require_running(
            "Add &vault=DIR to search a folder on disk, or call a tool such as open_file, "
            "which starts the server."
        )
    page = await api.search(query, mode=chosen, limit=limit, cursor=cursor)
    return _page_answer(page, notes)


def _page_answer(page: SearchPage, notes: list[str], *, vault: str | None = None) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for hit in page.hits:
        result: dict[str, Any] = {
            "path": hit.path,
            "title": hit.title,
            "line": hit.line,
            "snippet": hit.snippet,
        }
        if hit.matches is not None:
            result["matches"] = hit.matches
        results.append(result)
    answer: dict[str, Any] = {"results": results, "mode": page.mode, "query": page.query}
    if page.note:
        notes.append(page.note)
    if notes:
        answer["note"] = " ".join(notes)
    if vault is not None:
        answer["vault"] = vault
    if page.truncated:
        answer["truncated"] = True
    if page.next_cursor is not None:
        answer["nextCursor"] = page.next_cursor
    return answer


async def _serving(env: ToolEnv, folder: Path) -> tuple[Any, str] | None:
    """The running server's API and the served folder ``folder`` is, or None."""
    api = await env.link.running()
    if api is None:
        return None
    try:
        served = await api.workspaces()
    except Exception:
        return None
    return (api, str(folder)) if str(folder) in served else None


async def _vault_folder(env: ToolEnv, raw: str) -> Path:
    folder = await env.allowed_path(raw, "vault", "search")
    if env.remote:  # a folder of the server's machine: only the server may resolve it
        return folder
    return Path(await anyio.to_thread.run_sync(_real_folder, folder))


def _real_folder(folder: Path) -> str:
    try:
        resolved = folder.resolve(strict=True)
    except OSError:
        raise PathRefused(
            f"Cannot search '{folder}': the folder does not exist. Pass the folder that holds "
            "the Markdown files."
        ) from None
    if not resolved.is_dir():
        raise PathRefused(
            f"Cannot search '{folder}': it is not a folder. Pass the folder that holds the "
            "Markdown files as vault."
        )
    if is_dotfile_name(resolved.name) or is_dotfile_name(folder.name):
        raise PathRefused(
            f"Refusing to search '{folder}': it is a hidden folder, and searches skip hidden "
            "folders. Pass the folder that holds the Markdown files."
        )
    return str(resolved)


async def search_vault_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Search the workspaces (or ``vault``) for ``query``."""
    return await search(
        env,
        args["query"],
        limit=int(args.get("limit", LIMIT[2])),
        semantic=args.get("semantic"),
        vault=args.get("vault"),
        mode=args.get("mode"),
        cursor=args.get("cursor"),
    )


SEARCH_VAULT = ToolSpec(
    name="search_vault",
    title="Search the workspace",
    description=(
        "Search the workspaces' Markdown: per file path, title, first matching line, snippet "
        "(match between U+0002 and U+0003). mode grep (default): substring, any case; words: "
        "every word, best first. tag:NAME filters. truncated: pass nextCursor as cursor. vault "
        "(a folder no server serves) greps the disk. note names unread files."
    ),
    input_schema=s.obj(
        {
            "query": s.text(
                "What to find: a substring (grep) or words (words); tag:NAME filters.",
                filled=True,
            ),
            "limit": s.integer("The most results to return.", LIMIT[0], LIMIT[1], LIMIT[2]),
            "semantic": s.boolean("Rank by meaning too (a server extra)."),
            "vault": s.path("A folder of Markdown files to search (on disk when not served)."),
            "mode": s.enum("grep: substring ignoring case (default); words: ranked.", MODES),
            "cursor": s.text(
                "The nextCursor of the previous page, to get the next one.", filled=True
            ),
        },
        ["query"],
    ),
    output_schema=s.out(
        {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": s.STRING,
                        "title": s.STRING,
                        "line": s.INTEGER,
                        "snippet": s.STRING,
                        "matches": s.INTEGER,
                    },
                    "required": ["path", "title", "line", "snippet"],
                },
            },
            "mode": {"type": "string", "enum": [*SEARCH_MODES, "grep-disk"]},
            "query": s.STRING,
            "note": s.STRING,
            "vault": s.STRING,
            "truncated": s.BOOLEAN,
            "nextCursor": s.STRING,
            "depthCut": s.BOOLEAN,
        },
        ["results", "mode", "query"],
    ),
    handler=search_vault_tool,
    read_only=True,
    idempotent=True,
)
