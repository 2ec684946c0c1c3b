"""Registering Quire's MCP server with an agent that has its own ``mcp get/add/remove``
commands (Claude Code, Codex): ask first, then add, replace a stale entry, or keep another.

The agent-specific parts (argv, how ``get`` answers) come in as an ``McpCli``; this module
owns the flow and its messages.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import assert_never

from quire.core.errors import AgentNotDetected
from quire.services.agents.commands import Ran, run_agent
from quire.services.agents.detection import detect
from quire.services.agents.machine import Machine
from quire.services.agents.registration import MCP_ARGS, Found, absent, judge_found
from quire.services.agents.results import AgentId, Outcome, Registration

_NOT_FOUND_MARK = "no mcp server"


@dataclass(frozen=True)
class McpCli:
    """How one agent's command line registers MCP servers."""

    name: str
    """The agent as people call it: ``Claude Code``."""
    agent_id: AgentId
    program: str
    """Its command: ``claude``."""
    get_args: tuple[str, ...]
    remove_args: tuple[str, ...]
    add_prefix: tuple[str, ...]
    """``add`` up to the ``--`` that ends its options; the server's argv follows."""
    parse: Callable[[str], Found]
    """Reads what ``get`` printed for a server that exists."""
    next_step: str

    def add_argv(self, machine: Machine) -> tuple[str, ...]:
        """The arguments of the ``add`` command registering ``machine``'s Quire."""
        return (*self.add_prefix, "--", str(machine.quire), *MCP_ARGS)

    def print_command(self, machine: Machine) -> str:
        """The ``add`` command a person can paste into a shell."""
        return shlex.join((self.program, *self.add_argv(machine)))

    def remove_command(self) -> str:
        """The command that removes the agent's ``quire`` server."""
        return shlex.join((self.program, *self.remove_args))


def registration(cli: McpCli, machine: Machine) -> Registration:
    """What the agent's ``quire`` server runs, asked through its ``get`` command."""
    ran = run_agent(machine, cli.program, cli.get_args)
    if ran.ok:
        return judge_found(
            cli.parse(ran.stdout), machine, agent=cli.name, remove=f"run `{cli.remove_command()}`"
        )
    if ran.exit_code is not None and _NOT_FOUND_MARK in (ran.stderr + ran.stdout).lower():
        return absent(cli.name, f"quire connect {cli.agent_id}")
    return Registration(
        "other", f"Quire could not ask {cli.name} which servers it has: {ran.failure()}."
    )


def connect(cli: McpCli, machine: Machine) -> Outcome:
    """Register this Quire's MCP server with the agent, idempotently.

    Raises AgentNotDetected when the agent's command is not on PATH.
    """
    detection = detect(cli.agent_id, machine)
    if not detection.detected:
        raise AgentNotDetected(
            f"{detection.detail} Or register Quire by hand: `{cli.print_command(machine)}`."
        )
    found = registration(cli, machine)
    match found.state:
        case "connected":
            return Outcome(True, f"{found.detail} Nothing changed.\n{cli.next_step}")
        case "other":
            return Outcome(False, found.detail)
        case "stale":
            removed = run_agent(machine, cli.program, cli.remove_args)
            if not removed.ok:
                return Outcome(
                    False,
                    f"{found.detail}\nRemoving it failed: {removed.failure()}. Nothing was "
                    "changed; remove it yourself, then connect again.",
                )
            return _add(cli, machine, replaced=found.program)
        case "absent":
            return _add(cli, machine, replaced=None)
        case _ as unknown:
            assert_never(unknown)


def _add(cli: McpCli, machine: Machine, *, replaced: str | None) -> Outcome:
    added: Ran = run_agent(machine, cli.program, cli.add_argv(machine))
    server = shlex.join((str(machine.quire), *MCP_ARGS))
    if not added.ok:
        before = (
            f"The old `quire` server (which ran `{replaced}`) was removed, but adding "
            "this Quire failed: "
            if replaced is not None
            else "Registering Quire failed: "
        )
        return Outcome(
            False,
            f"{before}{added.failure()}.\nRun it yourself to see more: "
            f"`{cli.print_command(machine)}`.",
            changed=replaced is not None,
        )
    done = (
        f"Replaced {cli.name}'s `quire` server, which ran `{replaced}` (no longer there), "
        f"with this Quire: `{server}`."
        if replaced is not None
        else f"Registered Quire's MCP server with {cli.name}: `{server}`."
    )
    return Outcome(True, f"{done}\n{cli.next_step}", changed=True)
