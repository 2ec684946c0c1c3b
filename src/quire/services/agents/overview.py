"""Everything the Connect page and ``quire connect`` show at once: each agent's status and
the hooks', gathered once and rendered as the API's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from quire.services.agents import hooks, roster
from quire.services.agents.hooks import HookStatus
from quire.services.agents.machine import Machine
from quire.services.agents.results import AgentStatus


@dataclass(frozen=True)
class Overview:
    """The agents (in a fixed order) and the hooks."""

    agents: tuple[AgentStatus, ...]
    hook: HookStatus


def overview(machine: Machine) -> Overview:
    """Ask every installed agent what it runs and read the hooks; changes nothing."""
    return Overview(tuple(roster.statuses(machine)), hooks.hook_status(machine))


def overview_data(found: Overview) -> dict[str, object]:
    """The JSON of ``GET /api/agents``: ``{agents: [{id, name, detected, state, detail,
    command}], hook: {installed, chatInstalled, command, detail}}``."""
    return {
        "agents": [agent_data(status) for status in found.agents],
        "hook": {
            "installed": found.hook.installed,
            "chatInstalled": found.hook.chat_installed,
            "command": found.hook.command,
            "detail": found.hook.detail,
        },
    }


def agent_data(status: AgentStatus) -> dict[str, object]:
    """One agent's status as JSON."""
    return {
        "id": status.id,
        "name": status.name,
        "detected": status.detected,
        "state": status.state,
        "detail": status.detail,
        "command": status.command,
    }
