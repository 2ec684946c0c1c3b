"""Writing a commit of some paths only, leaving the user's index and working tree as they are.

The commit is built in a temporary index seeded from HEAD (``GIT_INDEX_FILE``): each changed
path's blob is written (``hash-object -w``), its entry set (``update-index --index-info``),
the tree written and committed on HEAD (``commit-tree -p HEAD``), and HEAD moved with its old
value (``update-ref``), so a commit or checkout the user made meanwhile is never overwritten:
the commit is built again on the new HEAD. Afterwards the real index takes the new entry of a
path only where it matched HEAD before (the user's own staged changes stay staged).
While the user has a merge, rebase, cherry-pick, revert, ``git am`` or bisect under way,
nothing is committed (``Held``): HEAD is then theirs, detached or mid-merge.
Blocking: call it from a worker thread.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from quire.core.history import CommitAuthor, GitOperation, operation_in_progress
from quire.vault.git import Git, GitFailed
from quire.vault.git_locks import StaleLock, clear_if_stale

logger = logging.getLogger(__name__)

ATTEMPTS: Final = 8
"""How many times a commit is built again when HEAD moved or a ref was locked meanwhile."""

FILE_MODE: Final = "100644"


@dataclass(frozen=True)
class Change:
    """One path of a commit, relative to the repository root (``/`` separated).

    ``data`` is the file's bytes as saved; None reads the file now (missing: removed). With
    ``folder``, ``rel`` is a folder: what HEAD has below it goes, what is on disk below it
    (dot-folders left out) comes in."""

    rel: str
    data: bytes | None = None
    folder: bool = False


@dataclass(frozen=True)
class CommitRequest:
    """What to commit, by whom, saying what, dated when (seconds since the epoch)."""

    changes: tuple[Change, ...]
    author: CommitAuthor
    message: str
    when_s: int


@dataclass(frozen=True)
class Held:
    """Nothing was committed: the user's ``operation`` is under way; commit once it ends."""

    operation: GitOperation


