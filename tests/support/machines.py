"""A temporary machine for servers under test: its own home folder and PATH, so no test reads
or changes the agents and hooks of the person running the tests."""

from __future__ import annotations

import sys
from pathlib import Path

from quire.services.agents.machine import MachineFacts
from tests.support.agent_shims import environ_with_path


def temporary_machine(home: Path, bin_dir: Path) -> MachineFacts:
    """The facts of a machine whose home folder is ``home`` and whose PATH is ``bin_dir``.

    Neither folder needs to exist. The ``quire`` program found on it is the one next to this
    Python (the test run's own install), as for ``python -m quire``.
    """
    return MachineFacts(
        environ=environ_with_path(bin_dir),
        home=home,
        argv0=sys.executable,
        executable=sys.executable,
        cwd=home.parent,
    )


def machine_under(folder: Path) -> MachineFacts:
    """A temporary machine whose home folder and PATH are ``agent-home`` and ``agent-bin``
    under ``folder``: for servers whose tests do not look at agents."""
    return temporary_machine(folder / "agent-home", folder / "agent-bin")
