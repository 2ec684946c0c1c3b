"""The ``quire`` program's entry point: what runs before the command group loads.

Loading the group (click and Quire's command-line modules) takes a tenth of a second. Before
that, collection is paused (``startup``) and, for ``quire mcp``, the local server is spawned on
standby (``mcp_standby``), so it loads its modules while this process loads its own. Any other
command loads nothing more here: ``quire hook`` runs on every agent write.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from quire.cli.startup import pause_collection

if TYPE_CHECKING:
    from quire.client.autostart import SubprocessStarter


def prepare() -> SubprocessStarter | None:
    """What every run does first: pause collection, and for ``quire mcp`` spawn its server
    on standby when the arguments show it will want one."""
    pause_collection()
    if sys.argv[1:2] != ["mcp"]:
        return None
    try:
        cwd = Path.cwd()
    except OSError:
        return None  # a working folder that is gone: the command says so itself
    from quire.cli.mcp_standby import early_starter

    return early_starter(sys.argv[2:], os.environ, cwd, Path.home())


def main(prog_name: str | None = None) -> None:
    """Run the ``quire`` command line (``prog_name``: the name its help shows, when the
    program's own name is not it, as under ``python -m quire``)."""
    starter = prepare()
    from quire.cli.main import cli

    cli(obj=starter, prog_name=prog_name)
