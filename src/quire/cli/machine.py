"""This process's machine facts (environment, home folder, command line, working folder), read
in one place for the composition roots (``quire serve``, ``quire connect``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from quire.services.agents.machine import MachineFacts


def machine_facts() -> MachineFacts:
    """The facts of the machine this process runs on, as they are now."""
    return MachineFacts(
        environ=dict(os.environ),
        home=Path.home(),
        argv0=sys.argv[0],
        executable=sys.executable,
        cwd=Path.cwd(),
    )
