"""The search_vault tool (and the search behind ``text://vault-search``): a bounded grep.

Searches the server's workspace files and recent documents, or a ``vault`` folder on disk
(no server needed), through ``quire.search.grep``. Semantic search comes with the search
index; until then it is reported unavailable with a note.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from quire.api.search import SearchResult
from quire.core.errors import InvalidArgument, PathRefused
from quire.fs.sandbox import is_dotfile_name
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec
from quire.search.grep import MAX_FILES, GrepResult, grep_files, unread_note, walk_folder

LIMIT = (1, 200, 50)
"""How many results one search may return: least, most and default."""

SEMANTIC_NOTE = (
    "Semantic search is not available in Quire yet (it comes with the search index), so "
    "these are word-search (grep) results."
)


async def search(
    env: ToolEnv,
    query: str,
    *,
    limit: int = LIMIT[2],
    semantic: bool | None = None,
    vault: str | None = None,
    start_server: bool = True,
) -> dict[str, Any]:
    """Search for ``query``: in ``vault`` on disk when given, else the server's documents."""
    query = query.strip()
    if not query:
        raise InvalidArgument("`query` must not be empty or only whitespace.", argument="query")
    notes: list[str] = [SEMANTIC_NOTE] if semantic else []
    if vault is not None:
        result = await _search_vault(env, query, vault, notes)
    else:
        result = await _search_server(env, query, notes, start_server=start_server)
    hits = [
        SearchResult.model_validate(dataclasses.asdict(hit)).dump()
        for hit in result.pop("grep").hits[:limit]
    ]
    answer: dict[str, Any] = {"results": hits, **result, "query": query}
    if notes:
        answer["note"] = " ".join(notes)
    return answer


async def _search_vault(env: ToolEnv, query: str, raw: str, notes: list[str]) -> dict[str, Any]:
    folder = await env.allowed_path(raw, "vault", "search")
    resolved = Path(await anyio.to_thread.run_sync(_real_folder, folder))
    walk = await anyio.to_thread.run_sync(walk_folder, resolved)
    allowed = await env.folders()
    grep = await anyio.to_thread.run_sync(partial(grep_files, walk.files, query, allowed=allowed))
    answer: dict[str, Any] = {"grep": grep, "mode": "grep-disk", "vault": str(resolved)}
    truncated = walk.depth_cut or walk.file_cap or walk.budget_cut or grep.bytes_cut
    if walk.file_cap:
        notes.append(
            f"The folder holds more Markdown files than one search reads ({MAX_FILES:,}), so "
            f"only the first {MAX_FILES:,} were searched; pass a smaller folder as vault."
        )
    if walk.budget_cut:
        notes.append(
            f"The walk stopped after reading {walk.max_entries:,} folder entries, so files in "
            "folders it had not reached were not searched; pass a smaller folder as vault."
        )
    if walk.depth_cut:
        answer["depthCut"] = True
        notes.append(
            f"The folder is nested too deeply: folders more than {walk.max_depth} levels below "
            "it were not searched. Pass a deeper folder as vault to search them."
        )
    if walk.unreadable:
        first = walk.unreadable[0]
        more = len(walk.unreadable) - 1
        notes.append(
            f"The folder {first.path} ({first.reason})"
            + (f" and {more:,} more" if more else "")
            + " could not be read, so the files in them were not searched; fix their "
            "permissions to search them."
        )
    _finish(grep, answer, notes, truncated)
    return answer


async def _search_server(
    env: ToolEnv, query: str, notes: list[str], *, start_server: bool
) -> dict[str, Any]:
    if start_server:
        api = await env.link.api()
    else:
        api = await env.link.require_running(
            "Add &vault=DIR to search a folder on disk, or call a tool such as open_file, "
            "which starts the server."
        )
    files, listing_note = await api.all_files()
    recents = await api.recent(200)
    paths = list(
        dict.fromkeys([Path(item.path) for item in files] + [Path(r.path) for r in recents])
    )
    allowed = await env.folders()
    grep = await anyio.to_thread.run_sync(partial(grep_files, paths, query, allowed=allowed))
    answer: dict[str, Any] = {"grep": grep, "mode": "grep"}
    if listing_note:
        notes.append(listing_note + " Only the listed files were searched.")
    _finish(grep, answer, notes, truncated=listing_note is not None)
    return answer


def _finish(grep: GrepResult, answer: dict[str, Any], notes: list[str], truncated: bool) -> None:
    if grep.bytes_cut:
        notes.append(
            "The search stopped after reading 512 MiB of text, so some files were not "
            "searched; search a smaller folder."
        )
    unread = unread_note(grep.unread)
    if unread:
        notes.append(unread)
    if truncated or grep.bytes_cut:
        answer["truncated"] = True


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
    )


def _output_schema() -> s.Json:
    """The tool's result: the results are the window search's (``quire.api.search``)."""
    return s.out(
        {
            "results": s.answers(SearchResult),
            "mode": {"type": "string", "enum": ["grep", "grep-disk"]},
            "query": s.STRING,
            "note": s.STRING,
            "vault": s.STRING,
            "truncated": s.BOOLEAN,
            "depthCut": s.BOOLEAN,
        },
        ["results", "mode", "query"],
    )


SEARCH_VAULT = ToolSpec(
    name="search_vault",
    title="Search the workspace",
    description=(
        "Case-insensitive word search (grep) across the Markdown files of Quire's workspaces "
        "and the recent documents, best matches first, each with its title and first "
        "matching lines. With vault it searches that folder on disk instead and needs no "
        "server (mode grep-disk). Files that cannot be read are named in note; truncated "
        "says when not every file was searched. semantic: true is answered with word search "
        "and a note until Quire's search index is available."
    ),
    input_schema=s.obj(
        {
            "query": s.text(
                "The words to find (matched as one phrase, ignoring case).", filled=True
            ),
            "limit": s.integer("The most results to return.", LIMIT[0], LIMIT[1], LIMIT[2]),
            "semantic": s.boolean("Ask for semantic search (not available yet; see note)."),
            "vault": s.path("A folder of Markdown files to search on disk instead."),
        },
        ["query"],
    ),
    output_schema=_output_schema(),
    handler=search_vault_tool,
    read_only=True,
    idempotent=True,
)
