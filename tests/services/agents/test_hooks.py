"""Quire's hooks in ~/.claude/settings.json and ~/.codex/hooks.json: install, repair, keep,
refuse, remove, and the JSON to add by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quire.services.agents import hooks
from quire.services.agents.approval_hooks import CHAT_COMMANDS, hook_config
from quire.services.agents.hook_entries import merge
from quire.services.agents.hooks import AUTO_OPEN, CLAUDE_KEEPALIVE, CODEX_KEEPALIVE
from quire.services.agents.machine import Machine
from tests.support.agent_shims import install_fake, make_program

REAL_SHAPED: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"DISABLE_TELEMETRY": "1"},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "npx prettier --write", "timeout": 30}],
            }
        ],
    },
    "model": "opus",
}


def _settings(machine: Machine) -> Path:
    return machine.home / ".claude" / "settings.json"


def _write(path: Path, data: Any, indent: int = 2) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_installing_into_real_settings_adds_only_the_hook(machine: Machine) -> None:
    _write(_settings(machine), REAL_SHAPED, indent=4)
    outcome = hooks.install(machine, chat=False)
    assert outcome.ok and outcome.changed
    assert outcome.message == (
        "Installed the auto-open hook in ~/.claude/settings.json: when Claude Code writes or "
        "edits a Markdown file, it opens in Quire.\n"
        "Restart Claude Code (start a new session) to pick it up."
    )
    expected = merge(REAL_SHAPED, AUTO_OPEN, machine).settings
    assert _read(_settings(machine)) == expected
    assert _settings(machine).read_text(encoding="utf-8") == json.dumps(expected, indent=4) + "\n"
    added = expected["hooks"]["PostToolUse"][-1]
    command = f"'{machine.quire}' hook post-tool-use"
    assert added == {
        "matcher": "Edit|Write",
        "hooks": [
            {"type": "command", "command": command, "if": "Write(*.md)"},
            {"type": "command", "command": command, "if": "Edit(*.md)"},
        ],
    }


@pytest.mark.parametrize("content", [None, "", "\n  \n", "{}"])
def test_installing_into_a_missing_or_empty_file_creates_the_hook(
    machine: Machine, content: str | None
) -> None:
    if content is not None:
        _settings(machine).parent.mkdir()
        _settings(machine).write_text(content, encoding="utf-8")
    assert hooks.install(machine, chat=False).ok
    assert _read(_settings(machine)) == merge({}, AUTO_OPEN, machine).settings


def test_installing_twice_leaves_the_file_untouched(machine: Machine) -> None:
    _write(_settings(machine), REAL_SHAPED)
    hooks.install(machine, chat=False)
    before = _settings(machine).stat()
    again = hooks.install(machine, chat=False)
    assert again.ok and not again.changed
    assert again.message == (
        "The auto-open hook in ~/.claude/settings.json already runs this Quire; nothing changed."
    )
    after = _settings(machine).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_hook_of_a_quire_that_is_gone_is_repaired(machine: Machine, tmp_path: Path) -> None:
    old = tmp_path / "Downloads" / "quire"
    _write(_settings(machine), {"hooks": {"PostToolUse": [
        {"matcher": "Edit|Write", "hooks": [
            {"type": "command", "command": f"{old} hook post-tool-use", "if": "Write(*.md)"}
        ]}
    ]}})  # fmt: skip
    outcome = hooks.install(machine, chat=False)
    assert outcome.ok and outcome.changed
    assert outcome.message.splitlines()[0] == (
        f"Repaired the auto-open hook in ~/.claude/settings.json: it ran `{old}`, which no "
        "longer exists; it now runs this Quire."
    )
    handler = _read(_settings(machine))["hooks"]["PostToolUse"][0]["hooks"][0]
    assert handler == {
        "type": "command",
        "command": AUTO_OPEN.command(machine),
        "if": "Write(*.md)",
    }


def test_a_hook_of_another_quire_that_exists_is_kept(machine: Machine, tmp_path: Path) -> None:
    other = make_program(tmp_path / "other" / "quire")
    handler = {"type": "command", "command": f"{other} hook post-tool-use"}
    settings = {"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [handler]}]}}
    _write(_settings(machine), settings)
    outcome = hooks.install(machine, chat=False)
    assert not outcome.ok and not outcome.changed
    assert outcome.message == (
        f"Kept the auto-open hook in ~/.claude/settings.json: it runs `{other}`, another Quire. "
        "To use this one instead, run `quire connect hook --remove`, then `quire connect hook`."
    )
    assert _read(_settings(machine)) == settings


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"hooks": {}, }', "it is not valid JSON (Expecting property name enclosed in double "
         "quotes at line 1, column 15)"),
        ("[1, 2]", "it holds a list, not a JSON object"),
        ('{"hooks": []}', "its `hooks` is a list, not an object"),
        ('{"hooks": {"PostToolUse": {"matcher": "Edit"}}}',
         "its `hooks.PostToolUse` is an object, not a list"),
        ('{"hooks": {"PostToolUse": [], "Stop": 1}}', None),
    ],
)  # fmt: skip
def test_a_malformed_file_is_left_untouched_with_the_reason(
    machine: Machine, content: str, problem: str | None
) -> None:
    _settings(machine).parent.mkdir()
    _settings(machine).write_text(content, encoding="utf-8")
    outcome = hooks.install(machine, chat=False)
    if problem is None:
        assert outcome.ok
        return
    assert not outcome.ok and not outcome.changed
    assert outcome.message == (
        f"~/.claude/settings.json cannot be changed: {problem}. Quire leaves it untouched; fix "
        "it by hand, then run `quire connect hook` again."
    )
    assert _settings(machine).read_text(encoding="utf-8") == content
    assert hooks.remove(machine, chat=False).message == outcome.message
    assert _settings(machine).read_text(encoding="utf-8") == content


def test_the_chat_hooks_go_to_claude_code_and_codex(machine: Machine, bin_dir: Path) -> None:
    install_fake(bin_dir, "codex")
    config = machine.home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o4"\n\n[features]\ncodex_hooks = true\n', encoding="utf-8")
    outcome = hooks.install(machine, chat=True)
    assert outcome.ok
    assert outcome.message.splitlines() == [
        "Installed the auto-open hook in ~/.claude/settings.json: when Claude Code writes or "
        "edits a Markdown file, it opens in Quire.",
        "Installed the chat keep-alive Stop hook in ~/.claude/settings.json: an agent waiting in "
        "a Quire chat goes back to waiting when it tries to end its turn.",
        "Installed the chat keep-alive Stop hook in ~/.codex/hooks.json: an agent waiting in a "
        "Quire chat goes back to waiting when it tries to end its turn.",
        "Restart Claude Code (start a new session) to pick it up.",
    ]
    command = f"'{machine.quire}' chat keepalive"
    assert _read(_settings(machine))["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": command}]}
    ]
    assert _read(machine.home / ".codex" / "hooks.json") == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}]}
    }
    assert hooks.hook_status(machine).chat_installed


@pytest.mark.parametrize(
    "config",
    [None, "[features]\ncodex_hooks = false\n", "[features\n", "features = 1\n", b"\xff"],
)
def test_codex_without_hooks_enabled_is_told_how(
    machine: Machine, config: str | bytes | None
) -> None:
    (machine.home / ".codex").mkdir()
    if config is not None:
        path = machine.home / ".codex" / "config.toml"
        path.write_bytes(config.encode() if isinstance(config, str) else config)
    outcome = hooks.install(machine, chat=True)
    assert outcome.message.splitlines()[-1] == (
        "Codex runs hooks only when ~/.codex/config.toml has `codex_hooks = true` under "
        "`[features]`: add it, then start a new Codex session."
    )


def test_without_codex_its_stop_hook_is_skipped(machine: Machine) -> None:
    outcome = hooks.install(machine, chat=True)
    assert outcome.ok
    assert (
        "Codex was not found (no `codex` command, no ~/.codex folder): its Stop hook was not "
        "installed." in outcome.message.splitlines()
    )
    assert not (machine.home / ".codex").exists()
    assert hooks.hook_status(machine).chat_installed


def test_removing_takes_out_only_quires_entries(machine: Machine) -> None:
    _write(_settings(machine), REAL_SHAPED)
    hooks.install(machine, chat=True)
    outcome = hooks.remove(machine, chat=False)
    assert outcome.ok and outcome.changed
    assert outcome.message == "Removed the auto-open hook from ~/.claude/settings.json."
    left = _read(_settings(machine))
    assert left["hooks"]["PostToolUse"] == REAL_SHAPED["hooks"]["PostToolUse"]
    assert left["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": CLAUDE_KEEPALIVE.command(machine)}]}
    ]
    hooks.remove(machine, chat=True)
    assert _read(_settings(machine)) == REAL_SHAPED


def test_removing_the_chat_hooks_includes_codex(machine: Machine) -> None:
    (machine.home / ".codex").mkdir()
    codex = machine.home / ".codex" / "hooks.json"
    _write(codex, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}})
    hooks.install(machine, chat=True)
    outcome = hooks.remove(machine, chat=True)
    assert outcome.message.splitlines() == [
        "Removed the auto-open hook from ~/.claude/settings.json.",
        "Removed the chat keep-alive Stop hook from ~/.claude/settings.json.",
        "Removed the chat keep-alive Stop hook from ~/.codex/hooks.json.",
    ]
    assert _read(_settings(machine)) == {}
    assert _read(codex) == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}
    }


def test_removing_when_nothing_is_installed_changes_nothing(machine: Machine) -> None:
    outcome = hooks.remove(machine, chat=True)
    assert outcome.ok and not outcome.changed
    assert outcome.message.splitlines() == [
        "~/.claude/settings.json does not exist; there was nothing to remove.",
        "~/.codex/hooks.json does not exist; there was nothing to remove.",
    ]
    _write(_settings(machine), REAL_SHAPED)
    again = hooks.remove(machine, chat=False)
    assert (
        again.message
        == "There was no Quire auto-open hook in ~/.claude/settings.json; nothing to remove."
    )
    assert _read(_settings(machine)) == REAL_SHAPED


def test_the_status_follows_the_file(machine: Machine, tmp_path: Path) -> None:
    status = hooks.hook_status(machine)
    assert (status.installed, status.chat_installed) == (False, False)
    assert status.detail == (
        "The auto-open hook is not installed in ~/.claude/settings.json: run `quire connect hook`."
    )
    assert status.command == hooks.print_json(machine, chat=False)
    hooks.install(machine, chat=False)
    status = hooks.hook_status(machine)
    assert (status.installed, status.chat_installed) == (True, False)
    assert status.detail == "The auto-open hook in ~/.claude/settings.json runs this Quire."
    _settings(machine).write_text("{oops", encoding="utf-8")
    assert hooks.hook_status(machine).detail.startswith(
        "~/.claude/settings.json cannot be changed: it is not valid JSON"
    )


def test_the_status_names_a_gone_quire(machine: Machine, tmp_path: Path) -> None:
    _write(_settings(machine), {"hooks": {"PostToolUse": [
        {"hooks": [{"type": "command", "command": "/gone/quire hook post-tool-use"}]}
    ]}})  # fmt: skip
    assert hooks.hook_status(machine).detail == (
        "The auto-open hook in ~/.claude/settings.json runs `/gone/quire`, which no longer "
        "exists; installing it again repairs it."
    )


def test_the_printed_json_is_exactly_what_install_adds(machine: Machine) -> None:
    printed = json.loads(hooks.print_json(machine, chat=False))
    hooks.install(machine, chat=False)
    assert _read(_settings(machine)) == printed
    both = hooks.print_json(machine, chat=True).split("\n# ~/.codex/hooks.json\n")
    assert both[0].startswith("# ~/.claude/settings.json\n")
    claude = json.loads(both[0].removeprefix("# ~/.claude/settings.json\n"))
    assert (
        claude == merge(merge({}, AUTO_OPEN, machine).settings, CLAUDE_KEEPALIVE, machine).settings
    )
    assert json.loads(both[1]) == merge({}, CODEX_KEEPALIVE, machine).settings


def test_the_printed_json_holds_none_of_the_users_settings(machine: Machine) -> None:
    _write(_settings(machine), REAL_SHAPED)
    printed = hooks.print_json(machine, chat=True)
    assert "DISABLE_TELEMETRY" not in printed
    assert "guard.sh" not in printed


CHAT_RULES = [f"Bash(quire chat {command}:*)" for command in CHAT_COMMANDS]


def test_the_approval_hooks_merge_the_chat_allow_list_as_hook_config_prints_it(
    machine: Machine,
) -> None:
    _write(_settings(machine), REAL_SHAPED)
    outcome = hooks.install(machine, chat=False, approvals=True)
    assert outcome.ok and outcome.changed
    assert (
        "Added 5 chat command rule(s) to `permissions.allow` in ~/.claude/settings.json: an "
        "agent runs `quire chat wait/read/post/status/leave` without asking."
    ) in outcome.message.splitlines()
    merged = _read(_settings(machine))
    assert merged["permissions"] == {
        "allow": ["Bash(npm run test:*)", *CHAT_RULES],
        "deny": ["Read(./.env)"],
    }
    printed = json.loads(hook_config(machine, "claude-code"))
    assert printed["permissions"] == {"allow": CHAT_RULES}
    for event, groups in printed["hooks"].items():
        assert all(group in merged["hooks"][event] for group in groups)
    again = hooks.install(machine, chat=False, approvals=True)
    assert not again.changed
    assert _read(_settings(machine)) == merged


def test_removing_the_approval_hooks_takes_out_exactly_the_rules_they_added(
    machine: Machine,
) -> None:
    _write(_settings(machine), REAL_SHAPED)
    hooks.install(machine, chat=False, approvals=True)
    outcome = hooks.remove(machine, chat=False, approvals=True)
    assert (
        "Removed 5 chat command rule(s) from `permissions.allow` in ~/.claude/settings.json."
        in outcome.message.splitlines()
    )
    assert _read(_settings(machine)) == REAL_SHAPED
    hooks.install(machine, chat=False, approvals=True)
    hooks.remove(machine, chat=False, approvals=True)
    _settings(machine).unlink()
    hooks.install(machine, chat=False, approvals=True)
    hooks.remove(machine, chat=False, approvals=True)
    assert _read(_settings(machine)) == {}


def test_the_printed_approval_json_carries_the_allow_list(machine: Machine) -> None:
    printed = hooks.print_json(machine, chat=False, approvals=True)
    claude = json.loads(printed.split("\n# ~/.codex/hooks.json\n")[0].split("\n", 1)[1])
    assert claude["permissions"] == {"allow": CHAT_RULES}
    hooks.install(machine, chat=False, approvals=True)
    assert _read(_settings(machine)) == claude


def test_a_permissions_list_quire_cannot_read_is_left_untouched(machine: Machine) -> None:
    _write(_settings(machine), {"permissions": {"allow": "Bash(*)"}})
    outcome = hooks.install(machine, chat=False, approvals=True)
    assert not outcome.ok
    assert (
        "~/.claude/settings.json cannot be changed: its `permissions.allow` is a string, not a "
        "list. Quire leaves it untouched; fix it by hand, then run `quire connect hook` again."
    ) in outcome.message.splitlines()
    assert _read(_settings(machine)) == {"permissions": {"allow": "Bash(*)"}}


def test_codex_without_hooks_enabled_is_told_how_for_the_approval_hooks_too(
    machine: Machine,
) -> None:
    (machine.home / ".codex").mkdir()
    outcome = hooks.install(machine, chat=False, approvals=True)
    assert outcome.message.splitlines()[-1] == (
        "Codex runs hooks only when ~/.codex/config.toml has `codex_hooks = true` under "
        "`[features]`: add it, then start a new Codex session."
    )
