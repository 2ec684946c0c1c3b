"""`quire connect` as a person runs it: a real `quire` process with HOME and PATH set to a
temporary machine whose agent commands are recording shims."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quire.cli.main import cli
from tests.support.agent_shims import install_fake, make_program

QUIRE = Path(sys.executable).parent / "quire"


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Box:
    home: Path
    bin_dir: Path

    def run(self, *args: str, real: bool = False) -> Ran:
        """``quire connect args`` in this process (CliRunner), or with ``real`` as a process."""
        env = {"HOME": str(self.home), "PATH": str(self.bin_dir)}
        if real:
            done = subprocess.run(
                [str(QUIRE), "connect", *args],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
                check=False,
            )
            return Ran(done.returncode, done.stdout, done.stderr)
        result = CliRunner().invoke(cli, ["connect", *args], env=env)
        return Ran(result.exit_code, result.stdout, result.stderr)

    @property
    def settings(self) -> Path:
        return self.home / ".claude" / "settings.json"


@pytest.fixture
def box(tmp_path: Path) -> Box:
    (tmp_path / "home").mkdir()
    (tmp_path / "bin").mkdir()
    return Box(tmp_path / "home", tmp_path / "bin")


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_without_an_agent_it_lists_what_is_found(box: Box) -> None:
    install_fake(box.bin_dir, "claude")
    result = box.run(real=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:8] == [
        f"Quire: {QUIRE}",
        "",
        "Claude Code (claude-code): absent",
        "  Claude Code has no `quire` server yet: run `quire connect claude-code`.",
        "Codex (codex): not installed",
        "  Codex was not found: the `codex` command is not on PATH. Install Codex, then try again.",
        "Cursor (cursor): not installed",
        "  Cursor was not found: the `cursor` command is not on PATH and there is no ~/.cursor "
        "folder. Install Cursor, then try again.",
    ]
    assert "Auto-open hook: not installed" in result.stdout


def test_the_json_listing_is_the_connect_pages_data(box: Box) -> None:
    fake = install_fake(box.bin_dir, "codex")
    fake.seed(str(QUIRE), ["mcp"])
    result = box.run("--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [(agent["id"], agent["detected"], agent["state"]) for agent in data["agents"]] == [
        ("claude-code", False, "absent"),
        ("codex", True, "connected"),
        ("cursor", False, "absent"),
    ]
    assert data["agents"][1]["command"] == f"codex mcp add quire -- {QUIRE} mcp"
    assert set(data["hook"]) == {"installed", "chatInstalled", "command", "detail"}


def test_claude_code_is_registered_once(box: Box) -> None:
    fake = install_fake(box.bin_dir, "claude")
    first = box.run("claude-code", real=True)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(
        f"Registered Quire's MCP server with Claude Code: `{QUIRE} mcp`.\nNext: restart Claude "
        "Code (quit it and start a new session), then ask it to open its plan in Quire and "
        "request your review."
    )
    second = box.run("claude-code")
    assert second.returncode == 0
    assert "Nothing changed." in second.stdout
    assert fake.calls() == [
        ["mcp", "get", "quire"],
        ["mcp", "add", "--scope", "user", "quire", "--", str(QUIRE), "mcp"],
        ["mcp", "get", "quire"],
    ]


def test_codex_with_another_program_is_kept_and_exits_1(box: Box, tmp_path: Path) -> None:
    fake = install_fake(box.bin_dir, "codex")
    other = make_program(tmp_path / "elsewhere" / "quire")
    fake.seed(str(other), ["mcp"])
    result = box.run("codex")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"quire: Codex's `quire` server runs `{other} mcp`, another program. Quire keeps it; to "
        "use this Quire instead, run `codex mcp remove quire`, then connect again.\n"
    )
    assert fake.servers()["quire"]["command"] == str(other)


def test_an_agent_that_is_not_installed_exits_1_with_the_manual_command(box: Box) -> None:
    result = box.run("claude-code", real=True)
    assert result.returncode == 1
    assert result.stderr == (
        "quire: Claude Code was not found: the `claude` command is not on PATH. Install Claude "
        "Code, then try again. Or register Quire by hand: `claude mcp add --scope user quire -- "
        f"{QUIRE} mcp`.\n"
    )


@pytest.mark.parametrize(
    ("agent", "printed"),
    [
        ("claude-code", f"claude mcp add --scope user quire -- {QUIRE} mcp\n"),
        ("codex", f"codex mcp add quire -- {QUIRE} mcp\n"),
        (
            "cursor",
            json.dumps(
                {"mcpServers": {"quire": {"command": str(QUIRE), "args": ["mcp"]}}}, indent=2
            )
            + "\n",
        ),
    ],
)
def test_print_shows_the_command_and_changes_nothing(box: Box, agent: str, printed: str) -> None:
    claude = install_fake(box.bin_dir, "claude")
    codex = install_fake(box.bin_dir, "codex")
    result = box.run(agent, "--print")
    assert (result.returncode, result.stdout, result.stderr) == (0, printed, "")
    assert claude.calls() == codex.calls() == []
    assert sorted(path.name for path in box.home.iterdir()) == []


def test_connect_print_shows_the_block_any_mcp_client_reads_and_changes_nothing(
    box: Box,
) -> None:
    claude = install_fake(box.bin_dir, "claude")
    result = box.run("--print")
    block = {"mcpServers": {"quire": {"command": str(QUIRE), "args": ["mcp"]}}}
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == block
    assert claude.calls() == []
    assert sorted(path.name for path in box.home.iterdir()) == []


def test_print_before_an_agent_says_where_it_goes(box: Box) -> None:
    result = box.run("--print", "codex")
    assert result.returncode == 2
    assert "`quire connect codex --print`" in result.stderr


def test_cursor_is_merged_into_its_config(box: Box) -> None:
    (box.home / ".cursor").mkdir()
    config = box.home / ".cursor" / "mcp.json"
    config.write_text('{"mcpServers": {"github": {"command": "npx"}}}', encoding="utf-8")
    result = box.run("cursor")
    assert result.returncode == 0, result.stderr
    assert _read(config) == {
        "mcpServers": {
            "github": {"command": "npx"},
            "quire": {"command": str(QUIRE), "args": ["mcp"]},
        }
    }


def test_a_malformed_cursor_config_is_left_untouched(box: Box) -> None:
    (box.home / ".cursor").mkdir()
    config = box.home / ".cursor" / "mcp.json"
    config.write_text('{"mcpServers": {}, // me\n}', encoding="utf-8")
    result = box.run("cursor")
    assert result.returncode == 1
    assert result.stderr.startswith(
        "quire: ~/.cursor/mcp.json cannot be changed: it is not valid JSON"
    )
    assert config.read_text(encoding="utf-8") == '{"mcpServers": {}, // me\n}'


def test_the_hook_is_installed_once_and_removed(box: Box) -> None:
    first = box.run("hook", real=True)
    assert first.returncode == 0, first.stderr
    assert first.stdout == (
        "Installed the auto-open hook in ~/.claude/settings.json: when Claude Code writes or "
        "edits a Markdown file, it opens in Quire.\n"
        "Restart Claude Code (start a new session) to pick it up.\n"
    )
    installed = _read(box.settings)
    assert installed["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == (
        f"{QUIRE} hook post-tool-use"
    )
    assert box.run("hook").stdout == (
        "The auto-open hook in ~/.claude/settings.json already runs this Quire; nothing changed.\n"
    )
    assert _read(box.settings) == installed
    removed = box.run("hook", "--remove", real=True)
    assert removed.stdout == "Removed the auto-open hook from ~/.claude/settings.json.\n"
    assert _read(box.settings) == {}


def test_the_chat_hooks_reach_codex_too(box: Box) -> None:
    install_fake(box.bin_dir, "codex")
    result = box.run("hook", "--chat")
    assert result.returncode == 0, result.stderr
    stop = [{"hooks": [{"type": "command", "command": f"{QUIRE} chat keepalive", "timeout": 30}]}]
    assert _read(box.home / ".codex" / "hooks.json") == {"hooks": {"Stop": stop}}
    assert "codex_hooks = true" in result.stdout
    assert box.run("hook", "--remove", "--chat").returncode == 0
    assert _read(box.home / ".codex" / "hooks.json") == {}


def test_a_malformed_hooks_shape_exits_1_and_keeps_the_file(box: Box) -> None:
    box.settings.parent.mkdir()
    box.settings.write_text('{"hooks": {"PostToolUse": "Edit"}}', encoding="utf-8")
    result = box.run("hook")
    assert result.returncode == 1
    assert result.stderr == (
        "quire: ~/.claude/settings.json cannot be changed: its `hooks.PostToolUse` is a string, "
        "not a list. Quire leaves it untouched; fix it by hand, then run `quire connect hook` "
        "again.\n"
    )
    assert box.settings.read_text(encoding="utf-8") == '{"hooks": {"PostToolUse": "Edit"}}'


def test_the_hook_json_can_be_printed(box: Box) -> None:
    result = box.run("hook", "--print")
    assert result.returncode == 0
    handler = json.loads(result.stdout)["hooks"]["PostToolUse"][0]
    assert handler["matcher"] == "Edit|Write"
    assert not box.settings.exists()


def test_print_and_remove_together_is_a_usage_error(box: Box) -> None:
    result = box.run("hook", "--print", "--remove")
    assert result.returncode == 2
    assert "--print shows what would be installed; leave out --remove." in result.stderr
