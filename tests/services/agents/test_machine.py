"""Finding the `quire` program, and judging a configured program: this Quire, another, gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import FileMissing
from quire.services.agents.machine import (
    Machine,
    MachineFacts,
    find_quire,
    machine_for,
    quire_command,
)
from tests.support.agent_shims import environ_with_path, make_program


def _no_quire(name: str) -> str | None:
    return None


def test_the_running_quire_is_found_first(tmp_path: Path) -> None:
    running = make_program(tmp_path / "a" / "quire")
    other = make_program(tmp_path / "b" / "quire")
    found = find_quire(
        str(running), str(tmp_path / "py" / "python"), lambda _: str(other), tmp_path
    )
    assert found == running


def test_a_relative_running_quire_is_made_absolute_from_the_working_folder(tmp_path: Path) -> None:
    make_program(tmp_path / "bin" / "quire")
    found = find_quire("bin/../bin/quire", str(tmp_path / "python"), _no_quire, tmp_path)
    assert found == tmp_path / "bin" / "quire"


def test_a_running_program_with_another_name_is_not_taken(tmp_path: Path) -> None:
    pytest_program = make_program(tmp_path / "pytest")
    sibling = make_program(tmp_path / "venv" / "bin" / "quire")
    found = find_quire(
        str(pytest_program), str(tmp_path / "venv" / "bin" / "python"), _no_quire, tmp_path
    )
    assert found == sibling


def test_the_quire_on_path_wins_when_it_is_this_install(tmp_path: Path) -> None:
    sibling = make_program(tmp_path / "venv" / "bin" / "quire")
    link = tmp_path / "local" / "bin" / "quire"
    link.parent.mkdir(parents=True)
    link.symlink_to(sibling)
    found = find_quire(
        "-m", str(tmp_path / "venv" / "bin" / "python"), lambda _: str(link), tmp_path
    )
    assert found == link


def test_this_install_wins_over_another_quire_on_path(tmp_path: Path) -> None:
    sibling = make_program(tmp_path / "venv" / "bin" / "quire")
    other = make_program(tmp_path / "other" / "quire")
    found = find_quire(
        "-m", str(tmp_path / "venv" / "bin" / "python"), lambda _: str(other), tmp_path
    )
    assert found == sibling


def test_the_quire_on_path_is_used_when_this_python_has_none(tmp_path: Path) -> None:
    other = make_program(tmp_path / "other" / "quire")
    found = find_quire("-m", str(tmp_path / "python"), lambda _: str(other), tmp_path)
    assert found == other


def test_no_quire_anywhere_says_how_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(FileMissing, match=r"Cannot find the `quire` program.*quire --version"):
        find_quire("-m", str(tmp_path / "python"), _no_quire, tmp_path)


def test_machine_for_looks_quire_up_on_the_given_path(tmp_path: Path) -> None:
    on_path = make_program(tmp_path / "bin" / "quire")
    environ = environ_with_path(tmp_path / "bin")
    machine = machine_for(environ, tmp_path, "-m", str(tmp_path / "python"), tmp_path)
    assert machine.quire == on_path
    assert machine.environ == environ
    assert machine.home == tmp_path


def test_machine_facts_find_quire_anew_in_their_own_working_folder(tmp_path: Path) -> None:
    facts = MachineFacts(
        environ=environ_with_path(tmp_path / "empty"),
        home=tmp_path / "home",
        argv0="bin/quire",
        executable=str(tmp_path / "python"),
        cwd=tmp_path,
    )
    with pytest.raises(FileMissing, match="Cannot find the `quire` program"):
        facts.machine()
    installed = make_program(tmp_path / "bin" / "quire")
    machine = facts.machine()
    assert machine.quire == installed
    assert (machine.home, machine.environ) == (tmp_path / "home", facts.environ)


@pytest.fixture
def world(tmp_path: Path) -> Machine:
    quire = make_program(tmp_path / "install" / "quire")
    make_program(tmp_path / "bin" / "quire-elsewhere")
    make_program(tmp_path / "home" / ".local" / "bin" / "quire")
    return Machine(tmp_path / "home", environ_with_path(tmp_path / "bin"), quire)


@pytest.mark.parametrize(
    ("program", "verdict"),
    [
        ("{install}/quire", "ours"),
        ("{install}/../install/quire", "ours"),
        ("{link}", "ours"),
        ("{home}/.local/bin/quire", "other"),
        ("~/.local/bin/quire", "other"),
        (".local/bin/quire", "other"),
        ("quire-elsewhere", "other"),
        ("quire", "stale"),
        ("{install}/gone/quire", "stale"),
        ("{install}", "stale"),
        ("", "stale"),
        ("~", "stale"),
        ("/nonexistent/\u00e9\u0301/quire", "stale"),
    ],
)
def test_a_configured_program_is_judged(
    world: Machine, tmp_path: Path, program: str, verdict: str
) -> None:
    link = tmp_path / "link-to-quire"
    link.symlink_to(world.quire)
    named = program.format(install=world.quire.parent, home=world.home, link=link)
    assert world.judge(named) == verdict


def test_paths_inside_home_are_shown_with_a_tilde(world: Machine, tmp_path: Path) -> None:
    assert world.shown(world.home / ".claude" / "settings.json") == "~/.claude/settings.json"
    assert world.shown(tmp_path / "x.json") == str(tmp_path / "x.json")


@pytest.mark.parametrize(
    ("path", "command"),
    [
        ("/usr/bin/quire", "/usr/bin/quire hook post-tool-use"),
        ("/Apps/My Quire/quire", "'/Apps/My Quire/quire' hook post-tool-use"),
        ("/a/it's/quire", "'/a/it'\"'\"'s/quire' hook post-tool-use"),
        ("/a/$HOME/quire", "'/a/$HOME/quire' hook post-tool-use"),
    ],
)
def test_the_quire_path_is_quoted_for_a_shell(path: str, command: str) -> None:
    assert quire_command(Path(path), "hook", "post-tool-use") == command
