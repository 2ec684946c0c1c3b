"""Recording saves as commits: bursts per (author, note), a serialised queue per repository.

A save opens (or grows) the burst of its author on its note; the burst is committed once its
window has passed since its first save, or at once when another author saves the note, or it
is renamed, moved or deleted (so commits keep the order of the saves and each has one author).
Nothing here blocks a save: the save only notes the burst (and one journal line); each
repository's worker makes the commits in a thread. Pending commits are made on close, and a
crashed run's on the next start (``journal``). While the user has a merge, rebase, ... under
way in a repository, its commits are held (still owed in the journal) and made once it ends.
Time comes from ``monotonic`` (the event loop's clock unless a test passes its own).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Final, Self

import anyio
from anyio.abc import TaskGroup

from quire.core.history import (
    CommitAuthor,
    GitOperation,
    edit_message,
    how_to_finish,
    rename_message,
)
from quire.db.advisory_locks import AdvisoryLocks
from quire.services.history.authors import author_of
from quire.services.history.journal import Journal, Owed
from quire.vault.commits import Change, CommitRequest, Held, Repository

logger = logging.getLogger(__name__)

CLOSE_TIMEOUT_S: Final = 60.0
"""The longest closing waits for the pending commits."""

RETRIES: Final = 3

HOLD_RECHECK_S: Final = 1.0
"""How often a repository whose commits are held looks again whether the user's merge,
rebase, ... has ended (git says nothing when it does)."""


@dataclass(eq=False)
class _Job:
    job_id: str
    seq: int
    author: CommitAuthor
    message: str
    changes: list[Change]
    due: float
    when_s: int
    burst: str | None = None
    """The note (relative path) whose open burst this is, while it may still grow."""
    tries: int = 0
    answered: anyio.Event = field(default_factory=anyio.Event)
    """Set once the job is done, or held by a git operation of the user's."""
    commit: str | None = None


@dataclass(eq=False)
class _Queue:
    repository: Repository
    jobs: list[_Job] = field(default_factory=list)
    bursts: dict[str, _Job] = field(default_factory=dict)
    wake: anyio.Event = field(default_factory=anyio.Event)
    busy: bool = False
    held: GitOperation | None = None
    """The user's git operation under way, while it holds this repository's commits."""


