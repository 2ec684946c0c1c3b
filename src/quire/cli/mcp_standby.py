"""The local server ``quire mcp`` may start, spawned on standby as early as the process can.

A server process takes longer to load its modules than ``quire mcp`` takes to load its own, and
an agent's first tool call waits for whichever ends last. So when no server runs, one is spawned
on standby (see ``quire.client.autostart``) before anything heavy loads: from the ``quire``
program's entry point (``quire.cli.entry``) when the arguments allow (``early_starter``), else
when the command starts. This module imports only what that takes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from quire.client.autostart import SubprocessStarter
from quire.core.errors import QuireError
from quire.core.state import state_folder
from quire.settings.server_file import Found, discover

NOT_STARTING = frozenset({"--server", "--export-tool-schema", "--help", "-h", "--version", "-V"})
"""``quire mcp``'s options after which it never starts a server (or does not run at all)."""


def prepared_starter(
    server: str | None, environ: Mapping[str, str], cwd: Path, home: Path
) -> SubprocessStarter | None:
    """The local server's starter, its server spawned on standby when none runs yet; None
    when ``--server`` names another server (nothing is ever started then)."""
    if server is not None:
        return None
    state = state_folder(environ, home)
    starter = SubprocessStarter(state=state, cwd=cwd, environ=environ)
    try:
        running = isinstance(discover(state), Found)
    except QuireError:
        return starter  # an unreadable server file: the first start says so
    if not running:
        starter.prepare()
    return starter


def early_starter(
    args: Sequence[str], environ: Mapping[str, str], cwd: Path, home: Path
) -> SubprocessStarter | None:
    """The starter for ``quire mcp ARGS`` when no option in ``args`` would keep it from
    starting a server; None otherwise, and the command decides once its options are read."""
    if any(arg.partition("=")[0] in NOT_STARTING for arg in args):
        return None
    return prepared_starter(None, environ, cwd, home)
