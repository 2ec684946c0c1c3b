"""Which agents are installed: their command on PATH, or (for an agent Quire configures
through a file) their settings folder in the home folder.
"""

from __future__ import annotations

from dataclasses import dataclass

from quire.services.agents.machine import Machine
from quire.services.agents.results import AgentId


@dataclass(frozen=True)
class Sign:
    """How an agent shows it is installed."""

    name: str
    program: str
    folder: str
    """Its settings folder, relative to the home folder."""
    program_needed: bool
    """True when Quire connects it by running its command, so the folder alone is not enough."""


@dataclass(frozen=True)
class Detection:
    """Whether an agent is here, and a sentence saying where (or what is missing)."""

    detected: bool
    detail: str


SIGNS: dict[AgentId, Sign] = {
    "claude-code": Sign("Claude Code", "claude", ".claude", program_needed=True),
    "codex": Sign("Codex", "codex", ".codex", program_needed=True),
    "cursor": Sign("Cursor", "cursor", ".cursor", program_needed=False),
}


def detect(agent: AgentId, machine: Machine) -> Detection:
    """Whether ``agent`` is installed on ``machine``."""
    sign = SIGNS[agent]
    found = machine.which(sign.program)
    if found is not None:
        return Detection(True, f"{sign.name} is installed: `{sign.program}` is {found}.")
    has_folder = (machine.home / sign.folder).is_dir()
    if has_folder and not sign.program_needed:
        return Detection(True, f"{sign.name} is installed: ~/{sign.folder} exists.")
    if has_folder:
        return Detection(
            False,
            f"~/{sign.folder} exists, but the `{sign.program}` command is not on PATH, and "
            f"Quire connects {sign.name} by running it. Put it on PATH (for the Connect page: "
            "before `quire serve` starts), then try again.",
        )
    folder = "" if sign.program_needed else f" and there is no ~/{sign.folder} folder"
    return Detection(
        False,
        f"{sign.name} was not found: the `{sign.program}` command is not on PATH{folder}. "
        f"Install {sign.name}, then try again.",
    )


def has_program_or_folder(agent: AgentId, machine: Machine) -> bool:
    """Whether ``agent``'s command or its settings folder is here (enough to write its
    settings files, which needs no command)."""
    sign = SIGNS[agent]
    return machine.which(sign.program) is not None or (machine.home / sign.folder).is_dir()
