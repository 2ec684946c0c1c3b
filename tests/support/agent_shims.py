"""Stand-ins for the agents' command lines (`claude`, `codex`) on a temporary PATH.

Each shim is a small executable that appends its argv (without the program) as one JSON line
to a record file, then acts like the real command's `mcp get/add/remove` on a registry kept in
a JSON file beside it, printing what the real one prints. Tests seed the registry, make a
subcommand fail, and read back exactly what was run.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Kind = Literal["claude", "codex"]

_SCRIPT = r"""#!{python}
import json
import sys
from pathlib import Path

KIND = {kind!r}
RECORD = Path({record!r})
STATE = Path({state!r})

args = sys.argv[1:]
with RECORD.open("a", encoding="utf-8") as record:
    record.write(json.dumps(args) + "\n")
state = json.loads(STATE.read_text(encoding="utf-8")) if STATE.exists() else {{}}
servers = state.setdefault("servers", {{}})
failures = state.get("fail", {{}})


def finish(code, out="", err=""):
    sys.stdout.write(out)
    sys.stderr.write(err)
    STATE.write_text(json.dumps(state), encoding="utf-8")
    sys.exit(code)


def claude_get(name):
    server = servers.get(name)
    if server is None:
        finish(1, err=f"No MCP server found with name: {{name}}\n")
    lines = [f"{{name}}:", "  Scope: User config (available in all your projects)"]
    if "url" in server:
        lines += ["  Status: ✓ Connected", "  Type: http", f"  URL: {{server['url']}}"]
    else:
        lines += [
            "  Status: ✗ Failed to connect",
            "  Type: stdio",
            f"  Command: {{server['command']}}",
            f"  Args: {{' '.join(server['args'])}}",
            "  Environment:",
        ]
    lines += ["", f'To remove this server, run: claude mcp remove "{{name}}" -s user']
    finish(0, out="\n".join(lines) + "\n")


def codex_get(name):
    server = servers.get(name)
    if server is None:
        finish(1, err=f"Error: No MCP server named '{{name}}' found.\n")
    if "url" in server:
        transport = {{"type": "streamable_http", "url": server["url"]}}
    else:
        transport = {{"type": "stdio", "command": server["command"], "args": server["args"],
                     "env": None, "env_vars": [], "cwd": None}}
    data = {{"name": name, "enabled": True, "transport": transport,
            "startup_timeout_sec": None, "tool_timeout_sec": None}}
    finish(0, out=json.dumps(data, indent=2) + "\n")


if len(args) < 2 or args[0] != "mcp":
    finish(2, err=f"unexpected arguments: {{args}}\n")
verb = args[1]
if verb in failures:
    code, message = failures[verb]
    finish(code, err=message)
if KIND == "claude":
    if verb == "get" and len(args) == 3:
        claude_get(args[2])
    if verb == "add" and args[2:5] == ["--scope", "user", "quire"] and args[5] == "--":
        if "quire" in servers:
            finish(1, err="MCP server quire already exists in user config\n")
        servers["quire"] = {{"command": args[6], "args": args[7:]}}
        finish(0, out=f"Added stdio MCP server quire with command: {{args[6]}} to user config\n")
    if verb == "remove" and args[2:] == ["--scope", "user", "quire"]:
        if servers.pop("quire", None) is None:
            finish(1, err="No user-scoped MCP server found with name: quire\n")
        finish(0, out="Removed MCP server quire from user config\n")
else:
    if verb == "get" and len(args) == 4 and args[3] == "--json":
        codex_get(args[2])
    if verb == "add" and args[2] == "quire" and args[3] == "--":
        servers["quire"] = {{"command": args[4], "args": args[5:]}}
        finish(0, out="Added global MCP server 'quire'.\n")
    if verb == "remove" and args[2:] == ["quire"]:
        found = servers.pop("quire", None) is not None
        said = "Removed global MCP server 'quire'." if found else "No MCP server named 'quire'."
        finish(0, out=said + "\n")
finish(2, err=f"unexpected arguments: {{args}}\n")
"""


@dataclass(frozen=True)
class FakeAgent:
    """One shim: where it is, what it recorded, and its registry."""

    program: Path
    record: Path
    state: Path

    def calls(self) -> list[list[str]]:
        """Every argv the shim was run with, in order (without the program itself)."""
        if not self.record.exists():
            return []
        lines = self.record.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]

    def seed(self, command: str, args: list[str] | None = None, *, url: str | None = None) -> None:
        """Give the agent a `quire` server running ``command args`` (or at ``url``)."""
        server: dict[str, Any] = {"url": url} if url else {"command": command, "args": args or []}
        self._update(lambda state: state.setdefault("servers", {}).update({"quire": server}))

    def fail(self, verb: str, code: int, stderr: str) -> None:
        """Make ``mcp <verb>`` print ``stderr`` and exit ``code``."""
        self._update(lambda state: state.setdefault("fail", {}).update({verb: [code, stderr]}))

    def servers(self) -> dict[str, Any]:
        """The registry as the shim left it."""
        if not self.state.exists():
            return {}
        servers: dict[str, Any] = json.loads(self.state.read_text(encoding="utf-8"))["servers"]
        return servers

    def _update(self, change: Any) -> None:
        state = json.loads(self.state.read_text(encoding="utf-8")) if self.state.exists() else {}
        change(state)
        self.state.write_text(json.dumps(state), encoding="utf-8")


def install_fake(bin_dir: Path, kind: Kind) -> FakeAgent:
    """Put a recording ``kind`` shim in ``bin_dir`` (created when missing)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    program = bin_dir / kind
    record = bin_dir / f"{kind}.calls.jsonl"
    state = bin_dir / f"{kind}.state.json"
    program.write_text(
        _SCRIPT.format(python=sys.executable, kind=kind, record=str(record), state=str(state)),
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return FakeAgent(program, record, state)


def make_program(path: Path) -> Path:
    """An executable file at ``path`` standing for an installed program (it does nothing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def environ_with_path(*folders: Path) -> dict[str, str]:
    """An environment whose PATH is exactly ``folders``."""
    return {"PATH": os.pathsep.join(str(folder) for folder in folders)}
