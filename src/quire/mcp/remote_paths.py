"""Path arguments of an account's call, named on the server's machine, not this one.

A remote call (``ToolEnv.remote``: ``quire mcp --server @alias``, or an account's token on
``/mcp``) passes its paths to a server whose disk is not the caller's: a path relative to the
caller's working directory or home would name a file of the wrong machine. So a remote path is
either absolute on the server (as ``search_vault``, ``list_recent`` and ``resources/list``
name files) or starts with a workspace's name (``team/plans/q3.md``, as the ``@alias/team/…``
addresses of ``quire chat`` do); with a single workspace its name may be left out. The server
still resolves the result and checks the account's grants.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from quire.core.errors import InvalidArgument
from quire.core.paths import expand_path


def server_path(raw: str, argument: str, workspaces: Sequence[tuple[str, str]]) -> Path:
    """The server's absolute path that the argument ``raw`` names.

    ``workspaces`` are the server's (name, absolute path) as ``GET /api/workspaces`` lists
    them for the account. Absolute paths are kept (made lexically clean); a relative path
    takes its first part as a workspace's name, else the only workspace. Raises
    InvalidArgument naming ``argument`` for ``~`` paths, ``.``/``..`` parts, and a relative path
    no workspace takes.
    """
    root = Path("/")
    if raw.startswith("~"):
        raise InvalidArgument(
            f"`{argument}` {raw[:200]!r} starts with ~, but this call works on a Quire server's "
            f"files, not this machine's home. {_forms(workspaces)}",
            argument=argument,
        )
    path = expand_path(raw, cwd=root, home=root, argument=argument)
    if PurePosixPath(raw).is_absolute():
        return path
    segments = raw.split("/")
    if "\\" in raw or any(part in (".", "..") for part in segments):
        raise InvalidArgument(
            f"`{argument}` {raw[:200]!r} has `.`, `..` or a backslash, which a path on a Quire "
            f"server may not use. {_forms(workspaces)}",
            argument=argument,
        )
    parts = [part for part in segments if part]
    first, *rest = parts
    for name, folder in workspaces:
        if name == first:
            return Path(folder, *rest)
    if len(workspaces) == 1:
        return Path(workspaces[0][1], *parts)
    raise InvalidArgument(
        f"`{argument}` {raw[:200]!r} is relative, and its first part names none of the "
        f"server's workspaces. {_forms(workspaces)}",
        argument=argument,
    )


def _forms(workspaces: Sequence[tuple[str, str]]) -> str:
    """What a remote path may look like, with this server's workspaces as examples."""
    if not workspaces:
        return (
            "Your account has access to no workspace on this server; ask a workspace admin for "
            "a grant."
        )
    names = ", ".join(name for name, _ in workspaces[:10])
    name, folder = workspaces[0]
    return (
        f"Name the file by its absolute path on the server ({folder}/note.md) or by its "
        f"workspace and path inside it ({name}/note.md). The server's workspaces: {names}."
    )
