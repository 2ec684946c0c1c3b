"""`quire approval check`, `hook-config` and `quire connect hook --approvals`, in process with a
temporary home: the policy's bad lines named, the settings block per harness, and the hooks
merged idempotently and removed again, other hooks kept."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quire.cli.main import cli
from quire.client.servers import SavedServer, save_server


@dataclass(frozen=True)
class Box:
    home: Path

    def run(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        env = {"HOME": str(self.home), "PATH": str(self.home / "bin"), "QUIRE_HOME": ""}
        result = CliRunner().invoke(cli, list(args), env=env, input=stdin)
        return result.exit_code, result.stdout, result.stderr

    @property
    def policy(self) -> Path:
        return self.home / ".quire" / "approvals.conf"

    def settings(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(
            (self.home / ".claude" / "settings.json").read_text("utf-8")
        )
        return data


@pytest.fixture
def box(tmp_path: Path) -> Box:
    (tmp_path / "bin").mkdir()
    (tmp_path / ".quire").mkdir()
    return Box(tmp_path)


def test_check_names_every_bad_line_and_exits_1(box: Box) -> None:
    box.policy.write_text("TOOLS=Bash\nMAX_WAIT=5\nOOPS=1\nno equals\n", encoding="utf-8")
    code, _, err = box.run("approval", "check")
    assert code == 1
    assert "line 2: MAX_WAIT must be a whole number of seconds from 10 to 3600" in err
    assert "line 3: unknown key 'OOPS'" in err
    assert "line 4: 'no equals' is not KEY=value" in err
    assert "the hooks send nothing" in err


@pytest.mark.parametrize(
    ("policy", "sample", "decided"),
    [
        ("TOOLS=Bash\n", '{"command": "ls"}', "sent to the server"),
        ("TOOLS=Bash\nNEVER_REMOTE=sudo\n", '{"command": "SUDO ls"}', "NEVER_REMOTE"),
        ("TOOLS=Write\n", '{"command": "ls"}', "not in TOOLS"),
    ],
)
def test_check_prints_what_the_policy_decides_for_a_sample(
    box: Box, policy: str, sample: str, decided: str
) -> None:
    box.policy.write_text(policy, encoding="utf-8")
    code, out, _ = box.run("approval", "check", "--input", sample)
    assert code == 0
    assert decided in out


def test_check_names_where_an_alias_server_sends_or_why_it_cannot(box: Box) -> None:
    box.policy.write_text("SERVER=@team\nTOOLS=Bash\n", encoding="utf-8")
    code, unsaved, _ = box.run("approval", "check")
    save_server(box.home / ".quire", SavedServer("team", "https://notes.example.com", "s" * 40))
    code_saved, saved, _ = box.run("approval", "check")
    assert code == code_saved == 0
    assert "quire login @team URL" in unsaved and "the hooks send nothing" in unsaved
    assert "the hooks send to https://notes.example.com" in saved
    assert "s" * 40 not in saved and "cannot sign in" not in saved


def test_check_without_a_policy_says_so(box: Box) -> None:
    code, _, err = box.run("approval", "check")
    assert code == 1
    assert "send nothing until it exists" in err


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_hook_config_prints_the_hooks_and_claudes_allow_list(box: Box, agent: str) -> None:
    code, out, _ = box.run("approval", "hook-config", agent)
    assert code == 0
    block = json.loads(out)
    events = set(block["hooks"])
    if agent == "claude-code":
        assert events == {"PermissionRequest", "PostToolUse", "Stop", "Notification"}
        assert "Bash(quire chat wait:*)" in block["permissions"]["allow"]
    else:
        assert events == {"PermissionRequest", "PostToolUse", "Stop"}
        assert "permissions" not in block
    command = block["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
    assert command.endswith(f"approval request --agent {agent}")


def test_connect_hook_approvals_merges_idempotently_and_removes(box: Box) -> None:
    claude = box.home / ".claude"
    claude.mkdir()
    other = {"type": "command", "command": "my-linter"}
    (claude / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [other]}]}, "model": "x"}), encoding="utf-8"
    )
    code, out, _ = box.run("connect", "hook", "--approvals")
    assert code == 0, out
    first = box.settings()
    assert set(first["hooks"]) == {"PermissionRequest", "PostToolUse", "Stop", "Notification"}
    assert other in [h for group in first["hooks"]["Stop"] for h in group["hooks"]]
    assert box.run("connect", "hook", "--approvals")[0] == 0
    assert box.settings() == first
    assert box.run("connect", "hook", "--approvals", "--remove")[0] == 0
    assert box.settings() == {"hooks": {"Stop": [{"hooks": [other]}]}, "model": "x"}


def test_connect_hook_approvals_print_changes_nothing(box: Box) -> None:
    code, out, _ = box.run("connect", "hook", "--approvals", "--print")
    assert code == 0
    assert "approval request --agent claude-code" in out
    assert "approval request --agent codex" in out
    assert not (box.home / ".claude").exists()
