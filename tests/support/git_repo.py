"""A real git repository for history tests: made in a temporary folder, driven as a user would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

USER = ("-c", "user.name=Test User", "-c", "user.email=user@example.invalid")


def git_env() -> dict[str, str]:
    """This process's environment without GIT_* (a hook running the tests sets some)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}


def user_git(repo: Path, *args: str, data: bytes | None = None) -> str:
    """Run git in ``repo`` as the user would (their own name), failing loudly."""
    done = subprocess.run(
        ["git", *USER, *args],
        cwd=repo,
        input=data,
        capture_output=True,
        env=git_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def make_repo(folder: Path, files: dict[str, str] | None = None) -> Path:
    """``folder`` as a new repository with ``files`` committed by the user (if any)."""
    folder.mkdir(parents=True, exist_ok=True)
    user_git(folder, "init", "-q", "-b", "main")
    for name, text in (files or {}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if files:
        user_git(folder, "add", "--", *files)
        user_git(folder, "commit", "-q", "-m", "start")
    return folder


def log(repo: Path, *args: str) -> list[str]:
    """``git log`` lines as ``author|message`` (newest first)."""
    out = user_git(repo, "log", "--format=%an|%s", *args)
    return [line for line in out.splitlines() if line]
