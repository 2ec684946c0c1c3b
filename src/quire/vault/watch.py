"""Watching folders for changed files with watchfiles: one change per file, whatever the editor did.

Owns the watch loops and the folding of raw events into per-file changes judged by what is on
disk afterwards (Quire's temp files left out, and removed once stale). It never reads a
file's content and never decides what a change means.
"""

from __future__ import annotations

import contextlib
import logging
import math
import stat
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

import anyio
from anyio.abc import TaskGroup, TaskStatus
from watchfiles import Change, DefaultFilter
from watchfiles._rust_notify import RustNotify, WatchfilesRustInternalError

from quire.fs.temp_names import is_temp_name
from quire.vault.temp_files import remove_when_stale

logger = logging.getLogger(__name__)

ChangeKind = Literal["changed", "deleted"]

STEP_MS = 50
"""How long a folder must stay quiet before its changes are reported."""

BURST = 100
"""A batch past this many changes is a burst: it waits two quiet steps before it is reported."""

TICK_MS = 1
"""How often a watcher made with ``tick_ms=TICK_MS`` looks for new changes, so its quiet step
is measured from the last change to within about a tick. By default a watcher looks once a
step, as watchfiles' ``awatch`` does: its changes come one to two steps after the last one, for
far fewer wake-ups (a 1 ms tick costs a loop about 2% of a core while idle)."""

_IDLE_TIMEOUT_MS = 5000

_LOOK_LAG_TICKS = 1.75
"""How long before the worker thread stamps a batch its last change came, in ticks: one to two
ticks (a change lands somewhere in one tick, and a whole quiet tick follows), and each tick's
sleep runs a little long; measured 1.6 to 1.9 ms with 1 ms ticks."""

_TIMER_LATENESS_S = 0.0008
"""How late an asyncio timer fires at the median on Linux, measured: 0.4 to 1.3 ms (the epoll
selector rounds its timeout up to a whole millisecond, and waking up takes a little more). The
quiet step's timer starts that much early; each batch then corrects it by how late it ended
(a busy loop wakes later), within ``_TIMER_EARLY_MOST_S``."""
_TIMER_EARLY_MOST_S = 0.002
_TIMER_GAIN = 0.25
"""How much of one batch's lateness corrects the next timer (a smoothed average)."""

DEBOUNCE_MS = 1600
"""The longest changes are gathered before they are reported, however busy the folder is."""

_RETRY_FIRST_S = 0.5
_RETRY_MOST_S = 30.0
"""A watch that watchfiles ended is started again after these pauses (doubling)."""
_PAUSE_STEP_S = 0.1


@dataclass(frozen=True)
class FileChange:
    """A file that changed (it is on disk now, whatever happened to it) or was deleted.

    ``created``: a changed path that appeared in this batch (a new name: created, moved or
    renamed here, or an editor's save by rename); ``is_folder``: a changed path that is a
    folder (False for a deleted one: what it was cannot be told any more)."""

    path: Path
    kind: ChangeKind
    created: bool = False
    is_folder: bool = False


OnChanges = Callable[[list[FileChange]], Awaitable[None]]


def fold_changes(raw: Iterable[tuple[Change, str]], *, folders: bool = False) -> list[FileChange]:
    """One change per path, judged by what is on disk now, sorted by path.

    Quire's own temp files (``quire.fs.temp_names``) are never reported.
    An editor's atomic save (write a temp file, rename it over the document) reaches the
    watcher as a delete and a create, or a create alone: the path holds a file afterwards, so
    it is one change of that path. A path that is gone is deleted, unless it was also created
    in the same batch (a temp file that came and went). Folders are left out, unless
    ``folders``: then a folder that is there is reported changed (one moved in brings files
    the watcher may never name one by one).
    """
    seen: dict[str, set[Change]] = {}
    for change, name in raw:
        if not is_temp_name(Path(name).name):
            seen.setdefault(name, set()).add(change)
    folded: list[FileChange] = []
    for name in sorted(seen):
        path = Path(name)
        try:
            mode = path.stat().st_mode
        except OSError:
            if Change.added not in seen[name]:
                folded.append(FileChange(path, "deleted"))
            continue
        is_folder = stat.S_ISDIR(mode)
        if folders or not is_folder:
            created = Change.added in seen[name]
            folded.append(FileChange(path, "changed", created=created, is_folder=is_folder))
    return folded


