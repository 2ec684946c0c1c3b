"""``quire doctor``'s checks: what a user needs for Quire to work, each problem with its fix.

Checks the state folder, the server file, a reachable server that takes its token, the
workspaces, git, a browser and each export engine (as the export service found them, passed
in). Repairs are offered as data (a description and the action) so the command can preview
them before making them; the environment and the program lookup are passed in.
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal, assert_never

from quire import __version__
from quire.api.exports import EngineStatus
from quire.api.server import Health
from quire.client.api import QuireApi
from quire.core.errors import QuireError, TokenRefused
from quire.core.history import how_to_finish, operation_in_progress
from quire.core.state import sessions_folder
from quire.settings.server_file import Absent, Found, discover, server_file

Status = Literal["ok", "warn", "fail"]
Which = Callable[[str], str | None]


@dataclass(frozen=True)
class Repair:
    """A repair ``quire doctor --fix --apply`` can make: what it does, and doing it."""

    description: str
    apply: Callable[[], None] = field(compare=False, repr=False)


@dataclass(frozen=True)
class Check:
    """One finding: its name, status, what was seen, and the fix when something is wrong."""

    name: str
    status: Status
    detail: str
    fix: str | None = None
    repair: Repair | None = None

    def data(self) -> dict[str, object]:
        """The finding as JSON-ready data."""
        found: dict[str, object] = {"name": self.name, "status": self.status, "detail": self.detail}
        if self.fix:
            found["fix"] = self.fix
        if self.repair:
            found["repair"] = self.repair.description
        return found


def check_state_folder(state: Path) -> Check:
    """The state folder exists, is a folder, and only its owner can enter it."""
    name = "state folder"
    try:
        info = state.stat()
    except FileNotFoundError:
        return Check(
            name,
            "warn",
            f"{state} does not exist yet; `quire serve` creates it.",
            "Run `quire serve` once, or let doctor create it.",
            Repair(f"create {state} (mode 0700)", lambda: state.mkdir(mode=0o700, parents=True)),
        )
    except OSError as exc:
        return Check(
            name, "fail", f"{state} cannot be read: {exc.strerror}.", "Check its permissions."
        )
    if not stat.S_ISDIR(info.st_mode):
        return Check(
            name,
            "fail",
            f"{state} is not a folder.",
            "Move it away, or set QUIRE_HOME to a folder.",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        return Check(
            name,
            "warn",
            f"{state} is mode {mode:04o}: other users can look inside (it holds the token).",
            f"chmod 700 {state}",
            Repair(f"chmod 700 {state}", lambda: state.chmod(0o700)),
        )
    if not os.access(state, os.W_OK):
        return Check(name, "fail", f"{state} is not writable.", f"Make {state} writable by you.")
    return Check(name, "ok", f"{state} (mode {mode:04o})")


def check_sessions_folder(state: Path) -> Check:
    """The conversation memory folder, when there is one, is owner-only."""
    folder = sessions_folder(state)
    try:
        mode = stat.S_IMODE(folder.stat().st_mode)
    except OSError:
        return Check("conversation memory", "ok", f"{folder} is not created yet.")
    if mode & 0o077:
        return Check(
            "conversation memory",
            "warn",
            f"{folder} is mode {mode:04o}; conversations should be private.",
            f"chmod 700 {folder}",
            Repair(f"chmod 700 {folder}", lambda: folder.chmod(0o700)),
        )
    return Check("conversation memory", "ok", f"{folder} (mode {mode:04o})")


def check_server_file(state: Path) -> tuple[Check, Found | None]:
    """The server file names a live server, or there is none; a stale or broken one is removed."""
    path = server_file(state)
    remove = Repair(f"remove {path}", lambda: path.unlink(missing_ok=True))
    try:
        found = discover(state)
    except QuireError as exc:
        return Check("server file", "fail", str(exc), f"Remove {path}.", remove), None
    match found:
        case Found():
            return Check("server file", "ok", f"{path} names pid {found.info.pid}"), found
        case Absent(stale=True):
            return (
                Check(
                    "server file",
                    "warn",
                    f"{path} names a server that is no longer running.",
                    f"Remove {path} (the next `quire serve` replaces it anyway).",
                    remove,
                ),
                None,
            )
        case _:
            return Check("server file", "ok", "no server is running (no server.json)"), None


async def check_server(found: Found | None, path: Path) -> list[Check]:
    """A running server answers /health, takes the token, and names its workspaces."""
    if found is None:
        return [
            Check(
                "server",
                "warn",
                "No Quire server is running.",
                "Start one with `quire serve` in the folder of your documents (agents' tools "
                "start one when they need it).",
            )
        ]
    api = QuireApi(found.info, server_file=path)
    try:
        report = await api.health_report()
        if report is None:
            return [
                Check(
                    "server",
                    "fail",
                    f"pid {found.info.pid} does not answer at {found.info.url}.",
                    f"Stop that process (kill {found.info.pid}) and start `quire serve` again.",
                )
            ]
        answers = Check("server", "ok", f"answers at {found.info.url}")
        if not report.ok:
            return [answers, check_database(report), *check_replicas(report)]
        try:
            folders = await api.workspaces()
        except TokenRefused as exc:
            return [answers, Check("token", "fail", str(exc), "Restart `quire serve`.")]
        except QuireError as exc:
            return [Check("server", "fail", str(exc), "Check the server's log.")]
    finally:
        await api.aclose()
    listed = ", ".join(folders) if folders else "none listed"
    return [
        answers,
        check_server_version(report.version),
        check_database(report),
        *check_replicas(report),
        Check("token", "ok", "the server accepts the token in server.json"),
        Check("workspaces", "ok" if folders else "warn", listed),
        *check_git_locks([Path(folder) for folder in folders]),
        *check_git_operations([Path(folder) for folder in folders]),
    ]


def check_database(report: Health) -> Check:
    """Whether the server's database answers, as its /health says."""
    if report.database == "ok":
        return Check("database", "ok", "the server's database answers")
    return Check(
        "database",
        "fail",
        "the server's database does not answer: requests that need it fail until it does.",
        "Check that the database server runs and that the server's --db URL reaches it (see "
        "the server's log).",
    )


