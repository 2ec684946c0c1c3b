"""Quire's agent hooks in their settings files: the auto-open PostToolUse hook in Claude
Code's ``~/.claude/settings.json``, (for chats) the keep-alive Stop hook there and in Codex's
``~/.codex/hooks.json``, and (for approvals) the approval hooks in both with Claude Code's
allow list for the chat commands: status, install, remove and the JSON to add by hand.

Leaves a file it cannot parse, or whose ``hooks`` has the wrong shape, untouched with the
reason; writes a file only when its content changes.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from quire.api.agents import HookStatus
from quire.services.agents import allow_rules, hook_entries
from quire.services.agents.approval_hooks import approval_specs, chat_allow_list
from quire.services.agents.detection import has_program_or_folder
from quire.services.agents.hook_entries import HookSpec, ShapeError, settings_block
from quire.services.agents.jsonfile import read_json_object, write_json_object
from quire.services.agents.machine import Machine
from quire.services.agents.results import Outcome

AUTO_OPEN = HookSpec(
    "PostToolUse",
    ("hook", "post-tool-use"),
    matcher="Edit|Write",
    guards=("Write(*.md)", "Edit(*.md)"),
)
"""Opens the Markdown Claude Code writes or edits. The ``if`` guards spare other files the cost
of starting ``quire``; an ``if`` holds a single rule, hence one handler per tool."""

CLAUDE_KEEPALIVE = HookSpec("Stop", ("chat", "keepalive"))
CODEX_KEEPALIVE = HookSpec("Stop", ("chat", "keepalive"), timeout=30)
"""Sends an agent waiting in a Quire chat back to waiting when it tries to end its turn."""

_NAMES = {AUTO_OPEN.event: "auto-open hook", CLAUDE_KEEPALIVE.event: "chat keep-alive Stop hook"}


def _name(spec: HookSpec) -> str:
    if spec.args[0] == "approval":
        return f"approvals {spec.event} hook"
    return _NAMES[spec.event]


_RESTART = "Restart Claude Code (start a new session) to pick it up."


@dataclass(frozen=True)
class _Target:
    agent: str
    path: Path
    specs: tuple[HookSpec, ...]
    allow: tuple[str, ...] = ()
    """Rules Quire adds to ``permissions.allow`` (Claude Code, with the approval hooks)."""


def claude_settings(machine: Machine) -> Path:
    """``~/.claude/settings.json``."""
    return machine.home / ".claude" / "settings.json"


def codex_hooks(machine: Machine) -> Path:
    """``~/.codex/hooks.json``."""
    return machine.home / ".codex" / "hooks.json"


def codex_detected(machine: Machine) -> bool:
    """Whether Codex is here: the ``codex`` command on PATH or a ``~/.codex`` folder."""
    return has_program_or_folder("codex", machine)


def print_json(machine: Machine, *, chat: bool, approvals: bool = False) -> str:
    """The JSON to merge by hand: Claude Code's hooks, and with ``chat`` or ``approvals``
    Codex's too, each under a ``# <file>`` line. Without them it is exactly one JSON object."""
    targets = _targets(machine, chat=chat, approvals=approvals, lines=None)
    if len(targets) == 1:
        return _fragment(machine, targets[0])
    claude, codex = (_fragment(machine, target) for target in targets)
    return f"# ~/.claude/settings.json\n{claude}\n# ~/.codex/hooks.json\n{codex}"


def hook_status(machine: Machine) -> HookStatus:
    """Whether the auto-open hook (and the chat hooks) run this Quire, and why not."""
    settings = claude_settings(machine)
    auto_open = _describe(machine, settings, AUTO_OPEN)
    chat = _describe(machine, settings, CLAUDE_KEEPALIVE)
    if chat[0] and codex_detected(machine):
        chat = _describe(machine, codex_hooks(machine), CODEX_KEEPALIVE)
    return HookStatus(
        installed=auto_open[0],
        chat_installed=chat[0],
        command=print_json(machine, chat=False),
        detail=auto_open[1],
    )


