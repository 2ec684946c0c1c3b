"""The agents by id: detection, each one's status for the Connect page, connecting by id, and
the page's JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from quire.core.errors import AgentNotDetected, InvalidArgument
from quire.services.agents import commands, roster
from quire.services.agents.commands import run_agent
from quire.services.agents.detection import detect, has_program_or_folder
from quire.services.agents.machine import Machine
from quire.services.agents.overview import overview
from quire.services.agents.results import AGENT_IDS
from tests.support.agent_shims import install_fake, make_program


@pytest.mark.parametrize(
    ("programs", "folders", "detected"),
    [
        ((), (), {"claude-code": False, "codex": False, "cursor": False}),
        (("claude", "codex", "cursor"), (), {"claude-code": True, "codex": True, "cursor": True}),
        (
            (),
            (".claude", ".codex", ".cursor"),
            {"claude-code": False, "codex": False, "cursor": True},
        ),
        (("codex",), (".cursor",), {"claude-code": False, "codex": True, "cursor": True}),
    ],
)
def test_agents_are_detected_by_command_or_folder(
    machine: Machine,
    bin_dir: Path,
    programs: tuple[str, ...],
    folders: tuple[str, ...],
    detected: dict[str, bool],
) -> None:
    for program in programs:
        make_program(bin_dir / program)
    for folder in folders:
        (machine.home / folder).mkdir()
    assert {agent: detect(agent, machine).detected for agent in AGENT_IDS} == detected


def test_a_detected_agent_says_where_it_is(machine: Machine, bin_dir: Path) -> None:
    make_program(bin_dir / "claude")
    assert detect("claude-code", machine).detail == (
        f"Claude Code is installed: `claude` is {bin_dir / 'claude'}."
    )
    (machine.home / ".cursor").mkdir()
    assert detect("cursor", machine).detail == "Cursor is installed: ~/.cursor exists."


def test_a_settings_folder_is_enough_to_write_settings(machine: Machine) -> None:
    assert not has_program_or_folder("codex", machine)
    (machine.home / ".codex").mkdir()
    assert has_program_or_folder("codex", machine)


def test_a_file_named_like_the_folder_is_not_the_folder(machine: Machine) -> None:
    (machine.home / ".cursor").write_text("", encoding="utf-8")
    assert not detect("cursor", machine).detected


def test_every_agent_has_a_status_in_a_fixed_order(machine: Machine, bin_dir: Path) -> None:
    claude = install_fake(bin_dir, "claude")
    claude.seed(str(machine.quire), ["mcp"])
    (machine.home / ".cursor").mkdir()
    statuses = roster.statuses(machine)
    assert [(s.id, s.name, s.detected, s.state) for s in statuses] == [
        ("claude-code", "Claude Code", True, "connected"),
        ("codex", "Codex", False, "absent"),
        ("cursor", "Cursor", True, "absent"),
    ]
    assert statuses[1].detail.startswith("Codex was not found")
    assert statuses[2].detail == "Cursor has no `quire` server yet: run `quire connect cursor`."
    for status in statuses:
        assert status.command == roster.AGENTS[status.id].print_command(machine)


def test_an_undetected_agent_is_never_asked(machine: Machine, tmp_path: Path) -> None:
    elsewhere = install_fake(tmp_path / "not-on-path", "codex")
    assert roster.status("codex", machine).state == "absent"
    assert elsewhere.calls() == []


@pytest.mark.parametrize("agent_id", ["claude", "Cursor", "", "cursor\x00", "../codex", "vscode"])
def test_an_unknown_agent_is_refused_by_name(machine: Machine, agent_id: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        roster.connect(agent_id, machine)
    assert refused.value.argument == "id"
    assert str(refused.value) == (
        f"Quire does not know the agent {agent_id!r}; it connects claude-code, codex, cursor."
    )


def test_connecting_by_id_reaches_the_agent(machine: Machine, bin_dir: Path) -> None:
    fake = install_fake(bin_dir, "codex")
    assert roster.connect("codex", machine).ok
    assert fake.servers() == {"quire": {"command": str(machine.quire), "args": ["mcp"]}}
    with pytest.raises(AgentNotDetected):
        roster.connect("claude-code", machine)


def test_hooks_change_through_the_roster(machine: Machine) -> None:
    assert roster.change_hooks(machine, chat=False, remove=False).changed
    assert roster.change_hooks(machine, chat=False, remove=True).changed
    settings = machine.home / ".claude" / "settings.json"
    assert json.loads(settings.read_text(encoding="utf-8")) == {}


def test_the_overview_json_has_the_connect_pages_shape(machine: Machine, bin_dir: Path) -> None:
    install_fake(bin_dir, "claude")
    hook = f"'{machine.quire}' hook post-tool-use"
    data: Any = overview(machine).dump()
    assert set(data) == {"agents", "hook"}
    assert data["agents"][0] == {
        "id": "claude-code",
        "name": "Claude Code",
        "detected": True,
        "state": "absent",
        "detail": "Claude Code has no `quire` server yet: run `quire connect claude-code`.",
        "command": f"claude mcp add --scope user quire -- '{machine.quire}' mcp",
    }
    assert data["hook"] == {
        "installed": False,
        "chatInstalled": False,
        "command": json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "Edit|Write",
                            "hooks": [
                                {"type": "command", "command": hook, "if": "Write(*.md)"},
                                {"type": "command", "command": hook, "if": "Edit(*.md)"},
                            ],
                        }
                    ]
                }
            },
            indent=2,
        ),
        "detail": "The auto-open hook is not installed in ~/.claude/settings.json: run "
        "`quire connect hook`.",
    }
    json.dumps(data)


def test_a_command_that_does_not_finish_in_time_is_reported(
    machine: Machine, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_program(bin_dir / "claude")

    def too_slow(*args: Any, **kwargs: Any) -> Any:
        raise subprocess.TimeoutExpired(args[0], commands.TIMEOUT_SECONDS)

    monkeypatch.setattr(subprocess, "run", too_slow)
    ran = run_agent(machine, "claude", ["mcp", "get", "quire"])
    assert (ran.ok, ran.exit_code) == (False, None)
    assert (
        ran.failure() == "`claude mcp get quire` could not run: it did not finish within 60 seconds"
    )


def test_a_command_runs_with_the_machines_environment(machine: Machine, bin_dir: Path) -> None:
    script = bin_dir / "claude"
    script.write_text('#!/bin/sh\nprintf "%s|%s" "$QUIRE_TEST_MARK" "$1"\n', encoding="utf-8")
    script.chmod(0o755)
    marked = Machine(machine.home, {**machine.environ, "QUIRE_TEST_MARK": "é"}, machine.quire)
    ran = run_agent(marked, "claude", ["a b"])
    assert (ran.ok, ran.stdout, ran.argv) == (True, "é|a b", ("claude", "a b"))


def test_output_that_is_not_utf8_does_not_break_the_run(machine: Machine, bin_dir: Path) -> None:
    script = bin_dir / "codex"
    script.write_text("#!/bin/sh\nprintf '\\377oops' >&2\nexit 4\n", encoding="utf-8")
    script.chmod(0o755)
    ran = run_agent(machine, "codex", ["mcp"])
    assert ran.failure() == "`codex mcp` failed (exit 4): \ufffdoops"