def check_replicas(report: Health) -> list[Check]:
    """How the server's replicas reach each other (nothing for a server without Redis)."""
    match report.fanout:
        case "alone":
            return []
        case "connected":
            return [Check("replicas", "ok", f"replica {report.replica}; Redis answers")]
        case "polling":
            return [
                Check(
                    "replicas",
                    "warn",
                    f"replica {report.replica} cannot reach Redis: the replicas look for each "
                    "other's changes every second instead of at once.",
                    "Check that Redis runs and that --redis reaches it; the replicas connect "
                    "again by themselves.",
                )
            ]
        case _ as never:
            assert_never(never)


def check_server_version(version: str | None) -> Check:
    """Whether the running server is the Quire this command is (an upgrade needs a restart)."""
    if version == __version__:
        return Check("server version", "ok", f"Quire {version}, as this command")
    running = "names no version" if version is None else f"is Quire {version}"
    return Check(
        "server version",
        "warn",
        f"the running server {running}; this command is Quire {__version__}.",
        "Stop `quire serve` (Ctrl+C) and start it again, so the server runs this version.",
    )


def _git_dirs(folders: Sequence[Path]) -> list[Path]:
    """The git folder of each workspace's repository (each once)."""
    found: list[Path] = []
    for folder in folders:
        git_dir = next(
            (up / ".git" for up in (folder, *folder.parents) if (up / ".git").is_dir()), None
        )
        if git_dir is not None and git_dir not in found:
            found.append(git_dir)
    return found


def _holds(git_dir: Path, name: str) -> bool:
    return (git_dir / name).exists()


