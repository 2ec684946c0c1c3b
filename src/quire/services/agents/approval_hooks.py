"""The hooks of agent approvals, per harness: PermissionRequest runs ``quire approval
request``, PostToolUse and Stop run ``done``, Notification (Claude Code only) runs ``notify``;
and the settings block ``quire approval hook-config`` prints, with Claude Code's allow list for
the chat commands an agent runs.

Specs and text only: merging them into settings files is ``hooks.py``'s.
"""

from __future__ import annotations

import json
from typing import Final

from quire.core.approvals.hook_input import Harness
from quire.core.approvals.policy import MAX_WAIT_S
from quire.services.agents.hook_entries import HookSpec, settings_block
from quire.services.agents.machine import Machine

REQUEST_TIMEOUT_S: Final = MAX_WAIT_S[1] + 60
"""The harness's limit on the request hook: past the longest wait the policy allows."""
QUICK_TIMEOUT_S: Final = 10
CHAT_COMMANDS: Final = ("wait", "read", "post", "status", "leave")


def approval_specs(harness: Harness) -> tuple[HookSpec, ...]:
    """The approval hooks of ``harness``: Codex gets no Notification hook (not tested)."""
    agent = ("--agent", harness)
    specs = [
        HookSpec("PermissionRequest", ("approval", "request", *agent), timeout=REQUEST_TIMEOUT_S),
        HookSpec("PostToolUse", ("approval", "done", *agent), timeout=QUICK_TIMEOUT_S),
        HookSpec("Stop", ("approval", "done", *agent), timeout=QUICK_TIMEOUT_S),
    ]
    if harness == "claude-code":
        specs.append(
            HookSpec("Notification", ("approval", "notify", *agent), timeout=QUICK_TIMEOUT_S)
        )
    return tuple(specs)


def chat_allow_list(harness: Harness = "claude-code") -> tuple[str, ...]:
    """Claude Code permission rules for the chat commands an agent runs, one rule each (none
    for Codex, whose settings have no such list)."""
    if harness != "claude-code":
        return ()
    return tuple(f"Bash(quire chat {command}:*)" for command in CHAT_COMMANDS)


def hook_config(machine: Machine, harness: Harness) -> str:
    """The settings block to merge (or pass with ``claude --settings``), as JSON."""
    block = settings_block(machine, approval_specs(harness), chat_allow_list(harness))
    return json.dumps(block, indent=2)
