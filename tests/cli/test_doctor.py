"""``quire doctor`` from the command line: preview, apply, JSON and the exit status."""

import json
from pathlib import Path

from click.testing import CliRunner

from quire.cli.main import cli


def test_the_command_previews_then_applies_repairs(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {"QUIRE_HOME": str(state)}
    runner = CliRunner()
    preview = runner.invoke(cli, ["doctor", "--fix"], env=env)
    assert preview.exit_code == 0
    assert f"repair (would): create {state} (mode 0700)" in preview.output
    assert not state.exists()
    applied = runner.invoke(cli, ["doctor", "--fix", "--apply", "--json"], env=env)
    report = json.loads(applied.output)
    assert report["repairs"] == [{"repair": f"create {state} (mode 0700)", "applied": True}]
    assert state.is_dir()


def test_apply_without_fix_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["doctor", "--apply"], env={"QUIRE_HOME": str(tmp_path)})
    assert result.exit_code == 2
    assert "--fix --apply" in result.output


def test_a_failing_check_exits_1(tmp_path: Path) -> None:
    (tmp_path / "server.json").write_text("broken", encoding="utf-8")
    result = CliRunner().invoke(cli, ["doctor", "--json"], env={"QUIRE_HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert json.loads(result.output)["ok"] is False
