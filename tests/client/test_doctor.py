"""doctor's checks and repairs, with the environment and the program lookup injected."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from quire import __version__
from quire.api.exports import EngineStatus
from quire.api.server import Health
from quire.client.doctor import (
    check_database,
    check_engines,
    check_git,
    check_git_locks,
    check_git_operations,
    check_programs,
    check_replicas,
    check_server,
    check_server_file,
    check_server_version,
    check_state_folder,
    run_checks,
)
from quire.core.server_info import ServerInfo, dumps
from quire.services.app import open_services
from quire.settings.model import Settings
from quire.settings.server_file import Found
from quire.web.app import create_app
from tests.support.git_repo import git_env, make_repo, user_git
from tests.support.machines import machine_under
from tests.web.live_server import live_server

TOKEN = "a" * 64


def nothing(name: str) -> str | None:
    return None


def test_a_missing_state_folder_is_created_owner_only_by_the_repair(tmp_path: Path) -> None:
    state = tmp_path / "state"
    check = check_state_folder(state)
    assert check.status == "warn"
    assert check.repair is not None
    check.repair.apply()
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert check_state_folder(state).status == "ok"


def test_an_open_state_folder_is_tightened(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    check = check_state_folder(tmp_path)
    assert (check.status, check.fix) == ("warn", f"chmod 700 {tmp_path}")
    assert check.repair is not None
    check.repair.apply()
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o700


def test_a_state_path_that_is_a_file_fails(tmp_path: Path) -> None:
    path = tmp_path / "state"
    path.write_text("x", encoding="utf-8")
    assert check_state_folder(path).status == "fail"


@pytest.mark.parametrize(
    ("text", "status"),
    [("not json", "fail"), (dumps(ServerInfo("http://127.0.0.1:1", "t", 2**31 - 2)), "warn")],
)
def test_a_broken_or_stale_server_file_is_removed_by_the_repair(
    tmp_path: Path, text: str, status: str
) -> None:
    (tmp_path / "server.json").write_text(text, encoding="utf-8")
    check, found = check_server_file(tmp_path)
    assert (check.status, found) == (status, None)
    assert check.repair is not None
    check.repair.apply()
    assert not (tmp_path / "server.json").exists()


def test_missing_programs_are_warnings_with_fixes() -> None:
    checks = check_programs(nothing, {})
    assert [(c.name, c.status) for c in checks] == [
        ("git", "warn"),
        ("browser", "warn"),
    ]
    assert all(c.fix for c in checks)
    found = check_programs(lambda name: f"/usr/bin/{name}", {"BROWSER": "firefox"})
    assert [c.status for c in found] == ["ok", "ok"]


def test_git_is_run_and_a_git_that_fails_is_reported(tmp_path: Path) -> None:
    found = check_git(shutil.which("git"), dict(os.environ))
    assert found.status == "ok" and found.detail.startswith("git version ")
    broken = tmp_path / "git"
    broken.write_text("#!/bin/sh\necho 'cannot load libc' >&2\nexit 127\n", encoding="utf-8")
    broken.chmod(0o755)
    failed = check_git(str(broken), {"PATH": "/usr/bin:/bin"})
    assert (failed.status, failed.fix) == ("fail", "Reinstall git.")
    assert "cannot load libc" in failed.detail


def test_a_git_lock_left_in_a_workspaces_repository_is_reported(tmp_path: Path) -> None:
    workspace = tmp_path / "repo" / "notes"
    (tmp_path / "repo" / ".git" / "refs" / "heads").mkdir(parents=True)
    workspace.mkdir()
    assert check_git_locks([workspace]) == []
    lock = tmp_path / "repo" / ".git" / "index.lock"
    lock.write_bytes(b"")
    found = check_git_locks([workspace, tmp_path / "repo"], now=lambda: lock.stat().st_mtime + 90)
    assert [(check.name, check.status) for check in found] == [("history", "warn")]
    assert "90 s old" in found[0].detail and str(lock) in found[0].detail


def test_a_rebase_under_way_in_a_workspaces_repository_says_history_waits_for_it(
    tmp_path: Path,
) -> None:
    workspace = make_repo(tmp_path / "repo", {"a.md": "a\n", "b.md": "b\n"}) / "notes"
    workspace.mkdir()
    repo = workspace.parent
    assert check_git_operations([workspace]) == []
    (repo / "b.md").write_text("b2\n", encoding="utf-8")
    user_git(repo, "commit", "-qam", "b2")
    subprocess.run(
        ["git", "rebase", "-q", "-i", "HEAD~1"],
        cwd=repo,
        env={**git_env(), "GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/edit/"},
        check=True,
    )
    found = check_git_operations([workspace, repo])
    assert [(check.name, check.status) for check in found] == [("history", "warn")]
    assert f"A rebase is under way in {repo}" in found[0].detail
    assert found[0].fix is not None and "git rebase --continue" in found[0].fix


def test_each_export_engine_is_reported_and_a_missing_one_says_how_to_get_it() -> None:
    engines = [
        EngineStatus(
            name="chromium",
            available=True,
            formats=["pdf", "html"],
            path="/usr/bin/chromium",
            version="Chromium 120",
            detail="prints PDFs",
        ),
        EngineStatus(
            name="pandoc",
            available=False,
            formats=["docx"],
            path=None,
            version=None,
            detail="Install pandoc (`apt-get install pandoc`).",
        ),
    ]
    checks = check_engines(engines)
    assert [(c.name, c.status) for c in checks] == [
        ("export: chromium", "ok"),
        ("export: pandoc", "warn"),
    ]
    assert "/usr/bin/chromium Chromium 120" in checks[0].detail
    assert checks[1].fix == "Install pandoc (`apt-get install pandoc`)."
    assert "docx" in checks[1].detail


@pytest.mark.anyio
async def test_a_running_server_with_its_token_is_checked_and_a_wrong_token_fails(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.md").write_text("x\n", encoding="utf-8")
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=4747)
    async with (
        open_services(
            settings,
            token=TOKEN,
            clock=lambda: time.time_ns() // 1_000_000,
            machine=machine_under(tmp_path),
        ) as services,
        live_server(create_app(services)) as port,
    ):
        url = f"http://127.0.0.1:{port}"
        good = await check_server(Found(ServerInfo(url, TOKEN, os.getpid())), tmp_path / "s")
        bad = await check_server(Found(ServerInfo(url, "b" * 64, os.getpid())), tmp_path / "s")
        gone = await check_server(
            Found(ServerInfo("http://127.0.0.1:9", TOKEN, os.getpid())), tmp_path / "s"
        )
    assert [(c.name, c.status) for c in good] == [
        ("server", "ok"),
        ("server version", "ok"),
        ("database", "ok"),
        ("token", "ok"),
        ("workspaces", "ok"),
    ]
    assert good[1].detail == f"Quire {__version__}, as this command"
    assert str(workspace) in good[4].detail
    assert [(c.name, c.status) for c in bad] == [("server", "ok"), ("token", "fail")]
    assert "refused the token" in bad[1].detail
    assert [(c.name, c.status) for c in gone] == [("server", "fail")]


@pytest.mark.anyio
async def test_every_check_runs_in_order(tmp_path: Path) -> None:
    checks = await run_checks(state=tmp_path, which=nothing, environ={})
    assert [c.name for c in checks] == [
        "state folder",
        "conversation memory",
        "server file",
        "server",
        "git",
        "browser",
    ]


@pytest.mark.parametrize(
    ("running", "words"),
    [("0.0.1", "the running server is Quire 0.0.1"), (None, "the running server names no version")],
)
def test_a_server_of_another_version_is_a_warning_to_restart_it(
    running: str | None, words: str
) -> None:
    check = check_server_version(running)
    assert (check.name, check.status) == ("server version", "warn")
    assert check.detail == f"{words}; this command is Quire {__version__}."
    assert check.fix is not None and "start it again" in check.fix


def _report(**changes: object) -> Health:
    values: dict[str, object] = {
        "version": __version__,
        "replica": "web-1",
        "database": "ok",
        "fanout": "connected",
    }
    values.update(changes)
    return Health.model_validate(values)


def test_a_database_that_does_not_answer_fails_with_what_to_check() -> None:
    assert check_database(_report()).status == "ok"
    check = check_database(_report(ok=False, database="unreachable"))
    assert (check.name, check.status) == ("database", "fail")
    assert check.fix is not None and "--db" in check.fix


def test_replicas_say_whether_redis_answers_and_a_lone_server_says_nothing() -> None:
    assert check_replicas(_report(fanout="alone")) == []
    [connected] = check_replicas(_report())
    assert (connected.status, connected.detail) == ("ok", "replica web-1; Redis answers")
    [polling] = check_replicas(_report(fanout="polling"))
    assert polling.status == "warn"
    assert "every second" in polling.detail
    assert polling.fix is not None and "--redis" in polling.fix
