"""The values connecting an agent produces: its status, the registration an agent holds, and
the outcome of an action. Plain data; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AgentId = Literal["claude-code", "codex", "cursor"]
AGENT_IDS: tuple[AgentId, ...] = ("claude-code", "codex", "cursor")

State = Literal["connected", "other", "stale", "absent"]
"""``connected``: runs this Quire's MCP server. ``other``: something else Quire keeps (another
program, or a file it will not touch). ``stale``: runs a program that is gone. ``absent``: no
``quire`` server yet."""


@dataclass(frozen=True)
class Registration:
    """The ``quire`` MCP server an agent has, as Quire judges it."""

    state: State
    detail: str
    """One or two sentences: what the agent runs, and what Connect would do about it."""
    program: str | None = None
    """The program the registration runs, when there is one."""


@dataclass(frozen=True)
class AgentStatus:
    """One agent as the Connect page and ``quire connect`` show it."""

    id: AgentId
    name: str
    detected: bool
    state: State
    detail: str
    command: str
    """Exactly what ``quire connect <id> --print`` shows: the command (or JSON) that registers
    this Quire by hand."""


@dataclass(frozen=True)
class Outcome:
    """What an action did: ``ok`` is False when the agent is not connected afterwards (it
    failed, or another registration was kept); ``message`` says what happened and what next."""

    ok: bool
    message: str
    changed: bool = False