def install(machine: Machine, *, chat: bool, approvals: bool = False) -> Outcome:
    """Merge this Quire's hooks in, idempotently; with ``chat`` the keep-alive Stop hooks
    too, with ``approvals`` the approval hooks (Codex's only when Codex is here). Raises
    StorageFailed when a file cannot be written."""
    lines: list[str] = []
    ok = True
    changed = False
    for target in _targets(machine, chat=chat, approvals=approvals, lines=lines):
        result = _install_file(machine, target)
        ok, changed = ok and result.ok, changed or result.changed
        lines.append(result.message)
    if changed:
        lines.append(_RESTART)
    if (chat or approvals) and codex_detected(machine) and not _codex_hooks_enabled(machine):
        lines.append(
            "Codex runs hooks only when ~/.codex/config.toml has `codex_hooks = true` under "
            "`[features]`: add it, then start a new Codex session."
        )
    return Outcome(ok, "\n".join(lines), changed)


def remove(machine: Machine, *, chat: bool, approvals: bool = False) -> Outcome:
    """Remove every Quire entry of the auto-open hook (and with ``chat`` the Stop hooks, with
    ``approvals`` the approval hooks), leaving all other hooks and settings as they are."""
    lines: list[str] = []
    ok = True
    changed = False
    for target in _targets(machine, chat=chat, approvals=approvals, lines=None):
        result = _remove_file(machine, target)
        ok, changed = ok and result.ok, changed or result.changed
        lines.append(result.message)
    return Outcome(ok, "\n".join(lines), changed)


def _targets(
    machine: Machine, *, chat: bool, approvals: bool, lines: list[str] | None
) -> list[_Target]:
    claude: tuple[HookSpec, ...] = (AUTO_OPEN, CLAUDE_KEEPALIVE) if chat else (AUTO_OPEN,)
    codex: tuple[HookSpec, ...] = (CODEX_KEEPALIVE,) if chat else ()
    if approvals:
        claude += approval_specs("claude-code")
        codex += approval_specs("codex")
    allow = chat_allow_list("claude-code") if approvals else ()
    targets = [_Target("Claude Code", claude_settings(machine), claude, allow)]
    if codex and (lines is None or codex_detected(machine)):
        targets.append(_Target("Codex", codex_hooks(machine), codex))
    elif codex and lines is not None:
        what = "approval hooks were" if approvals else "Stop hook was"
        lines.append(
            f"Codex was not found (no `codex` command, no ~/.codex folder): its {what} not "
            "installed."
        )
    return targets


def _install_file(machine: Machine, target: _Target) -> Outcome:
    file = read_json_object(target.path)
    shown = machine.shown(target.path)
    if file.problem is not None:
        return Outcome(False, _untouched(shown, file.problem))
    data = file.data or {}
    lines: list[str] = []
    ok = True
    try:
        for spec in target.specs:
            merged = hook_entries.merge(data, spec, machine)
            data = merged.settings
            ok = ok and merged.result != "other"
            lines.append(_merged_line(merged, spec, shown, target.agent, machine))
        if target.allow:
            data, added = allow_rules.merge_allow(data, target.allow)
            lines.append(
                f"Added {added} chat command rule(s) to `permissions.allow` in {shown}: an "
                "agent runs `quire chat wait/read/post/status/leave` without asking."
                if added
                else f"The chat command rules in {shown} are already allowed; nothing changed."
            )
    except ShapeError as problem:
        return Outcome(False, _untouched(shown, str(problem)))
    if data == file.data:
        return Outcome(ok, "\n".join(lines))
    write_json_object(file, data)
    return Outcome(ok, "\n".join(lines), changed=True)