class Repository:
    """One git repository's working tree: where commits of Quire's saves go."""

    def __init__(self, git: Git, *, clock: Callable[[], float] = time.time) -> None:
        self.git = git
        self.root = git.cwd
        self._clock = clock
        self.git_dir = Path(git.text("rev-parse", "--absolute-git-dir").strip())
        self.stale_locks: list[StaleLock] = []
        """The stale locks removed so far (reported by ``quire doctor`` and the log)."""
        self._index = self.git_dir / f"quire-index-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        """This process's own index, kept between commits: seeded from HEAD only when HEAD is
        not the commit it last made (a 10,000-note tree is not read again for every save)."""
        self._index_head: str | None = None
        self._trees: dict[str, str] = {}
        _remove_dead_indexes(self.git_dir)

    def head(self) -> str | None:
        """The commit HEAD names, or None on a branch with no commit yet."""
        done = self.git.run("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        return done.stdout.decode().strip() or None if done.returncode == 0 else None

    def operation(self) -> GitOperation | None:
        """The merge, rebase, ... the user has under way here, or None."""
        return operation_in_progress(lambda name: (self.git_dir / name).exists())

    def commit(self, request: CommitRequest) -> str | Held | None:
        """Commit ``request`` on HEAD; the new commit's id, None when it changes nothing, or
        ``Held`` (nothing done) while the user has a git operation under way.

        Raises GitFailed when HEAD keeps moving (or a ref stays locked by a running git)
        through every attempt."""
        problem = ""
        for _attempt in range(ATTEMPTS):
            if (operation := self.operation()) is not None:
                return Held(operation)
            head = self.head()
            tree, touched = self._tree(head, request.changes)
            if head is not None and tree == self._tree_of(head):
                return None
            commit = self._commit_tree(tree, head, request)
            if (operation := self.operation()) is not None:
                return Held(operation)  # it began while the commit was built: leave HEAD be
            old = head or "0" * 40
            done = self.git.run(
                "update-ref", "-m", request.message, "HEAD", commit, old, check=False
            )
            if done.returncode == 0:
                self._index_head = commit
                self._trees = {commit: tree}
                self._sync_index(head, commit, touched)
                return commit
            problem = done.stderr.decode("utf-8", "replace").strip()
            self._clear_stale(self._ref_locks())
        raise GitFailed(
            f"Could not record '{request.message}' in {self.root}: HEAD kept changing or stayed "
            f"locked ({problem}). The file is saved; its history entry is retried on the next "
            "save.",
            stderr=problem,
        )

    def clear_stale_locks(self) -> list[StaleLock]:
        """Remove the stale ``index.lock`` and ref locks a crashed git left (see git_locks)."""
        return self._clear_stale([self.git_dir / "index.lock", *self._ref_locks()])

    # Building the tree

    def _tree(self, head: str | None, changes: Iterable[Change]) -> tuple[str, list[str]]:
        env = {"GIT_INDEX_FILE": str(self._index)}
        seeded, self._index_head = self._index_head, None
        try:
            if head is None or seeded != head or not self._index.exists():
                self.git.run("read-tree", *((head,) if head else ("--empty",)), env=env)
            lines: list[str] = []
            touched: list[str] = []
            for change in changes:
                if change.folder:
                    touched.extend(self._folder_lines(change.rel, env, lines))
                else:
                    lines.append(self._entry(change.rel, change.data))
                    touched.append(change.rel)
            if lines:
                self.git.run("update-index", "-z", "--index-info", data=_z(lines), env=env)
            tree = self.git.text("write-tree", env=env).strip()
        except BaseException:
            self._index.unlink(missing_ok=True)
            raise
        # The index holds HEAD plus these changes now: reusable only once they are committed.
        return tree, touched

    def _entry(self, rel: str, data: bytes | None) -> str:
        if data is None:
            try:
                data = (self.root / rel).read_bytes()
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                return _removal(rel)
        blob = self.git.text("hash-object", "-w", "--no-filters", "--stdin", data=data).strip()
        return f"{FILE_MODE} {blob}\t{rel}"

    def _folder_lines(self, rel: str, env: dict[str, str], lines: list[str]) -> list[str]:
        listed = self.git.run("ls-files", "-z", "--cached", "--", rel, env=env).stdout
        old = [name.decode("utf-8", "surrogateescape") for name in listed.split(b"\0") if name]
        lines.extend(_removal(name) for name in old)
        new = list(_walk_files(self.root, rel))
        if new:
            blobs = self.git.text(
                "hash-object", "-w", "--no-filters", "--stdin-paths",
                data="\n".join(str(self.root / name) for name in new).encode() + b"\n",
            ).split()  # fmt: skip
            lines.extend(
                f"{FILE_MODE} {blob}\t{name}" for blob, name in zip(blobs, new, strict=True)
            )
        return [*old, *new]

    def _tree_of(self, commit: str) -> str:
        known = self._trees.get(commit)
        if known is None:
            known = self.git.text("rev-parse", f"{commit}^{{tree}}").strip()
            self._trees = {commit: known}
        return known

    def _commit_tree(self, tree: str, head: str | None, request: CommitRequest) -> str:
        author = request.author
        when = f"@{request.when_s} +0000"
        env = {
            "GIT_AUTHOR_NAME": author.name,
            "GIT_AUTHOR_EMAIL": author.email,
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_NAME": author.name,
            "GIT_COMMITTER_EMAIL": author.email,
            "GIT_COMMITTER_DATE": f"@{int(self._clock())} +0000",
        }
        parents = ("-p", head) if head else ()
        message = request.message.encode("utf-8") + b"\n"
        return self.git.text("commit-tree", tree, *parents, data=message, env=env).strip()

    # The user's index

    def _sync_index(self, old: str | None, new: str, touched: list[str]) -> None:
        """Give the real index the new entries of ``touched`` where it held HEAD's before."""
        if not touched:
            return
        index = _entries(self.git.run("ls-files", "-s", "-z", "--", *touched).stdout, True)
        before = {} if old is None else self._tree_entries(old, touched)
        after = self._tree_entries(new, touched)
        lines = [
            after.get(rel) or _removal(rel)
            for rel in touched
            if index.get(rel) == before.get(rel) and index.get(rel) != after.get(rel)
        ]
        if not lines:
            return
        for _attempt in range(2):
            done = self.git.run("update-index", "-z", "--index-info", data=_z(lines), check=False)
            if done.returncode == 0:
                return
            if not self._clear_stale([self.git_dir / "index.lock"]):
                break
        logger.warning(
            "The index of %s is locked by a running git, so it still shows the previous "
            "version of %s as staged; `git status` or `git reset -- PATH` settles it.",
            self.root,
            ", ".join(touched[:3]),
        )

    def _tree_entries(self, commit: str, paths: list[str]) -> dict[str, str]:
        found = self.git.run("ls-tree", "-z", "--full-tree", commit, "--", *paths).stdout
        return _entries(found, False)

    def _ref_locks(self) -> list[Path]:
        done = self.git.run("symbolic-ref", "-q", "HEAD", check=False)
        ref = done.stdout.decode().strip() or "HEAD"
        return [self.git_dir / f"{ref}.lock", self.git_dir / "HEAD.lock"]

    def _clear_stale(self, locks: Iterable[Path]) -> list[StaleLock]:
        cleared = [found for lock in locks if (found := clear_if_stale(lock, now=self._clock()))]
        self.stale_locks.extend(cleared)
        return cleared


def _remove_dead_indexes(git_dir: Path) -> None:
    """Remove the indexes (and their locks) of Quire processes that are gone (a killed
    server's)."""
    for found in git_dir.glob("quire-index-*"):
        pid = found.name.removeprefix("quire-index-").split("-")[0]
        if not pid.isdigit() or not _alive(int(pid)):
            found.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _entries(raw: bytes, from_index: bool) -> dict[str, str]:
    """``mode sha\\tpath`` by path, from ``ls-files -s -z`` or ``ls-tree -z`` output."""
    found: dict[str, str] = {}
    for item in raw.split(b"\0"):
        if not item:
            continue
        meta, _, name = item.decode("utf-8", "surrogateescape").partition("\t")
        parts = meta.split()
        mode, sha = (parts[0], parts[1]) if from_index else (parts[0], parts[2])
        if from_index and parts[2] != "0":
            continue  # a conflicted path: the user is merging it
        found[name] = f"{mode} {sha}\t{name}"
    return found


def _removal(rel: str) -> str:
    return f"0 {'0' * 40}\t{rel}"


def _z(lines: list[str]) -> bytes:
    return "".join(line + "\0" for line in lines).encode("utf-8", "surrogateescape")


def _walk_files(root: Path, rel: str) -> Iterable[str]:
    top = root / rel
    if not top.is_dir():
        return
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield (Path(folder) / name).relative_to(root).as_posix()
