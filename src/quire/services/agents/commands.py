"""Running an agent's own command line (``claude mcp …``, ``codex mcp …``) and reporting
what it did, in words a person can act on.

Never runs through a shell: the argv goes to the program as a list, so no path needs quoting.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from quire.services.agents.machine import Machine

TIMEOUT_SECONDS = 60
"""How long an agent's command may take; ``claude mcp get`` starts the server to check it."""

_SHOWN_LINES = 6


@dataclass(frozen=True)
class Ran:
    """One finished (or failed to start) agent command."""

    argv: tuple[str, ...]
    """What was run, with the program as the person would type it (its name, not its path)."""
    exit_code: int | None
    """None when the program could not be started or did not finish in time."""
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        """Whether the command ran and exited 0."""
        return self.exit_code == 0

    @property
    def shown(self) -> str:
        """The command as a person would type it in a shell."""
        return shlex.join(self.argv)

    def failure(self) -> str:
        """Why the command failed, with the first lines it printed, for a message."""
        if self.exit_code is None:
            return f"`{self.shown}` could not run: {self.stderr}"
        said = "\n".join((self.stderr.strip() or self.stdout.strip()).splitlines()[:_SHOWN_LINES])
        detail = f": {said}" if said else " without saying why"
        return f"`{self.shown}` failed (exit {self.exit_code}){detail}"


def run_agent(machine: Machine, program: str, args: Sequence[str]) -> Ran:
    """Run ``program`` (found on the machine's PATH) with ``args``; never raises for a
    failing or missing program, which the result reports instead."""
    argv = (program, *args)
    found = machine.which(program)
    if found is None:
        return Ran(argv, None, "", f"the `{program}` command is not on PATH")
    try:
        done = subprocess.run(
            [found, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=dict(machine.environ),
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Ran(argv, None, "", f"it did not finish within {TIMEOUT_SECONDS} seconds")
    except OSError as exc:
        return Ran(argv, None, "", exc.strerror or str(exc))
    return Ran(argv, done.returncode, done.stdout, done.stderr)
