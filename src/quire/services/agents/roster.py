"""The agents Quire connects, by id: their status for the Connect page and ``quire connect``,
connecting one, and changing the hooks, one change at a time.

Dispatches to the agent modules; holds no agent-specific rule of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from quire.api.agents import AgentStatus
from quire.core.errors import InvalidArgument
from quire.services.agents import cursor, hooks, mcp_cli
from quire.services.agents.claude import CLAUDE
from quire.services.agents.codex import CODEX
from quire.services.agents.detection import SIGNS, detect
from quire.services.agents.machine import Machine
from quire.services.agents.results import AGENT_IDS, AgentId, Outcome, Registration

_CHANGES = threading.Lock()
"""One change at a time: two clicks must not both read a settings file, then both write it."""


@dataclass(frozen=True)
class Agent:
    """How Quire registers itself with one agent."""

    id: AgentId
    name: str
    registration: Callable[[Machine], Registration]
    connect: Callable[[Machine], Outcome]
    print_command: Callable[[Machine], str]
    """What ``--print`` shows: the command (or JSON) registering this Quire by hand."""


AGENTS: dict[AgentId, Agent] = {
    "claude-code": Agent(
        "claude-code",
        CLAUDE.name,
        lambda machine: mcp_cli.registration(CLAUDE, machine),
        lambda machine: mcp_cli.connect(CLAUDE, machine),
        CLAUDE.print_command,
    ),
    "codex": Agent(
        "codex",
        CODEX.name,
        lambda machine: mcp_cli.registration(CODEX, machine),
        lambda machine: mcp_cli.connect(CODEX, machine),
        CODEX.print_command,
    ),
    "cursor": Agent("cursor", cursor.NAME, cursor.registration, cursor.connect, cursor.print_json),
}


def agent(agent_id: str) -> Agent:
    """The agent with ``agent_id``; an unknown id is an InvalidArgument naming the known ones."""
    for known in AGENT_IDS:
        if known == agent_id:
            return AGENTS[known]
    raise InvalidArgument(
        f"Quire does not know the agent {agent_id!r}; it connects {', '.join(AGENT_IDS)}.",
        argument="id",
    )


def status(agent_id: AgentId, machine: Machine) -> AgentStatus:
    """Whether the agent is installed and what its ``quire`` server runs.

    An agent that is not installed is ``absent``, with what is missing as its detail.
    """
    chosen = AGENTS[agent_id]
    detection = detect(agent_id, machine)
    if detection.detected:
        found = chosen.registration(machine)
        state, detail = found.state, found.detail
    else:
        state, detail = "absent", detection.detail
    return AgentStatus(
        id=agent_id,
        name=SIGNS[agent_id].name,
        detected=detection.detected,
        state=state,
        detail=detail,
        command=chosen.print_command(machine),
    )


def statuses(machine: Machine) -> list[AgentStatus]:
    """Every agent's status, in a fixed order (Claude Code, Codex, Cursor)."""
    return [status(agent_id, machine) for agent_id in AGENT_IDS]


def connect(agent_id: str, machine: Machine) -> Outcome:
    """Register this Quire with the agent (see the agent's module for the rules).

    Raises InvalidArgument for an unknown id and AgentNotDetected when it is not installed.
    """
    chosen = agent(agent_id)
    with _CHANGES:
        return chosen.connect(machine)


def change_hooks(machine: Machine, *, chat: bool, remove: bool, approvals: bool = False) -> Outcome:
    """Install (or with ``remove`` take out) the auto-open hook, and with ``chat`` the
    keep-alive Stop hooks too, with ``approvals`` the approval hooks."""
    with _CHANGES:
        if remove:
            return hooks.remove(machine, chat=chat, approvals=approvals)
        return hooks.install(machine, chat=chat, approvals=approvals)