class FolderWatcher:
    """Watches folders (each alone, or with everything below it) and reports changed files.

    Use as ``async with FolderWatcher(on_changes) as watcher: await watcher.watch(folder)``.
    With ``folders``, changed folders are reported too (see ``fold_changes``); ``tick_ms``
    (see ``TICK_MS``) is how often it looks for changes, once a step by default.
    ``on_changes`` is awaited with each batch, in order; an error in it is logged and the
    watching goes on. All folders of one kind share one watch loop (one thread), which is
    replaced when the set of folders changes: the new loop is ready before the old one stops,
    so no change falls between them (a change may be reported twice instead).
    """

    def __init__(
        self,
        on_changes: OnChanges,
        *,
        step_ms: int = STEP_MS,
        debounce_ms: int = DEBOUNCE_MS,
        tick_ms: int | None = None,
        folders: bool = False,
    ) -> None:
        self._on_changes = on_changes
        self._folders = folders
        self._step_ms = step_ms
        self._tick_ms = step_ms if tick_ms is None else tick_ms
        self._debounce_ms = debounce_ms
        self._counts: Counter[tuple[Path, bool]] = Counter()
        self._loops: dict[bool, _StopSignal] = {}
        self._lock = anyio.Lock()
        self._task_group: TaskGroup | None = None
        self._temps: set[Path] = set()

    async def __aenter__(self) -> Self:
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        task_group, self._task_group = self._task_group, None
        assert task_group is not None
        for signal in self._loops.values():
            signal.set()
        self._loops.clear()
        task_group.cancel_scope.cancel()
        return await task_group.__aexit__(exc_type, exc, traceback)

    def folders(self) -> list[tuple[Path, bool]]:
        """The watched folders with whether each is watched recursively."""
        return sorted(self._counts)

    async def watch(self, folder: Path, *, recursive: bool = False) -> None:
        """Start watching ``folder`` (counted: each watch needs its own unwatch).

        Returns once changes in it are being seen. A folder that does not exist is not
        watched (a warning is logged).
        """
        async with self._lock:
            key = (folder, recursive)
            self._counts[key] += 1
            if self._counts[key] == 1:
                await self._restart(recursive)

    async def unwatch(self, folder: Path, *, recursive: bool = False) -> None:
        """Undo one ``watch`` of ``folder``; the last one stops watching it."""
        async with self._lock:
            key = (folder, recursive)
            if self._counts[key] <= 0:
                return
            self._counts[key] -= 1
            if self._counts[key] == 0:
                del self._counts[key]
                await self._restart(recursive)

    async def _restart(self, recursive: bool) -> None:
        if self._task_group is None:
            raise RuntimeError("FolderWatcher must be entered (async with) before watching.")
        old = self._loops.pop(recursive, None)
        for _attempt in range(2):
            folders = sorted({f for f, r in self._counts if r == recursive and _is_folder(f)})
            if not folders:
                break
            signal: _StopSignal | None = await self._task_group.start(
                self._run_loop, folders, recursive
            )
            if signal is not None:
                self._loops[recursive] = signal
                break
        if old is not None:
            old.set()

    async def _run_loop(
        self, folders: list[Path], recursive: bool, *, task_status: TaskStatus[_StopSignal | None]
    ) -> None:
        ready = anyio.Event()
        signal = _StopSignal(ready.set)
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(self._pump, folders, recursive, signal, ready)
            await ready.wait()
            task_status.started(signal if signal.watching else None)

    async def _pump(
        self, folders: list[Path], recursive: bool, signal: _StopSignal, ready: anyio.Event
    ) -> None:
        delay = _RETRY_FIRST_S
        last = ""
        try:
            while not signal.is_set():
                problem = await self._watch(folders, recursive, signal)
                if problem is None:
                    return
                if problem != last:
                    logger.warning(
                        "Watching %s for changes stopped: %s. Rename the files whose names are "
                        "not UTF-8; until then changes there may be seen late (retrying).",
                        ", ".join(map(str, folders)),
                        problem,
                    )
                    last = problem
                await _pause(delay, signal)
                delay = min(delay * 2, _RETRY_MOST_S)
        finally:
            ready.set()

    async def _watch(self, folders: list[Path], recursive: bool, signal: _StopSignal) -> str | None:
        """Deliver changes until the watch stops; a problem that ended it (to retry) or None.

        watchfiles ends its loop on a name that is not UTF-8 (bytes from another system); that
        must not end the server, so the watch starts again after a pause.
        """
        problem: str | None = None
        try:
            with (
                RustNotify([str(f) for f in folders], False, False, 300, recursive, True) as notify,
                _Batches(
                    notify, signal, self._step_ms, self._tick_ms, self._debounce_ms
                ) as batches,
            ):
                signal.watch_began()
                async with anyio.create_task_group() as group:
                    group.start_soon(batches.pump)
                    while (raw := await batches.next()) is not None:
                        self._clean_temps(raw)
                        await self._deliver(fold_changes(raw, folders=self._folders))
        except* OSError as group:
            logger.warning(
                "Cannot watch %s for changes: %s", ", ".join(map(str, folders)), group.exceptions[0]
            )
        except* WatchfilesRustInternalError as group:
            problem = str(group.exceptions[0])
        return problem

    def _clean_temps(self, raw: Iterable[tuple[Change, str]]) -> None:
        """Remove each Quire temp file seen appear once it is stale (its writer died)."""
        if self._task_group is None:
            return
        for change, name in raw:
            path = Path(name)
            if change != Change.deleted and is_temp_name(path.name) and path not in self._temps:
                self._temps.add(path)
                self._task_group.start_soon(self._clean_temp, path)

    async def _clean_temp(self, path: Path) -> None:
        try:
            await remove_when_stale(path)
        finally:
            self._temps.discard(path)

    async def _deliver(self, changes: list[FileChange]) -> None:
        if not changes:
            return
        try:
            await self._on_changes(changes)
        except Exception:
            logger.exception("Handling changed files failed; watching goes on.")


