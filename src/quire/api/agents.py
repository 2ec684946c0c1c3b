"""The agents page's requests and answers: coding agents, registrations and hooks.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer, StrictBody

AgentId = Literal["claude-code", "codex", "cursor"]
"""The agents Quire connects, as the API and ``quire connect`` name them."""

AgentState = Literal["connected", "other", "stale", "absent"]
"""``connected``: runs this Quire's MCP server. ``other``: something else Quire keeps (another
program, or a file it will not touch). ``stale``: runs a program that is gone. ``absent``: no
``quire`` server yet."""


class HookBody(StrictBody):
    chat: bool = False
    remove: bool = False


class ConnectBody(StrictBody):
    pass


class AgentStatus(Answer):
    """One agent as the Connect page and ``quire connect`` show it."""

    id: AgentId
    name: str
    detected: bool
    """Whether the agent is installed on the server's machine."""
    state: AgentState
    detail: str
    """One or two sentences: what the agent runs now, and what Connect would do about it."""
    command: str
    """Exactly what ``quire connect <id> --print`` shows: the command (or JSON) that registers
    this Quire by hand."""


class HookStatus(Answer):
    """Whether Quire's hooks run this Quire."""

    installed: bool
    """The auto-open hook (Claude Code writes or edits Markdown: it opens in Quire)."""
    chat_installed: bool
    """The chat keep-alive Stop hooks."""
    command: str
    """Exactly what ``quire connect hook --print`` shows: the JSON to merge by hand."""
    detail: str


class AgentsOverview(Answer):
    """``GET /api/agents``: every agent (Claude Code, Codex, Cursor, in that order) and the
    hooks."""

    agents: tuple[AgentStatus, ...]
    hook: HookStatus


class AgentOutcome(Answer):
    """What connecting an agent or changing the hooks did: ``ok`` is false when the agent is
    not connected afterwards (another registration was kept, or its command failed);
    ``message`` says what happened and what to do next."""

    ok: bool
    message: str
