"""Cursor's MCP registration: the ``quire`` key of ``mcpServers`` in ``~/.cursor/mcp.json``,
merged in without touching any other server or setting.

A file that is not valid JSON, or whose shape is not what Cursor reads, is left as it is
with the reason.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, assert_never

from quire.core.errors import AgentNotDetected
from quire.services.agents.detection import detect
from quire.services.agents.jsonfile import JsonFile, json_kind, read_json_object, write_json_object
from quire.services.agents.machine import Machine
from quire.services.agents.registration import (
    MCP_ARGS,
    SERVER_NAME,
    SERVERS_KEY,
    Found,
    absent,
    judge_found,
    server_entry,
    servers_json,
)
from quire.services.agents.results import Outcome, Registration

NAME = "Cursor"
NEXT_STEP = (
    "Next: in Cursor Settings → MCP click Reload (or restart Cursor), then ask it to open its "
    "plan in Quire and request your review."
)


def config_path(machine: Machine) -> Path:
    """``~/.cursor/mcp.json``."""
    return machine.home / ".cursor" / "mcp.json"


def print_json(machine: Machine) -> str:
    """The JSON to merge into ``~/.cursor/mcp.json``: the common ``mcpServers`` block."""
    return servers_json(machine)


def registration(machine: Machine) -> Registration:
    """The ``quire`` server ``~/.cursor/mcp.json`` holds, as Quire judges it."""
    file, servers, problem = _servers(machine)
    if problem is not None:
        return Registration("other", problem)
    entry = servers.get(SERVER_NAME) if servers is not None else None
    if entry is None:
        return absent(NAME, "quire connect cursor")
    shown = machine.shown(file.path)
    remove = f"remove the `{SERVER_NAME}` key from {shown}"
    if not isinstance(entry, dict):
        return Registration(
            "other",
            f"{shown} holds {json_kind(entry)} for `{SERVER_NAME}`, not a server. Quire "
            f"leaves it untouched; {remove}, then connect again.",
        )
    return judge_found(_found(entry), machine, agent=NAME, remove=remove)


def connect(machine: Machine) -> Outcome:
    """Merge this Quire's entry into ``~/.cursor/mcp.json``, idempotently.

    Raises AgentNotDetected when Cursor is not here, and StorageFailed when the file cannot
    be written (it is then unchanged).
    """
    detection = detect("cursor", machine)
    if not detection.detected:
        raise AgentNotDetected(
            f"{detection.detail} Or add this to ~/.cursor/mcp.json by hand:\n{print_json(machine)}"
        )
    found = registration(machine)
    match found.state:
        case "connected":
            return Outcome(True, f"{found.detail} Nothing changed.\n{NEXT_STEP}")
        case "other":
            return Outcome(False, found.detail)
        case "stale" | "absent":
            return _write(machine, replaced=found.program)
        case _ as unknown:
            assert_never(unknown)


def _write(machine: Machine, *, replaced: str | None) -> Outcome:
    file, servers, problem = _servers(machine)
    if problem is not None:
        return Outcome(False, problem)
    data = dict(file.data or {})
    merged = dict(servers or {})
    merged[SERVER_NAME] = server_entry(machine)
    data[SERVERS_KEY] = merged
    write_json_object(file, data)
    server = shlex.join((str(machine.quire), *MCP_ARGS))
    shown = machine.shown(file.path)
    done = (
        f"Replaced the `quire` server in {shown}, which ran `{replaced}` (no longer there), "
        f"with this Quire: `{server}`."
        if replaced is not None
        else f"Added Quire's MCP server to {shown}: `{server}`; its other servers are unchanged."
    )
    return Outcome(True, f"{done}\n{NEXT_STEP}", changed=True)


def _servers(machine: Machine) -> tuple[JsonFile, dict[str, Any] | None, str | None]:
    """The file, its ``mcpServers`` object (None when absent), and why it cannot be changed."""
    file = read_json_object(config_path(machine))
    shown = machine.shown(file.path)
    leave = "Quire leaves it untouched; fix it (or add Quire's entry by hand), then connect again."
    if file.problem is not None:
        return file, None, f"{shown} cannot be changed: {file.problem}. {leave}"
    servers = (file.data or {}).get(SERVERS_KEY)
    if servers is not None and not isinstance(servers, dict):
        return (
            file,
            None,
            f"{shown} cannot be changed: its `{SERVERS_KEY}` is {json_kind(servers)}, "
            f"not an object. {leave}",
        )
    return file, servers, None


def _found(entry: dict[str, Any]) -> Found:
    command = entry.get("command")
    args = entry.get("args")
    if isinstance(command, str) and command:
        listed = args if isinstance(args, list) else []
        return Found(command, tuple(str(arg) for arg in listed))
    url = entry.get("url")
    if isinstance(url, str) and url:
        return Found(None, (), f"the URL {url}")
    return Found(None)