def check_git_locks(folders: Sequence[Path], now: Callable[[], float] = time.time) -> list[Check]:
    """A git lock (``index.lock``, a branch's ``.lock``) left in a workspace's repository: a
    running git's, or a crashed one's that history removes once it is stale."""
    checks: list[Check] = []
    for git_dir in _git_dirs(folders):
        locks = [git_dir / "index.lock", *sorted((git_dir / "refs" / "heads").glob("**/*.lock"))]
        for lock in locks:
            try:
                age = now() - lock.stat().st_mtime
            except OSError:
                continue
            checks.append(
                Check(
                    "history",
                    "warn",
                    f"{lock} is there ({age:.0f} s old): a git is running, or one crashed.",
                    "If no git is running, remove it; history removes one that no process "
                    "holds and is older than 5 s when it next commits.",
                )
            )
    return checks


def check_git_operations(folders: Sequence[Path]) -> list[Check]:
    """A merge, rebase, cherry-pick, revert, ``git am`` or bisect under way in a workspace's
    repository: history holds its commits there until it ends."""
    checks: list[Check] = []
    for git_dir in _git_dirs(folders):
        operation = operation_in_progress(partial(_holds, git_dir))
        if operation is not None:
            checks.append(
                Check(
                    "history",
                    "warn",
                    f"A {operation} is under way in {git_dir.parent}: history holds the "
                    "commits of the saves there until it ends (the notes are saved, and "
                    "nothing is lost).",
                    f"To go on, {how_to_finish(operation)}; the held commits are then made.",
                )
            )
    return checks


def check_programs(which: Which, environ: Mapping[str, str]) -> list[Check]:
    """git and a browser to open the window in."""
    checks = [check_git(which("git"), environ)]
    browser = environ.get("BROWSER") or next(
        (found for name in ("xdg-open", "open", "firefox", "chromium") if (found := which(name))),
        None,
    )
    checks.append(
        Check("browser", "ok", browser)
        if browser
        else Check(
            "browser",
            "warn",
            "No browser was found: open the URL `quire serve` prints by hand.",
            "Install a browser, or set BROWSER.",
        )
    )
    return checks


def check_git(program: str | None, environ: Mapping[str, str]) -> Check:
    """git, which history runs: found, and answering ``git --version``."""
    if program is None:
        return Check(
            "git",
            "warn",
            "git is not installed: no history of documents.",
            "Install git (apt-get install git), then restart the server.",
        )
    env = {key: value for key, value in environ.items() if not key.startswith("GIT_")}
    try:
        done = subprocess.run(
            [program, "--version"], capture_output=True, env=env, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("git", "fail", f"{program} does not run ({exc}).", "Reinstall git.")
    version = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0 or not version.startswith("git version"):
        problem = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        return Check("git", "fail", f"{program} --version failed: {problem}", "Reinstall git.")
    return Check("git", "ok", f"{version} ({program})")


def check_engines(engines: Sequence[EngineStatus]) -> list[Check]:
    """One finding per export engine: what it makes, or how to install it when missing."""
    checks: list[Check] = []
    for engine in engines:
        formats = ", ".join(engine.formats)
        if engine.available:
            found = " ".join(part for part in (engine.path, engine.version) if part)
            checks.append(
                Check(f"export: {engine.name}", "ok", f"{formats}: {found or engine.detail}")
            )
        else:
            checks.append(
                Check(
                    f"export: {engine.name}",
                    "warn",
                    f"not installed (it makes {formats}; another engine may stand in).",
                    engine.detail,
                )
            )
    return checks


async def run_checks(
    *,
    state: Path,
    which: Which,
    environ: Mapping[str, str],
    engines: Sequence[EngineStatus] = (),
) -> list[Check]:
    """Every check, in the order a person reads them; ``engines`` are the export engines the
    export service found."""
    server_check, found = check_server_file(state)
    return [
        check_state_folder(state),
        check_sessions_folder(state),
        server_check,
        *await check_server(found, server_file(state)),
        *check_programs(which, environ),
        *check_engines(engines),
    ]
