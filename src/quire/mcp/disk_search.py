"""``search_vault`` with a ``vault`` no server serves: the folder grepped on disk, beneath
the allowed folders, in one page (case-insensitive substring, as the server's grep mode).

Loaded by ``quire.mcp.search`` only when such a search runs, so the grep and the Markdown
parser its titles need stay out of ``quire mcp``'s start.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import anyio

from quire.api.search import MARK_END, MARK_START
from quire.mcp.context import ToolEnv
from quire.search.grep import MAX_FILES, GrepResult, Hit, grep_files, unread_note, walk_folder


async def search_disk(
    env: ToolEnv, query: str, resolved: Path, limit: int, notes: list[str]
) -> dict[str, Any]:
    """The files under ``resolved`` holding ``query``: at most ``limit`` results, with what
    the walk or the grep left out added to ``notes``."""
    walk = await anyio.to_thread.run_sync(walk_folder, resolved)
    allowed = await env.folders()
    grep = await anyio.to_thread.run_sync(partial(grep_files, walk.files, query, allowed=allowed))
    results = [_disk_result(hit, query) for hit in grep.hits[:limit]]
    answer: dict[str, Any] = {
        "results": results,
        "mode": "grep-disk",
        "query": query,
        "vault": str(resolved),
    }
    truncated = walk.depth_cut or walk.file_cap or walk.budget_cut or len(grep.hits) > limit
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
    _finish(grep, notes)
    if notes:
        answer["note"] = " ".join(notes)
    if truncated or grep.bytes_cut:
        answer["truncated"] = True
    return answer


def _disk_result(hit: Hit, query: str) -> dict[str, Any]:
    first = hit.lines[0] if hit.lines else None
    snippet = "" if first is None else _marked(first.text, query)
    return {
        "path": hit.path,
        "title": hit.title,
        "line": 0 if first is None else first.line,
        "snippet": snippet,
        "matches": hit.matches,
    }


def _marked(text: str, query: str) -> str:
    clean = text.replace(MARK_START, "").replace(MARK_END, "")
    at = clean.casefold().find(query.casefold())
    if at < 0 or len(clean.casefold()) != len(clean):
        return clean
    end = at + len(query)
    return f"{clean[:at]}{MARK_START}{clean[at:end]}{MARK_END}{clean[end:]}"


def _finish(grep: GrepResult, notes: list[str]) -> None:
    if grep.bytes_cut:
        notes.append(
            "The search stopped after reading 512 MiB of text, so some files were not "
            "searched; search a smaller folder."
        )
    unread = unread_note(grep.unread)
    if unread:
        notes.append(unread)