class HistoryRecorder:
    """The commits of one server's workspaces (those with history on).

    ``repositories`` maps each workspace with history to its repository (workspaces in one
    repository share it, and its queue). Use as ``async with``.
    """

    def __init__(
        self,
        repositories: Mapping[Path, Repository],
        journal: Journal,
        *,
        window_s: float,
        clock: Callable[[], int],
        monotonic: Callable[[], float] = anyio.current_time,
        hold_recheck_s: float = HOLD_RECHECK_S,
        shared_locks: AdvisoryLocks | None = None,
    ) -> None:
        self._shared_locks = shared_locks
        self._queues: dict[Path, _Queue] = {}
        by_root: dict[Path, _Queue] = {}
        for workspace, repository in repositories.items():
            queue = by_root.setdefault(repository.root, _Queue(repository))
            self._queues[workspace] = queue
        self._by_root = by_root
        self._journal = journal
        self._window = window_s
        self._clock = clock
        self._monotonic = monotonic
        self._recheck_s = hold_recheck_s
        self._seq = 0
        self._group: TaskGroup | None = None
        self._settled = anyio.Event()
        self._labels: dict[tuple[Path, str], str] = {}
        self._labelled: dict[tuple[Path, str], _Job] = {}

    async def __aenter__(self) -> Self:
        owed = await anyio.to_thread.run_sync(self._journal.open)
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        for queue in self._by_root.values():
            self._group.start_soon(self._work, queue)
        self._replay(owed)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            with anyio.move_on_after(CLOSE_TIMEOUT_S, shield=True):
                await self.flush()
            for queue in self._by_root.values():
                if queue.held is not None and queue.jobs:
                    logger.warning(
                        "%d commits of %s stay owed while the %s there is under way: the next "
                        "start makes them once it has ended.",
                        len(queue.jobs),
                        queue.repository.root,
                        queue.held,
                    )
        finally:
            if self._group is not None:
                self._group.cancel_scope.cancel()
                await self._group.__aexit__(None, None, None)
            self._journal.close()

    @property
    def workspaces(self) -> tuple[Path, ...]:
        """The workspaces whose history is kept."""
        return tuple(self._queues)

    def repository_of(self, path: Path) -> tuple[Repository, str] | None:
        """The repository keeping ``path``'s history and the path relative to its root."""
        found = self._queue_of(path)
        if found is None:
            return None
        queue, rel = found
        return queue.repository, rel

    # What the save paths call (each returns at once)

    def saved(self, path: Path, author: str, data: bytes | None, message: str = "") -> None:
        """``author`` saved ``path`` (its bytes as written, None: read them when committing)."""
        found = self._queue_of(path)
        if found is None:
            return
        queue, rel = found
        who = author_of(author)
        label = self._labels.pop((queue.repository.root, rel), None)
        if label is not None:
            self._seal(queue, [rel])
            labelled = self._add(queue, who, label, [Change(rel, data)], self._monotonic())
            self._labelled[(queue.repository.root, rel)] = labelled
            return
        job = queue.bursts.get(rel)
        now = self._monotonic()
        if (
            job is not None
            and job.due > now  # its window has not run out
            and job.author == who
            and job.message == (message or job.message)
        ):
            job.changes = [Change(rel, data)]
            return
        self._seal(queue, [rel])
        job = self._add(
            queue, who, message or edit_message(who), [Change(rel, data)], now + self._window
        )
        job.burst = rel
        queue.bursts[rel] = job

    async def labelled(
        self, path: Path, message: str, save: Callable[[], Awaitable[object]]
    ) -> str | None:
        """Await ``save`` and commit the save it makes of ``path`` on its own, as
        ``message`` (a restore says what it restored); the commit's id once it is made (None
        when nothing changed, ``path`` keeps no history, or the user's merge, rebase, ...
        holds the commit until it ends)."""
        found = self._queue_of(path)
        if found is None:
            await save()
            return None
        key = (found[0].repository.root, found[1])
        self._labels[key] = message
        try:
            await save()
        finally:
            self._labels.pop(key, None)
        job = self._labelled.pop(key, None)
        if job is None:
            return None
        await job.answered.wait()
        return job.commit

    def created(self, path: Path, author: str, *, is_folder: bool = False) -> None:
        """``author`` made the file or folder ``path`` (a new note, a copy, an upload)."""
        found = self._queue_of(path)
        if found is not None:
            queue, rel = found
            who = author_of(author)
            self._now(queue, who, f"Create {rel}", [Change(rel, folder=is_folder)])

    def deleted(self, path: Path, author: str, *, is_folder: bool) -> None:
        """``author`` deleted ``path`` (to the trash)."""
        found = self._queue_of(path)
        if found is not None:
            queue, rel = found
            who = author_of(author)
            self._now(queue, who, f"Delete {rel}", [Change(rel, folder=is_folder)])

    def moved(self, source: Path, target: Path, author: str, *, is_folder: bool) -> None:
        """``author`` renamed or moved ``source`` to ``target`` (one commit when both are in
        one repository, else a delete in one and a creation in the other)."""
        old, new = self._queue_of(source), self._queue_of(target)
        who = author_of(author)
        if old is not None and new is not None and old[0] is new[0]:
            changes = [Change(old[1], folder=is_folder), Change(new[1], folder=is_folder)]
            self._now(old[0], who, rename_message(old[1], new[1]), changes)
            return
        if old is not None:
            self._now(old[0], who, f"Delete {old[1]}", [Change(old[1], folder=is_folder)])
        if new is not None:
            self._now(new[0], who, f"Create {new[1]}", [Change(new[1], folder=is_folder)])

    async def flush(self) -> None:
        """Make every pending commit now and wait until they are made."""
        for queue in self._by_root.values():
            for job in queue.jobs:
                job.due = min(job.due, self._monotonic())
                job.burst = None
            queue.bursts.clear()
            if queue.held is not None:
                await self._look_again(queue)
            queue.wake.set()
        await self.settled()

    async def settled(self, *, held: bool = False) -> None:
        """Wait until no commit is pending (those not due yet included), but those a git
        operation of the user's holds (with ``held``, until they too are made)."""

        def pending(queue: _Queue) -> bool:
            return queue.busy or (bool(queue.jobs) and (held or queue.held is None))

        while any(pending(queue) for queue in self._by_root.values()):
            if self._settled.is_set():
                self._settled = anyio.Event()  # shared by every waiter until the next commit
            await self._settled.wait()

    # Inside

    def _queue_of(self, path: Path) -> tuple[_Queue, str] | None:
        holding = [folder for folder in self._queues if path.is_relative_to(folder)]
        if not holding:
            return None
        workspace = max(holding, key=lambda folder: len(folder.parts))
        if any(part.startswith(".") for part in path.relative_to(workspace).parts):
            return None  # the trash, the state inside .quire, a dotfile: not history
        queue = self._queues[workspace]
        return queue, path.relative_to(queue.repository.root).as_posix()

    def _now(
        self, queue: _Queue, author: CommitAuthor, message: str, changes: list[Change]
    ) -> None:
        self._seal(queue, [change.rel for change in changes])
        self._add(queue, author, message, changes, self._monotonic())

    def _seal(self, queue: _Queue, rels: Iterable[str]) -> None:
        now = self._monotonic()
        for rel in rels:
            for name in [
                name for name in queue.bursts if name == rel or name.startswith(rel + "/")
            ]:
                job = queue.bursts.pop(name)
                job.burst = None
                job.due = min(job.due, now)
        queue.wake.set()

    def _add(
        self, queue: _Queue, author: CommitAuthor, message: str, changes: list[Change], due: float
    ) -> _Job:
        self._seq += 1
        job = _Job(
            uuid.uuid4().hex, self._seq, author, message, changes, due, self._clock() // 1000
        )
        self._journal.owe(_owed(queue, job))
        queue.jobs.append(job)
        queue.wake.set()
        return job

    def _replay(self, owed: list[Owed]) -> None:
        for item in owed:
            queue = self._by_root.get(Path(item.root))
            if queue is None:
                logger.warning(
                    "The history journal owes a commit to %s, no longer served.", item.root
                )
                self._journal.paid(item.job_id)
                continue
            changes = [Change(rel, folder=folder) for rel, folder in item.paths]
            self._seq += 1
            job = _Job(item.job_id, self._seq, item.author, item.message, changes, 0.0, item.when_s)
            queue.jobs.append(job)
            queue.wake.set()
            logger.info("Committing '%s' owed since the last run.", item.message)

    async def _work(self, queue: _Queue) -> None:
        while True:
            queue.wake = anyio.Event()
            if queue.held is not None:
                with anyio.move_on_after(self._recheck_s):
                    await queue.wake.wait()
                if queue.held is not None:
                    await self._look_again(queue)
                continue
            job = min(queue.jobs, key=lambda item: (item.due, item.seq), default=None)
            if job is None or job.due > self._monotonic():
                wait = None if job is None else job.due - self._monotonic()
                with anyio.move_on_after(wait):
                    await queue.wake.wait()
                continue
            queue.jobs.remove(job)
            if queue.bursts.get(job.burst or "") is job:
                del queue.bursts[job.burst or ""]
            queue.busy = True
            try:
                await self._commit(queue, job)
            finally:
                queue.busy = False
                self._settled.set()

    async def _committed(self, repository: Repository, request: CommitRequest) -> str | Held | None:
        """``repository.commit(request)``, in turn with the other replicas' commits to it."""
        locks = self._shared_locks
        async with nullcontext() if locks is None else locks.held(f"history:{repository.root}"):
            return await anyio.to_thread.run_sync(repository.commit, request)

    async def _commit(self, queue: _Queue, job: _Job) -> None:
        request = CommitRequest(tuple(job.changes), job.author, job.message, job.when_s)
        try:
            await anyio.to_thread.run_sync(self._journal.sync)
            made = await self._committed(queue.repository, request)
        except Exception as exc:
            job.tries += 1
            if job.tries < RETRIES:
                logger.warning("Recording '%s' failed (%s); trying again.", job.message, exc)
                job.due = self._monotonic() + 0.2 * job.tries
                queue.jobs.append(job)
                return
            logger.error("Recording '%s' in history failed for good: %s", job.message, exc)
        else:
            match made:
                case Held(operation=operation):
                    self._hold(queue, job, operation)
                    return
                case str() | None:
                    job.commit = made
        job.answered.set()
        self._journal.paid(job.job_id)
        others = self._by_root.values()
        if not any(other.jobs or (other.busy and other is not queue) for other in others):
            self._journal.clear()

    def _hold(self, queue: _Queue, job: _Job, operation: GitOperation) -> None:
        """Keep ``job`` (still owed in the journal) until the user's ``operation`` ends."""
        queue.jobs.append(job)
        job.answered.set()
        if queue.held is None:
            logger.warning(
                "A %s is under way in %s, so history holds the commits of the saves there "
                "(%d so far) and makes them once it has ended; the files are saved and no "
                "commit is lost. To go on, %s.",
                operation,
                queue.repository.root,
                len(queue.jobs),
                how_to_finish(operation),
            )
        queue.held = operation

    async def _look_again(self, queue: _Queue) -> None:
        """Whether the operation holding ``queue``'s commits has ended (then they are made)."""
        operation = await anyio.to_thread.run_sync(queue.repository.operation)
        if operation is None:
            logger.info(
                "The %s in %s has ended: making the %d commits held meanwhile.",
                queue.held,
                queue.repository.root,
                len(queue.jobs),
            )
        queue.held = operation


def _owed(queue: _Queue, job: _Job) -> Owed:
    return Owed(
        job_id=job.job_id,
        root=str(queue.repository.root),
        paths=tuple((change.rel, change.folder) for change in job.changes),
        author=job.author,
        message=job.message,
        when_s=job.when_s,
    )
