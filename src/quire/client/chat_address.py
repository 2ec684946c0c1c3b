"""How a chat is named on the command line: a path on this machine inside a server workspace.

Turns ``CHAT`` arguments (absolute, relative to the working directory or, failing that, to a
workspace) into the absolute path the API takes; ``@alias/…`` addresses are
``client.remote``'s, and the commands that do not take them refuse them here. It never talks
to the server: the caller passes its workspaces.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from quire.core.errors import InvalidArgument
from quire.core.paths import expand_path


def refuse_remote(raw: str, argument: str) -> None:
    """Refuse an ``@alias/workspace/path.md`` address where a command takes local paths."""
    if raw.startswith("@"):
        raise InvalidArgument(
            f"{argument} {raw[:80]!r} names a remote server (@alias/workspace/path.md), which "
            "only `quire chat …` and `quire mcp --server @alias` reach. Pass a path on this "
            "machine instead (absolute, or relative to the working directory).",
            argument=argument,
        )


def workspace_of(path: Path, workspaces: Sequence[Path]) -> Path | None:
    """The workspace that holds ``path`` (the innermost when they nest), or None."""
    holding = [folder for folder in workspaces if path == folder or path.is_relative_to(folder)]
    return max(holding, key=lambda folder: len(folder.parts), default=None)


def chat_path(
    raw: str, *, cwd: Path, home: Path, workspaces: Sequence[Path], argument: str = "CHAT"
) -> Path:
    """The absolute path (symlinks resolved) of the chat ``raw`` names.

    A relative path is taken from ``cwd``; when that lands outside every workspace, from the
    one workspace where it exists (or the only workspace), so ``Chats/team.md`` works from
    anywhere. Raises InvalidArgument for ``@alias`` addresses, empty or NUL paths, and paths
    outside every workspace (naming the workspaces).
    """
    refuse_remote(raw, argument)
    path = _resolved(expand_path(raw, cwd=cwd, home=home, argument=argument))
    if workspace_of(path, workspaces) is not None:
        return path
    if not Path(raw).is_absolute() and not raw.startswith("~"):
        candidates = [_resolved(folder / raw) for folder in workspaces]
        inside = [
            candidate
            for folder, candidate in zip(workspaces, candidates, strict=True)
            if candidate.is_relative_to(folder)
        ]
        existing = [candidate for candidate in inside if candidate.exists()]
        if len(existing) == 1:
            return existing[0]
        if len(workspaces) == 1 and len(inside) == 1:
            return inside[0]
    raise InvalidArgument(outside_message(argument, path, workspaces), argument=argument)


def workspace_path(
    raw: str | None, *, cwd: Path, home: Path, workspaces: Sequence[Path], argument: str
) -> Path:
    """The workspace ``raw`` names (a folder in or of one), else the one holding ``cwd``, else
    the only workspace; InvalidArgument when none fits."""
    if raw is not None:
        refuse_remote(raw, argument)
        path = _resolved(expand_path(raw, cwd=cwd, home=home, argument=argument))
    else:
        path = _resolved(cwd)
    found = workspace_of(path, workspaces)
    if found is not None:
        return found
    if raw is None and len(workspaces) == 1:
        return workspaces[0]
    raise InvalidArgument(outside_message(argument, path, workspaces), argument=argument)


def outside_message(argument: str, path: Path, workspaces: Sequence[Path]) -> str:
    """The refusal for a path outside every workspace, naming them."""
    served = ", ".join(str(folder) for folder in workspaces) or "none"
    return (
        f"{argument} {path} is not inside a workspace of the Quire server (its workspaces: "
        f"{served}). Pass a path inside one of them, or serve that folder too "
        "(`quire serve FOLDER …`)."
    )


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))
