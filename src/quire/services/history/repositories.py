"""Which workspaces keep history, and their repositories: found, or made with ``git init``.

Decided once when the server starts, from the settings (``history.enabled``) and whether each
workspace already is inside a git repository. Blocking: call it from a worker thread.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from quire.core.errors import QuireError
from quire.settings.model import Settings
from quire.vault.commits import Repository
from quire.vault.git import Git, git_program, init, toplevel

logger = logging.getLogger(__name__)


def open_repositories(
    settings: Settings, workspaces: Iterable[Path], environ: Mapping[str, str]
) -> dict[Path, Repository]:
    """The repository of each workspace that keeps history (workspaces sharing a repository
    share one ``Repository``). A workspace whose repository cannot be used is logged and left
    without history; no git on the machine leaves every workspace without it."""
    folders = list(workspaces)
    if settings.history is False or not folders:
        return {}
    program = git_program(environ)
    if program is None:
        if settings.history is not None:
            logger.error("History is on in the settings, but git is not installed.")
        return {}
    found: dict[Path, Repository] = {}
    by_root: dict[Path, Repository] = {}
    for folder in folders:
        git = Git(folder, environ, program)
        try:
            root = toplevel(git)
            if not settings.keeps_history(folder, in_repository=root is not None):
                continue
            if root is None:
                init(git)
                logger.info("Started a git repository in %s for its history.", folder)
                root = toplevel(git) or folder
            repository = by_root.get(root)
            if repository is None:
                repository = Repository(Git(root, environ, program))
                repository.clear_stale_locks()
                by_root[root] = repository
            found[folder] = repository
            _exclude_trash(repository, folder)
        except QuireError as exc:
            logger.error("History of %s is off: %s", folder, exc)
    return found


def _exclude_trash(repository: Repository, workspace: Path) -> None:
    """List the workspace's ``.quire/`` (its trash) in ``.git/info/exclude``, so deleted
    notes never show as untracked or get added by a ``git add -A`` (local to this clone)."""
    rel = workspace.relative_to(repository.root).as_posix()
    line = f"/{rel}/.quire/" if rel != "." else "/.quire/"
    exclude = repository.git_dir / "info" / "exclude"
    try:
        current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        if line in current.splitlines():
            return
        exclude.parent.mkdir(parents=True, exist_ok=True)
        joined = current if not current or current.endswith("\n") else current + "\n"
        exclude.write_text(f"{joined}{line}\n", encoding="utf-8")
    except OSError as exc:
        logger.warning("Cannot list the trash in %s: %s", exclude, exc)
