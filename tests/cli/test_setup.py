"""`quire setup` on a temporary machine: HOME is a temp folder and PATH holds only recording
shims for `claude` and `codex`, as in the `quire connect` tests."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quire import __version__
from quire.cli.main import cli
from tests.support.agent_shims import FakeAgent, install_fake, make_program

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

    def env(self) -> dict[str, str | None]:
        return {"HOME": str(self.home), "PATH": str(self.bin_dir), "QUIRE_HOME": None}

    def run(self, *args: str, answers: str | None = None, real: bool = False) -> Ran:
        """``quire setup args`` in process (CliRunner, ``answers`` on stdin) or as a process."""
        if real:
            env = {k: v for k, v in self.env().items() if v is not None}
            done = subprocess.run(
                [str(QUIRE), "setup", *args],
                capture_output=True,
                text=True,
                env=env,
                input=answers or "",
                timeout=120,
                check=False,
            )
            return Ran(done.returncode, done.stdout, done.stderr)
        result = CliRunner().invoke(cli, ["setup", *args], env=self.env(), input=answers)
        return Ran(result.exit_code, result.stdout, result.stderr)

    @property
    def state(self) -> Path:
        return self.home / ".quire"

    @property
    def claude_settings(self) -> Path:
        return self.home / ".claude" / "settings.json"


@pytest.fixture
def box(tmp_path: Path) -> Box:
    (tmp_path / "home").mkdir()
    (tmp_path / "bin").mkdir()
    return Box(tmp_path / "home", tmp_path / "bin")


def _steps(stdout: str) -> dict[str, str]:
    data: dict[str, Any] = json.loads(stdout)
    return {step["name"]: step["action"] for step in data["steps"]}


def _adds(agent: FakeAgent) -> list[list[str]]:
    return [call for call in agent.calls() if call[:2] == ["mcp", "add"]]


def test_yes_creates_the_state_folder_connects_both_agents_and_installs_the_hook(
    box: Box,
) -> None:
    claude = install_fake(box.bin_dir, "claude")
    codex = install_fake(box.bin_dir, "codex")
    result = box.run("--yes", real=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Quire {__version__}: state folder {box.state} (created)\n")
    assert stat.S_IMODE(box.state.stat().st_mode) == 0o700
    assert f"[ok  ] state folder: {box.state} (mode 0700)" in result.stdout
    assert "[done] Claude Code: Registered Quire's MCP server with Claude Code" in result.stdout
    assert "[done] Codex: Registered Quire's MCP server with Codex" in result.stdout
    assert "[skip] Cursor: Cursor was not found" in result.stdout
    assert "[done] auto-open hook: Installed the auto-open hook" in result.stdout
    assert "`quire connect hook --approvals`" in result.stdout, "setup names the approval hooks"
    assert _adds(claude) == [["mcp", "add", "--scope", "user", "quire", "--", str(QUIRE), "mcp"]]
    assert _adds(codex) == [["mcp", "add", "quire", "--", str(QUIRE), "mcp"]]
    settings = json.loads(box.claude_settings.read_text(encoding="utf-8"))
    hook = settings["hooks"]["PostToolUse"][0]["hooks"][0]
    assert hook["command"] == f"{QUIRE} hook post-tool-use"
    assert "Stop" not in settings["hooks"], "the chat keep-alive hook is opt-in"


def test_run_again_it_changes_nothing(box: Box) -> None:
    claude = install_fake(box.bin_dir, "claude")
    assert box.run("--yes").returncode == 0
    before = box.claude_settings.read_bytes()
    again = box.run("--json", "--yes")
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["stateCreated"] is False
    assert _steps(again.stdout) == {
        "Claude Code": "already",
        "Codex": "not offered",
        "Cursor": "not offered",
        "auto-open hook": "already",
    }
    assert len(_adds(claude)) == 1
    assert box.claude_settings.read_bytes() == before


def test_each_offer_is_asked_and_a_no_is_respected(box: Box) -> None:
    claude = install_fake(box.bin_dir, "claude")
    codex = install_fake(box.bin_dir, "codex")
    result = box.run(answers="y\nn\nn\n")
    assert result.returncode == 0, result.stderr
    assert "Connect Claude Code to Quire (" in result.stdout
    assert "Connect Codex to Quire (" in result.stdout
    assert "Install the auto-open hook" in result.stdout
    assert "[done] Claude Code:" in result.stdout
    assert "[no  ] Codex: Not connected; `quire connect codex` connects it later." in result.stdout
    assert "[no  ] auto-open hook: Not installed; `quire connect hook` installs it later." in (
        result.stdout
    )
    assert len(_adds(claude)) == 1
    assert _adds(codex) == []
    assert not box.claude_settings.exists()


def test_when_the_input_ends_the_rest_is_declined_without_a_traceback(box: Box) -> None:
    claude = install_fake(box.bin_dir, "claude")
    install_fake(box.bin_dir, "codex")
    result = box.run(real=True)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.count("Connect ") == 1, "asked once, then the closed input said no"
    assert "[no  ] Claude Code:" in result.stdout
    assert "[no  ] Codex:" in result.stdout
    assert _adds(claude) == []


def test_json_without_yes_asks_nothing_and_changes_nothing(box: Box) -> None:
    claude = install_fake(box.bin_dir, "claude")
    result = box.run("--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["ok"], data["version"], data["stateDir"]) == (True, __version__, str(box.state))
    assert {check["name"] for check in data["checks"]} >= {"state folder", "server", "git"}
    assert _steps(result.stdout) == {
        "Claude Code": "declined",
        "Codex": "not offered",
        "Cursor": "not offered",
        "auto-open hook": "declined",
    }
    assert claude.calls() == [["mcp", "get", "quire"]]
    assert not box.claude_settings.exists()


def test_an_agent_running_another_program_is_kept_and_not_offered(box: Box, tmp_path: Path) -> None:
    codex = install_fake(box.bin_dir, "codex")
    other = make_program(tmp_path / "elsewhere" / "quire")
    codex.seed(str(other), ["mcp"])
    result = box.run("--yes", "--json")
    assert result.returncode == 0, result.stderr
    assert _steps(result.stdout)["Codex"] == "not offered"
    assert codex.servers()["quire"]["command"] == str(other)
    assert _adds(codex) == []


def test_a_connection_that_fails_is_reported_and_exits_1(box: Box) -> None:
    claude = install_fake(box.bin_dir, "claude")
    claude.fail("add", 1, "claude: config is locked\n")
    result = box.run("--yes", "--json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    failed = [step for step in data["steps"] if step["action"] == "failed"]
    assert [step["name"] for step in failed] == ["Claude Code"]
    assert "config is locked" in failed[0]["message"]
    assert data["ok"] is False


def test_a_state_folder_that_is_a_file_is_refused_with_what_to_do(box: Box) -> None:
    box.state.write_text("not a folder", encoding="utf-8")
    result = box.run("--yes")
    assert result.returncode == 1
    assert result.stderr.startswith("quire: ")
    assert "QUIRE_HOME" in result.stderr
    assert "Traceback" not in result.stderr
