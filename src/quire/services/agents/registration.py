"""Judging the ``quire`` MCP server an agent already has: this Quire's, another program's,
or a program that is gone. Pure apart from looking programs up on the machine.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from quire.services.agents.machine import Machine
from quire.services.agents.results import Registration

SERVER_NAME = "quire"
"""The name Quire's MCP server is registered under in every agent."""

MCP_ARGS = ("mcp",)
"""The arguments that make ``quire`` serve MCP over stdio."""

SERVERS_KEY = "mcpServers"
"""The key most MCP clients' JSON settings keep their servers under."""


def server_entry(machine: Machine) -> dict[str, Any]:
    """This Quire's stdio server as an ``mcpServers`` entry: its program and arguments."""
    return {"command": str(machine.quire), "args": list(MCP_ARGS)}


def servers_json(machine: Machine) -> str:
    """The ``mcpServers`` block holding only Quire's entry, to merge into a client's settings
    by hand (never a file's other servers, which may carry secrets)."""
    return json.dumps({SERVERS_KEY: {SERVER_NAME: server_entry(machine)}}, indent=2)


@dataclass(frozen=True)
class Found:
    """What an agent says its ``quire`` server runs."""

    command: str | None
    """The program, or None for a server that is not a local program (a URL, say)."""
    args: tuple[str, ...] = ()
    described: str = "a server Quire cannot read"
    """How to name a server without a program, e.g. ``the URL https://…``."""


def judge_found(found: Found, machine: Machine, *, agent: str, remove: str) -> Registration:
    """The state of ``found`` in agent ``agent``; ``remove`` says how to remove it (``run
    `claude mcp remove …```)."""
    keep = f"Quire keeps it; to use this Quire instead, {remove}, then connect again."
    if found.command is None:
        return Registration(
            "other", f"{agent}'s `{SERVER_NAME}` server is {found.described}. {keep}"
        )
    shown = shlex.join([found.command, *found.args])
    verdict = machine.judge(found.command)
    if verdict == "ours" and found.args[: len(MCP_ARGS)] == MCP_ARGS:
        return Registration(
            "connected", f"{agent} runs this Quire's MCP server: `{shown}`.", found.command
        )
    if verdict == "stale":
        return Registration(
            "stale",
            f"{agent}'s `{SERVER_NAME}` server runs `{shown}`, which no longer exists; "
            "connecting replaces it with this Quire.",
            found.command,
        )
    what = "this Quire, but not as its MCP server" if verdict == "ours" else "another program"
    return Registration(
        "other", f"{agent}'s `{SERVER_NAME}` server runs `{shown}`, {what}. {keep}", found.command
    )


def absent(agent: str, connect: str) -> Registration:
    """The state of an agent without a ``quire`` server."""
    return Registration("absent", f"{agent} has no `{SERVER_NAME}` server yet: run `{connect}`.")
