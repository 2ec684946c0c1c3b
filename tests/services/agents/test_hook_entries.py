"""Finding, merging and removing Quire's entries in a hooks object, leaving every other hook
and setting as it was."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from quire.services.agents.hook_entries import (
    HookSpec,
    ShapeError,
    describe,
    has_entry,
    merge,
    quire_program,
    remove,
)
from quire.services.agents.hooks import AUTO_OPEN, CLAUDE_KEEPALIVE, CODEX_KEEPALIVE
from quire.services.agents.machine import Machine
from tests.support.agent_shims import make_program

ARGS = ("hook", "post-tool-use")


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("/usr/bin/quire hook post-tool-use", "/usr/bin/quire"),
        ("'/Apps/My Quire/quire' hook post-tool-use", "/Apps/My Quire/quire"),
        ('"/Apps/My Quire/quire" hook post-tool-use', "/Apps/My Quire/quire"),
        ("/Apps/My Quire/quire hook post-tool-use", "/Apps/My Quire/quire"),
        ("quire hook post-tool-use", "quire"),
        ("  quire hook post-tool-use", "quire"),
        ("/usr/bin/quire hook post-tool-use --extra", None),
        ("/usr/bin/quire hook", None),
        ("/usr/bin/quire chat keepalive", None),
        ("/usr/bin/mdview hook post-tool-use", None),
        ("/usr/bin/quire-beta hook post-tool-use", None),
        ("'/unterminated/quire hook post-tool-use", "'/unterminated/quire"),
        (" hook post-tool-use", None),
        ("", None),
        (None, None),
        (42, None),
        (["quire", "hook", "post-tool-use"], None),
    ],
)
def test_a_hook_command_names_the_quire_it_runs(command: object, program: str | None) -> None:
    assert quire_program(command, ARGS) == program


def _auto_open(command: str) -> dict[str, Any]:
    return {
        "matcher": "Edit|Write",
        "hooks": [
            {"type": "command", "command": command, "if": "Write(*.md)"},
            {"type": "command", "command": command, "if": "Edit(*.md)"},
        ],
    }


def _settings(*groups: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"model": "opus", "hooks": {"PostToolUse": list(groups), **more}}


OTHER_TOOL = {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}


def test_merging_into_nothing_adds_the_hook(machine: Machine) -> None:
    merged = merge({}, AUTO_OPEN, machine)
    assert merged.result == "added"
    assert merged.settings == {"hooks": {"PostToolUse": [_auto_open(AUTO_OPEN.command(machine))]}}


def test_merging_keeps_other_settings_and_hooks_and_appends(machine: Machine) -> None:
    settings = _settings(OTHER_TOOL, Stop=[{"hooks": [{"type": "command", "command": "x"}]}])
    before = copy.deepcopy(settings)
    merged = merge(settings, AUTO_OPEN, machine)
    assert settings == before
    assert merged.settings["model"] == "opus"
    assert merged.settings["hooks"]["Stop"] == before["hooks"]["Stop"]
    assert merged.settings["hooks"]["PostToolUse"] == [
        OTHER_TOOL,
        _auto_open(AUTO_OPEN.command(machine)),
    ]


def test_merging_twice_changes_nothing_the_second_time(machine: Machine) -> None:
    once = merge(_settings(OTHER_TOOL), AUTO_OPEN, machine).settings
    twice = merge(once, AUTO_OPEN, machine)
    assert twice.result == "present"
    assert twice.settings == once


def test_an_unquoted_entry_for_this_quire_is_rewritten_quoted(machine: Machine) -> None:
    unquoted = f"{machine.quire} hook post-tool-use"
    assert " " in str(machine.quire)
    merged = merge(_settings(_auto_open(unquoted)), AUTO_OPEN, machine)
    assert merged.result == "repaired"
    assert merged.program is None
    assert merged.settings == _settings(_auto_open(AUTO_OPEN.command(machine)))


def test_an_entry_for_a_gone_quire_is_pointed_at_this_one_in_place(
    machine: Machine, tmp_path: Path
) -> None:
    gone = f"'{tmp_path}/Downloads/quire' hook post-tool-use"
    settings = _settings(OTHER_TOOL, _auto_open(gone))
    merged = merge(settings, AUTO_OPEN, machine)
    assert merged.result == "repaired"
    assert merged.program == f"{tmp_path}/Downloads/quire"
    assert merged.settings == _settings(OTHER_TOOL, _auto_open(AUTO_OPEN.command(machine)))


def test_several_gone_entries_leave_a_single_one(machine: Machine, tmp_path: Path) -> None:
    gone = [f"{tmp_path}/old{number}/quire hook post-tool-use" for number in range(3)]
    settings = _settings(*(_auto_open(command) for command in gone))
    merged = merge(settings, AUTO_OPEN, machine)
    assert merged.settings == _settings(_auto_open(AUTO_OPEN.command(machine)))


def test_gone_entries_beside_this_quire_are_dropped(machine: Machine, tmp_path: Path) -> None:
    settings = _settings(
        _auto_open(f"{tmp_path}/old/quire hook post-tool-use"),
        _auto_open(AUTO_OPEN.command(machine)),
    )
    merged = merge(settings, AUTO_OPEN, machine)
    assert merged.result == "repaired"
    assert merged.settings == _settings(_auto_open(AUTO_OPEN.command(machine)))


def test_an_entry_for_another_existing_quire_is_kept_and_named(
    machine: Machine, tmp_path: Path
) -> None:
    other = make_program(tmp_path / "other" / "quire")
    settings = _settings(_auto_open(f"{other} hook post-tool-use"))
    merged = merge(settings, AUTO_OPEN, machine)
    assert merged.result == "other"
    assert merged.program == str(other)
    assert merged.settings == settings
    assert not has_entry(settings, AUTO_OPEN, machine)


def test_describe_reports_what_merge_would_find(machine: Machine, tmp_path: Path) -> None:
    assert describe({}, AUTO_OPEN, machine).result == "added"
    ours = merge({}, AUTO_OPEN, machine).settings
    assert describe(ours, AUTO_OPEN, machine).result == "present"
    gone = _settings(_auto_open(f"{tmp_path}/gone/quire hook post-tool-use"))
    assert (
        describe(gone, AUTO_OPEN, machine).result,
        describe(gone, AUTO_OPEN, machine).program,
    ) == (
        "repaired",
        f"{tmp_path}/gone/quire",
    )
    assert has_entry(ours, AUTO_OPEN, machine)


def test_a_hand_written_entry_in_another_group_is_recognised(machine: Machine) -> None:
    group = {
        "matcher": "Write|Edit|MultiEdit",
        "hooks": [{"type": "command", "command": f"{AUTO_OPEN.command(machine)}"}],
    }
    assert merge(_settings(group), AUTO_OPEN, machine).result == "present"


def test_the_stop_hooks_are_written_as_the_agents_read_them(machine: Machine) -> None:
    command = CLAUDE_KEEPALIVE.command(machine)
    assert merge({}, CLAUDE_KEEPALIVE, machine).settings == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}
    }
    assert merge({}, CODEX_KEEPALIVE, machine).settings == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}]}
    }


def test_the_auto_open_and_stop_hooks_do_not_see_each_other(machine: Machine) -> None:
    both = merge(merge({}, AUTO_OPEN, machine).settings, CLAUDE_KEEPALIVE, machine).settings
    without_stop, removed = remove(both, CLAUDE_KEEPALIVE, machine)
    assert removed == 1
    assert without_stop == merge({}, AUTO_OPEN, machine).settings


def test_removing_takes_out_every_quire_entry_and_nothing_else(
    machine: Machine, tmp_path: Path
) -> None:
    other = make_program(tmp_path / "other" / "quire")
    mixed = {
        "matcher": "Edit|Write",
        "hooks": [
            {"type": "command", "command": "prettier.sh"},
            {"type": "command", "command": f"{other} hook post-tool-use"},
        ],
    }
    settings = _settings(
        OTHER_TOOL,
        mixed,
        _auto_open(AUTO_OPEN.command(machine)),
        _auto_open("quire hook post-tool-use"),
    )
    cleaned, removed = remove(settings, AUTO_OPEN, machine)
    assert removed == 5
    assert cleaned == _settings(
        OTHER_TOOL,
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier.sh"}]},
    )


def test_removing_the_only_hook_leaves_no_empty_containers(machine: Machine) -> None:
    settings = {"model": "opus", **merge({}, AUTO_OPEN, machine).settings}
    assert remove(settings, AUTO_OPEN, machine) == ({"model": "opus"}, 2)


def test_removing_keeps_containers_that_were_empty_before(machine: Machine) -> None:
    settings: dict[str, Any] = {"hooks": {"PostToolUse": [], "Stop": []}}
    assert remove(settings, AUTO_OPEN, machine) == (settings, 0)


def test_removing_keeps_other_events_in_hooks(machine: Machine) -> None:
    settings = merge({"hooks": {"Stop": []}}, AUTO_OPEN, machine).settings
    assert remove(settings, AUTO_OPEN, machine) == ({"hooks": {"Stop": []}}, 2)


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"hooks": []}, "its `hooks` is a list, not an object"),
        ({"hooks": "x"}, "its `hooks` is a string, not an object"),
        ({"hooks": {"PostToolUse": {}}}, "its `hooks.PostToolUse` is an object, not a list"),
        ({"hooks": {"PostToolUse": None}}, "its `hooks.PostToolUse` is null, not a list"),
        ({"hooks": None}, "its `hooks` is null, not an object"),
        (
            {"hooks": {"PostToolUse": [3]}},
            "item 1 of `hooks.PostToolUse` is a number, not an object",
        ),
        (
            {"hooks": {"PostToolUse": [{"hooks": []}, {"hooks": {"a": 1}}]}},
            "the `hooks` of item 2 of `hooks.PostToolUse` is an object, not a list",
        ),
        (
            {"hooks": {"PostToolUse": [{"hooks": ["quire hook post-tool-use"]}]}},
            "a hook in item 1 of `hooks.PostToolUse` is a string, not an object",
        ),
        ({"hooks": {"PostToolUse": [{"matcher": "Bash"}]}}, None),
        ({"hooks": {"Stop": "broken"}}, None),
    ],
)
def test_a_malformed_hooks_shape_is_refused_by_every_operation(
    machine: Machine, settings: dict[str, Any], problem: str | None
) -> None:
    spec: HookSpec = AUTO_OPEN
    if problem is None:
        assert merge(settings, spec, machine).result == "added"
        return
    for operation in (merge, describe, has_entry, remove):
        with pytest.raises(ShapeError) as refused:
            operation(settings, spec, machine)
        assert str(refused.value) == problem