_FILTER = DefaultFilter()
_Raw = set[tuple[Change, str]]


class _Batches:
    """The batches of one watchfiles ``RustNotify``: a batch is reported once no change came
    for ``step_ms``, or ``debounce_ms`` after its first change.

    watchfiles' ``awatch`` looks once a step, so its quiet step ends on that grid, up to a
    whole step after the folder went quiet. Here a worker thread (``pump``) has the loop look
    every ``tick_ms`` and hands on what it holds as soon as a tick passes with no new change,
    stamped with the time; the event loop (``next``) judges the quiet step with its own timer
    from that, so a batch goes out a step after its last change, with no hop to a thread
    in between.
    """

    def __init__(
        self, notify: RustNotify, signal: _StopSignal, step_ms: int, tick_ms: int, debounce_ms: int
    ) -> None:
        self._notify = notify
        self._signal = signal
        self._step_s = step_ms / 1000
        self._tick_ms = tick_ms
        self._debounce_ms = debounce_ms
        self._carry: tuple[_Raw, float] | None = None
        self._early_s = _TIMER_LATENESS_S
        self._send, self._receive = anyio.create_memory_object_stream[tuple[_Raw, float]](math.inf)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._send.close()
        self._receive.close()

    async def pump(self) -> None:
        """Hand on the loop's changes until the signal is set (then ``next`` ends too)."""
        with self._send:
            while True:
                raw, at = await anyio.to_thread.run_sync(self._look)
                if raw == "stop":
                    return
                if not isinstance(raw, str):
                    self._send.send_nowait((raw, at))

    async def next(self) -> _Raw | None:
        """The next batch, or None once the pump stopped with nothing pending.

        Changes handed on while the last batch was being delivered wait in the stream; they
        join this batch by their stamps, as if they had come while it was gathered."""
        pending: _Raw = set()
        first = due = 0.0
        while True:
            chunk = self._queued()
            if chunk is None:
                try:
                    wait = due - time.monotonic() - self._early_s if pending else math.inf
                    with anyio.move_on_after(wait):
                        chunk = await self._receive.receive()
                except anyio.EndOfStream:
                    return pending or None
                if chunk is None:
                    self._correct(time.monotonic() - due)
                    return pending
            raw, at = chunk
            # The loop hands changes on a tick after its last one, so that change came one
            # to two ticks before: the quiet counts from when it came, on average.
            last = at - _LOOK_LAG_TICKS * self._tick_ms / 1000
            if pending and last >= due:
                self._carry = chunk  # came after the quiet step ended: the next batch's
                return pending
            if not pending:
                first = at
            pending |= raw
            # A burst (a checkout, an untar) pauses longer on a busy machine: past BURST
            # changes the quiet step doubles, as long as watchfiles' grid made it at most.
            step = self._step_s * (2 if len(pending) > BURST else 1)
            due = min(last + step, first + self._debounce_ms / 1000)

    def _correct(self, late: float) -> None:
        """Start the next quiet step's timer earlier by part of how late this one ended
        (later by part of how early), so batches end a step after their last change."""
        early = self._early_s + _TIMER_GAIN * late
        self._early_s = min(max(early, 0.0), _TIMER_EARLY_MOST_S)

    def _queued(self) -> tuple[_Raw, float] | None:
        chunk, self._carry = self._carry, None
        if chunk is None:
            with contextlib.suppress(anyio.WouldBlock, anyio.EndOfStream):
                chunk = self._receive.receive_nowait()
        return chunk

    def _look(self) -> tuple[_Raw | str, float]:
        """In the worker thread: the loop's next changes (or why it returned), and when."""
        raw = self._notify.watch(self._debounce_ms, self._tick_ms, _IDLE_TIMEOUT_MS, self._signal)
        at = time.monotonic()
        if isinstance(raw, str):
            if raw == "signal":
                raise RuntimeError("The watch thread unexpectedly received a signal.")
            return raw, at
        changes = {(Change(change), path) for change, path in raw}
        return {(change, path) for change, path in changes if _FILTER(change, path)}, at


