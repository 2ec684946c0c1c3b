"""Merging Quire's server into ~/.cursor/mcp.json: only the `quire` key, other servers kept,
a file Quire cannot read left untouched with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quire.core.errors import AgentNotDetected
from quire.services.agents import cursor
from quire.services.agents.machine import Machine
from tests.support.agent_shims import make_program

OTHERS = {
    "github": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"},
    },
    "linear": {"url": "https://mcp.linear.app/sse"},
}


@pytest.fixture
def config(machine: Machine) -> Path:
    (machine.home / ".cursor").mkdir()
    return machine.home / ".cursor" / "mcp.json"


def _ours(machine: Machine) -> dict[str, Any]:
    return {"command": str(machine.quire), "args": ["mcp"]}


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_missing_file_is_created_with_quire(machine: Machine, config: Path) -> None:
    assert cursor.registration(machine).state == "absent"
    outcome = cursor.connect(machine)
    assert outcome.ok and outcome.changed
    assert _read(config) == {"mcpServers": {"quire": _ours(machine)}}
    assert outcome.message == (
        f"Added Quire's MCP server to ~/.cursor/mcp.json: `'{machine.quire}' mcp`; its other "
        f"servers are unchanged.\n{cursor.NEXT_STEP}"
    )


@pytest.mark.parametrize("content", ["", "  \n", "{}", '{"mcpServers": {}}'])
def test_an_empty_file_gets_quire(machine: Machine, config: Path, content: str) -> None:
    config.write_text(content, encoding="utf-8")
    assert cursor.connect(machine).ok
    assert _read(config) == {"mcpServers": {"quire": _ours(machine)}}


def test_other_servers_and_settings_are_kept_in_order(machine: Machine, config: Path) -> None:
    config.write_text(
        json.dumps({"mcpServers": OTHERS, "inputs": [{"id": "x"}]}, indent=4), encoding="utf-8"
    )
    assert cursor.connect(machine).ok
    data = _read(config)
    assert data == {"mcpServers": {**OTHERS, "quire": _ours(machine)}, "inputs": [{"id": "x"}]}
    assert list(data["mcpServers"]) == ["github", "linear", "quire"]
    assert config.read_text(encoding="utf-8").startswith('{\n    "mcpServers": {\n        "github"')


def test_connecting_twice_does_not_write_again(machine: Machine, config: Path) -> None:
    cursor.connect(machine)
    before = config.stat()
    again = cursor.connect(machine)
    assert again.ok and not again.changed
    assert again.message.startswith(
        f"Cursor runs this Quire's MCP server: `'{machine.quire}' mcp`. Nothing changed."
    )
    assert (config.stat().st_ino, config.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_gone_program_is_replaced_in_place(
    machine: Machine, config: Path, tmp_path: Path
) -> None:
    gone = str(tmp_path / "old" / "quire")
    config.write_text(
        json.dumps({"mcpServers": {"quire": {"command": gone, "args": ["mcp"]}, **OTHERS}}),
        encoding="utf-8",
    )
    assert cursor.registration(machine).state == "stale"
    outcome = cursor.connect(machine)
    assert outcome.ok and outcome.changed
    assert outcome.message.splitlines()[0] == (
        f"Replaced the `quire` server in ~/.cursor/mcp.json, which ran `{gone}` (no longer "
        f"there), with this Quire: `'{machine.quire}' mcp`."
    )
    assert list(_read(config)["mcpServers"].items()) == [
        ("quire", _ours(machine)),
        *OTHERS.items(),
    ]


@pytest.mark.parametrize(
    ("entry", "detail"),
    [
        ({"command": "{other}", "args": ["mcp"]}, "runs `{other} mcp`, another program"),
        ({"command": "npx", "args": ["quire-mcp"]}, "runs `npx quire-mcp`, another program"),
        ({"url": "http://localhost:4747/mcp"}, "is the URL http://localhost:4747/mcp"),
        ({}, "is a server Quire cannot read"),
    ],
)
def test_another_quire_server_is_kept_and_named(
    machine: Machine,
    config: Path,
    tmp_path: Path,
    bin_dir: Path,
    entry: dict[str, Any],
    detail: str,
) -> None:
    other = make_program(tmp_path / "other" / "quire")
    make_program(bin_dir / "npx")
    filled = json.loads(json.dumps(entry).replace("{other}", str(other)))
    text = json.dumps({"mcpServers": {"quire": filled}})
    config.write_text(text, encoding="utf-8")
    outcome = cursor.connect(machine)
    assert not outcome.ok and not outcome.changed
    assert outcome.message == (
        f"Cursor's `quire` server {detail.replace('{other}', str(other))}. Quire keeps it; to "
        "use this Quire instead, remove the `quire` key from ~/.cursor/mcp.json, then "
        "connect again."
    )
    assert config.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"mcpServers": {},}', "it is not valid JSON (Expecting property name enclosed in "
         "double quotes at line 1, column 19)"),
        ('// servers\n{"mcpServers": {}}', "it is not valid JSON (Expecting value at line 1, "
         "column 1)"),
        ("[]", "it holds a list, not a JSON object"),
        ('{"mcpServers": []}', "its `mcpServers` is a list, not an object"),
        ('{"mcpServers": null}', None),
        (b"\xff\xfe{}", "it is not UTF-8 text (byte 1)"),
    ],
)  # fmt: skip
def test_a_file_quire_cannot_read_is_left_untouched(
    machine: Machine, config: Path, content: str | bytes, problem: str | None
) -> None:
    raw = content.encode() if isinstance(content, str) else content
    config.write_bytes(raw)
    outcome = cursor.connect(machine)
    if problem is None:
        assert outcome.ok
        assert _read(config) == {"mcpServers": {"quire": _ours(machine)}}
        return
    expected = (
        f"~/.cursor/mcp.json cannot be changed: {problem}. Quire leaves it untouched; fix it "
        "(or add Quire's entry by hand), then connect again."
    )
    assert (outcome.ok, outcome.message) == (False, expected)
    assert cursor.registration(machine).detail == expected
    assert config.read_bytes() == raw


def test_a_quire_key_that_is_not_an_object_is_left_untouched(
    machine: Machine, config: Path
) -> None:
    config.write_text('{"mcpServers": {"quire": "quire mcp"}}', encoding="utf-8")
    outcome = cursor.connect(machine)
    assert not outcome.ok
    assert outcome.message == (
        "~/.cursor/mcp.json holds a string for `quire`, not a server. Quire leaves it "
        "untouched; remove the `quire` key from ~/.cursor/mcp.json, then connect again."
    )


def test_the_cursor_command_alone_counts_as_installed(machine: Machine, bin_dir: Path) -> None:
    make_program(bin_dir / "cursor")
    assert cursor.connect(machine).ok
    assert _read(machine.home / ".cursor" / "mcp.json") == {"mcpServers": {"quire": _ours(machine)}}


def test_without_cursor_nothing_is_written(machine: Machine) -> None:
    with pytest.raises(AgentNotDetected) as missing:
        cursor.connect(machine)
    assert str(missing.value) == (
        "Cursor was not found: the `cursor` command is not on PATH and there is no ~/.cursor "
        "folder. Install Cursor, then try again. Or add this to ~/.cursor/mcp.json by hand:\n"
        + cursor.print_json(machine)
    )
    assert not (machine.home / ".cursor").exists()


def test_a_symlinked_config_keeps_its_link(machine: Machine, tmp_path: Path) -> None:
    (machine.home / ".cursor").mkdir()
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text(json.dumps({"mcpServers": OTHERS}), encoding="utf-8")
    (machine.home / ".cursor" / "mcp.json").symlink_to(target)
    assert cursor.connect(machine).ok
    assert (machine.home / ".cursor" / "mcp.json").is_symlink()
    assert _read(target)["mcpServers"]["quire"] == _ours(machine)


def test_the_printed_json_is_only_quires_entry(machine: Machine, config: Path) -> None:
    config.write_text(json.dumps({"mcpServers": OTHERS}), encoding="utf-8")
    printed = cursor.print_json(machine)
    assert json.loads(printed) == {"mcpServers": {"quire": _ours(machine)}}
    assert "ghp_secret" not in printed
