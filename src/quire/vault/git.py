"""Running Debian's ``git`` for a workspace's history: one process per call, nothing inherited.

Owns the command line (``-c`` options so the user's hooks, signing, editor, pager, fsmonitor
and automatic gc never run or block) and the environment (every ``GIT_*`` variable scrubbed,
prompts off). Blocking: callers run it in a worker thread. It decides nothing about commits.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from quire.core.errors import EngineMissing, StorageFailed

SAFE_OPTIONS: Final = (
    "--literal-pathspecs",
    "-c", "core.hooksPath=/dev/null",
    "-c", "commit.gpgSign=false",
    "-c", "tag.gpgSign=false",
    "-c", "core.editor=true",
    "-c", "core.pager=cat",
    "-c", "core.fsmonitor=false",
    "-c", "core.autocrlf=false",
    "-c", "core.safecrlf=false",
    "-c", "core.quotePath=false",
    "-c", "gc.auto=0",
    "-c", "maintenance.auto=false",
    "-c", "i18n.logOutputEncoding=UTF-8",
    "-c", "log.showSignature=false",
    "-c", "diff.external=",
    "-c", "color.ui=false",
)  # fmt: skip
"""Options before every command: the user's configuration may ask for hooks, GPG signing or
an editor; none of them may run (or wait for a passphrase) inside a save."""

TIMEOUT_S: Final = 60.0

NICENESS: Final = 10
"""How much lower than the server's the priority of git is."""
"""The longest one git command may take before it is stopped."""


class GitFailed(StorageFailed):
    """A git command exited with an error (its stderr is in the message)."""

    details = ("stderr",)

    def __init__(self, message: str, *, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


@dataclass(frozen=True)
class Git:
    """git in the folder ``cwd``, with ``environ`` (scrubbed of ``GIT_*``) as its
    environment."""

    cwd: Path
    environ: Mapping[str, str]
    program: str = "git"

    def run(
        self,
        *args: str,
        data: bytes | None = None,
        env: Mapping[str, str] | None = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``git ARGS`` and return it; raises GitFailed when it exits non-zero (unless
        ``check`` is false) and EngineMissing when there is no git."""
        command = [self.program, *SAFE_OPTIONS, *args]
        try:
            process = subprocess.Popen(
                command,
                cwd=self.cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=scrubbed(self.environ, env or {}),
            )
        except FileNotFoundError:
            raise EngineMissing(missing_git(self.program)) from None
        _lower_priority(process.pid)
        try:
            stdout, stderr = process.communicate(data or b"", timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise GitFailed(
                f"git {args[0]} in {self.cwd} took longer than {TIMEOUT_S:.0f} s and was "
                "stopped. Check the repository (`git fsck`) and try again."
            ) from None
        done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
        if check and done.returncode != 0:
            problem = stderr.decode("utf-8", "replace").strip()
            raise GitFailed(
                f"git {args[0]} failed in {self.cwd}: {problem or 'no message'}", stderr=problem
            )
        return done

    def text(self, *args: str, data: bytes | None = None, **kwargs: object) -> str:
        """``run`` and its output as text (UTF-8, surrounding whitespace kept)."""
        env = kwargs.get("env")
        assert env is None or isinstance(env, Mapping)
        return self.run(*args, data=data, env=env).stdout.decode("utf-8", "replace")


def _lower_priority(pid: int) -> None:
    """Let the server's requests go first: history's git runs at a lower CPU priority (the
    saves it records never wait for it)."""
    # Gone already, or not allowed: then it runs at the server's priority.
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, NICENESS)


def scrubbed(environ: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without a ``GIT_*`` variable (a hook's GIT_DIR or GIT_INDEX_FILE would
    point git elsewhere), prompts off, then ``extra``."""
    env = {key: value for key, value in environ.items() if not key.startswith("GIT_")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    env.update(extra)
    return env


def git_program(environ: Mapping[str, str]) -> str | None:
    """The path of ``git`` on ``environ``'s PATH, or None."""
    return shutil.which("git", path=environ.get("PATH", os.defpath))


def git_version(git: Git) -> str:
    """``git version 2.39.5`` as git says it."""
    return git.text("--version").strip()


def missing_git(program: str) -> str:
    """The message for a machine without git."""
    return (
        f"History needs git, and '{program}' was not found. Install it (apt-get install git) "
        "and restart the server, or turn history off with `history.enabled = false`."
    )


def toplevel(git: Git) -> Path | None:
    """The repository's working tree root holding ``git.cwd``, or None when it is in none
    (or in a bare repository or the .git folder itself)."""
    done = git.run("rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        return None
    found = done.stdout.decode("utf-8", "replace").strip()
    return Path(found) if found else None


def init(git: Git) -> None:
    """``git init`` in ``git.cwd`` (a new repository whose first branch is ``main``)."""
    git.run("init", "-q", "-b", "main", str(git.cwd))
