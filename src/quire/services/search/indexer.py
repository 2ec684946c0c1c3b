"""Keeping the index in step with the workspaces: the full build, one changed path, a folder.

Blocking (walks, stats, reads and SQLite): the service calls it from worker threads. What is
in the index is what the one walker lists (``quire.fs.walk``, as the file tree): a watcher's
change is judged by ``walked_target``, the walker's rule for one path. Nothing outside the
workspaces is read; a file is indexed by the real file it is, so a link and its file are one.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from quire.fs.resolve import resolve_leniently
from quire.fs.sandbox import is_document_name
from quire.fs.walk import is_walked_folder, walk_tree, walked_target
from quire.search.index import Known, Prepared, SearchIndex, prepare
from quire.vault.watch import FileChange
from quire.vault.workspaces import Workspaces

Progress = Callable[[int, int], None]
"""Called with (files done, files in all) while a build runs."""

_BATCH = 200


@dataclass
class BuildState:
    """How far the running build is: ``total`` is None until the walk has listed the files."""

    building: bool = False
    done: int = 0
    total: int | None = None


class Indexer:
    """Writes the workspaces' notes into ``index``."""

    def __init__(self, index: SearchIndex, workspaces: Workspaces) -> None:
        self.index = index
        self.workspaces = workspaces
        self.state = BuildState()
        self._stop = threading.Event()

    def stop(self) -> None:
        """Ask a running build to stop after its current batch (the server is closing)."""
        self._stop.set()

    def build(self, progress: Progress | None = None, *, fresh: bool = False) -> int:
        """Index every listed note that changed since it was indexed (``fresh``: every note,
        from an empty index) and drop what is gone; the number of notes indexed at the end."""
        state = self.state
        state.building, state.done, state.total = True, 0, None
        try:
            if fresh:
                self.index.clear()
            listing = self.workspaces.all_files()
            wanted: dict[str, Path] = {}
            for item in listing.files:
                wanted.setdefault(str(resolve_leniently(item.path)), item.workspace)
            state.total = len(wanted)
            known = self.index.known()
            todo = [
                (Path(target), workspace)
                for target, workspace in wanted.items()
                if not _same_stat(known.get(target), target)
            ]
            state.done = len(wanted) - len(todo)
            self._report(progress)
            if not self._store_all(todo, progress):
                return state.done
            served = tuple(str(folder) for folder in self.workspaces.folders)
            stale = [
                name
                for name in known
                if name not in wanted and (not listing.truncated or not name.startswith(served))
            ]
            with self.index.writing() as db:
                for name in stale:
                    self.index.remove(db, Path(name))
            return state.done
        finally:
            state.building = False

    def _store_all(self, todo: list[tuple[Path, Path]], progress: Progress | None) -> bool:
        """Index ``todo``: one thread reads and prepares the files while this one writes the
        ones already read (SQLite lets go of the GIL), in transactions of ``_BATCH`` files.
        False when stopped before the end."""
        ready: queue.Queue[Prepared | None] = queue.Queue(maxsize=_BATCH)
        quit_reading = threading.Event()

        def read_ahead() -> None:
            try:
                for path, workspace in todo:
                    if self._stop.is_set() or quit_reading.is_set():
                        break
                    ready.put(prepare(path, workspace))
            finally:
                ready.put(None)

        reader = threading.Thread(target=read_ahead, name="search-index-reader", daemon=True)
        reader.start()
        finished = False
        try:
            while not finished:
                with self.index.writing() as db:
                    for _count in range(_BATCH):
                        note = ready.get()
                        if note is None:
                            finished = True
                            break
                        self.index.store(db, note)
                        self.state.done += 1
                self._report(progress)
                if self._stop.is_set():
                    return False
        finally:
            quit_reading.set()
            while reader.is_alive():
                with contextlib.suppress(queue.Empty):
                    ready.get(timeout=0.05)
        return True

    def apply(self, changes: Iterable[FileChange]) -> None:
        """Bring the index up to date with changed paths (files or folders) a watcher saw."""
        with self.index.writing() as db:
            for change in changes:
                if change.kind == "deleted" or not os.path.lexists(change.path):
                    if not self.index.remove(db, change.path):
                        self.index.remove_under(db, change.path)
                elif change.path.is_dir() and not change.path.is_symlink():
                    self._folder(db, change.path)
                else:
                    self._file(db, change.path)

    def refresh(self, path: Path) -> None:
        """Index ``path`` now (a save): it is searchable when this returns."""
        with self.index.writing() as db:
            self._file(db, path)

    def _file(self, db: sqlite3.Connection, path: Path) -> None:
        workspace = self._workspace(path)
        target = (
            None if workspace is None else walked_target(workspace, path, keep=is_document_name)
        )
        if workspace is None or target is None:
            self.index.remove(db, path)
            return
        if target != path:
            self.index.remove(db, path)
        self.index.index_file(db, target, workspace)

    def _folder(self, db: sqlite3.Connection, folder: Path) -> None:
        workspace = self._workspace(folder)
        if workspace is None or not is_walked_folder(workspace, folder):
            return
        nested = tuple(other for other in self.workspaces.folders if other != workspace)
        for found in walk_tree(folder, keep=is_document_name, exclude=nested).files:
            self._file(db, found.path)

    def _workspace(self, path: Path) -> Path | None:
        """The innermost served folder holding ``path`` as named (links not resolved)."""
        holding = [folder for folder in self.workspaces.folders if path.is_relative_to(folder)]
        return max(holding, key=lambda folder: len(folder.parts), default=None)

    def _report(self, progress: Progress | None) -> None:
        if progress is not None:
            progress(self.state.done, self.state.total or 0)


def _same_stat(known: Known | None, target: str) -> bool:
    if known is None:
        return False
    try:
        info = Path(target).stat()
    except OSError:
        return False
    return known.mtime_ns == info.st_mtime_ns and known.size == info.st_size
