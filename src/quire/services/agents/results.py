"""The values connecting an agent produces: the registration an agent holds and the outcome
of an action (an agent's status is the API's ``AgentStatus``). Plain data; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from quire.api.agents import AgentId
from quire.api.agents import AgentState as State

__all__ = ["AGENT_IDS", "AgentId", "Outcome", "Registration", "State"]

AGENT_IDS: tuple[AgentId, ...] = ("claude-code", "codex", "cursor")


@dataclass(frozen=True)
class Registration:
    """The ``quire`` MCP server an agent has, as Quire judges it."""

    state: State
    detail: str
    """One or two sentences: what the agent runs, and what Connect would do about it."""
    program: str | None = None
    """The program the registration runs, when there is one."""


@dataclass(frozen=True)
class Outcome:
    """What an action did: ``ok`` is False when the agent is not connected afterwards (it
    failed, or another registration was kept); ``message`` says what happened and what next."""

    ok: bool
    message: str
    changed: bool = False