def _remove_file(machine: Machine, target: _Target) -> Outcome:
    file = read_json_object(target.path)
    shown = machine.shown(target.path)
    if file.data is None and file.problem is None:
        return Outcome(True, f"{shown} does not exist; there was nothing to remove.")
    if file.problem is not None:
        return Outcome(False, _untouched(shown, file.problem))
    data = file.data or {}
    lines: list[str] = []
    try:
        for spec in target.specs:
            data, count = hook_entries.remove(data, spec, machine)
            name = _name(spec)
            lines.append(
                f"Removed the {name} from {shown}."
                if count
                else f"There was no Quire {name} in {shown}; nothing to remove."
            )
        if target.allow:
            data, count = allow_rules.remove_allow(data, target.allow)
            lines.append(
                f"Removed {count} chat command rule(s) from `permissions.allow` in {shown}."
                if count
                else f"There were no Quire chat command rules in {shown}; nothing to remove."
            )
    except ShapeError as problem:
        return Outcome(False, _untouched(shown, str(problem)))
    if data == file.data:
        return Outcome(True, "\n".join(lines))
    write_json_object(file, data)
    return Outcome(True, "\n".join(lines), changed=True)


def _merged_line(
    merged: hook_entries.Merged, spec: HookSpec, shown: str, agent: str, machine: Machine
) -> str:
    name = _name(spec)
    match merged.result:
        case "added":
            what = (
                f"when {agent} writes or edits a Markdown file, it opens in Quire"
                if spec is AUTO_OPEN
                else f"{agent}'s {spec.event} events go to Quire's agent approvals"
                if spec.args[0] == "approval"
                else "an agent waiting in a Quire chat goes back to waiting when it tries to "
                "end its turn"
            )
            return f"Installed the {name} in {shown}: {what}."
        case "present":
            return f"The {name} in {shown} already runs this Quire; nothing changed."
        case "repaired":
            if merged.program is None:
                return f"Repaired the {name} in {shown}: it now runs `{spec.command(machine)}`."
            return (
                f"Repaired the {name} in {shown}: it ran `{merged.program}`, which no longer "
                "exists; it now runs this Quire."
            )
        case "other":
            return (
                f"Kept the {name} in {shown}: it runs `{merged.program}`, another Quire. To use "
                "this one instead, run `quire connect hook --remove`, then `quire connect hook`."
            )


def _describe(machine: Machine, path: Path, spec: HookSpec) -> tuple[bool, str]:
    """Whether ``path`` runs this Quire's ``spec`` hook, and a sentence saying so."""
    shown = machine.shown(path)
    name = _name(spec)
    file = read_json_object(path)
    if file.problem is not None:
        return False, _untouched(shown, file.problem)
    try:
        found = hook_entries.describe(file.data or {}, spec, machine)
    except ShapeError as problem:
        return False, _untouched(shown, str(problem))
    match found.result:
        case "present":
            return True, f"The {name} in {shown} runs this Quire."
        case "other":
            return False, f"The {name} in {shown} runs `{found.program}`, another Quire."
        case "repaired":
            return False, (
                f"The {name} in {shown} runs `{found.program}`, which no longer exists; "
                "installing it again repairs it."
            )
        case "added":
            flag = "" if spec is AUTO_OPEN else " --chat"
            return False, f"The {name} is not installed in {shown}: run `quire connect hook{flag}`."


def _fragment(machine: Machine, target: _Target) -> str:
    return json.dumps(settings_block(machine, target.specs, target.allow), indent=2)


def _untouched(shown: str, problem: str) -> str:
    return (
        f"{shown} cannot be changed: {problem}. Quire leaves it untouched; fix it by hand, "
        "then run `quire connect hook` again."
    )


def _codex_hooks_enabled(machine: Machine) -> bool:
    try:
        config = tomllib.loads((machine.home / ".codex" / "config.toml").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    features = config.get("features")
    return isinstance(features, dict) and features.get("codex_hooks") is True