class _StopSignal:
    """The stop event a watch loop polls from its thread, and whether the loop is watching:
    its ``RustNotify`` holds the folders' watches from when it is made, and gathers changes
    from then on, before the loop first looks (``watch_began``)."""

    def __init__(self, on_watching: Callable[[], object]) -> None:
        self._on_watching: Callable[[], object] | None = on_watching
        self._set = False
        self.watching = False

    def watch_began(self) -> None:
        """The loop's watches are in place (the first time: ``watch`` returns)."""
        self.watching = True
        if self._on_watching is not None:
            notify, self._on_watching = self._on_watching, None
            notify()

    def is_set(self) -> bool:
        """Whether ``set`` was called (watchfiles asks from the loop's thread)."""
        return self._set

    def set(self) -> None:
        self._set = True


async def _pause(seconds: float, signal: _StopSignal) -> None:
    """Sleep ``seconds``, returning early once ``signal`` is set."""
    waited = 0.0
    while waited < seconds and not signal.is_set():
        await anyio.sleep(_PAUSE_STEP_S)
        waited += _PAUSE_STEP_S


def _is_folder(path: Path) -> bool:
    # Path.is_dir raises for a path the OS cannot even look up (ENAMETOOLONG, EACCES); such
    # a folder is not watched, like a missing one, and must not stop the others' watches.
    try:
        return path.is_dir()
    except OSError:
        return False
