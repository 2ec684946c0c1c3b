"""The live file tree: the watcher's changes in the workspaces, made ``tree`` events for
every user's windows.

Turns each batch of the workspace watcher (``quire.vault.watch``, reported a quiet step of
~50 ms after its last change, at most 1.6 s into a busy folder) into one ``TreeEvent`` per
workspace: names that appeared (``created``) and names that went (``deleted``); a rename by
another program is the two. Hidden names (a dot in any part, so ``.quire/`` and ``.git/`` too)
are left out, and so are the paths Quire itself just changed (``RecentPaths``: the file
service published those already). Once more than ``RESCAN_AT`` paths changed in a workspace
within ``RESCAN_QUIET_S`` (a checkout, in one batch or in many), its batch becomes one
``rescan`` event, and so does every batch after it until the workspace has been quiet for
``RESCAN_QUIET_S``; a rescan within ``RESCAN_QUIET_S`` of the last is held back and sent
then, so a long burst is never a storm. A file whose content changed under the same name is
no tree change.

Every change names the path(s) it concerns, so each account's subscription can keep only what
it may see (``quire.services.event_access``: a move seen from one side only becomes a
deletion or a creation).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

import anyio
from anyio.abc import TaskGroup

from quire.api.events import TreeEvent
from quire.api.files import TreeChange, TreeData
from quire.services.events import EventBus
from quire.vault.watch import FileChange
from quire.vault.workspaces import Workspaces

RESCAN_AT = 500
"""More changed paths than this in one workspace within ``RESCAN_QUIET_S``: a ``rescan`` event
instead of the batch that went past it (and of the ones after it, while that lasts)."""

RESCAN_QUIET_S = 2.0
"""A rescan is sent at most this often per workspace; one held back goes after this long."""

OWN_CHANGE_S = 3.0
"""How long a path Quire changed itself is left out of the watcher's events."""

Clock = Callable[[], float]
"""Seconds on a clock that only moves forward (``time.monotonic``)."""


class RecentPaths:
    """The paths Quire changed itself lately (each with everything beneath it), and the
    documents it saved (a save by rename looks like a new name to the watcher)."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._paths: dict[Path, float] = {}
        self._saved: dict[Path, float] = {}

    def note(self, *paths: Path) -> None:
        """Remember ``paths`` as created, moved or deleted by Quire now."""
        self._paths.update(dict.fromkeys(paths, self._prune()))

    def note_saved(self, path: Path) -> None:
        """Remember that Quire saved the document ``path`` now."""
        self._saved[path] = self._prune()

    def covers(self, change: FileChange) -> bool:
        """Whether the watcher's ``change`` is one Quire made itself lately."""
        self._prune()
        if change.kind == "changed" and change.path in self._saved:
            return True
        return any(change.path == own or change.path.is_relative_to(own) for own in self._paths)

    def _prune(self) -> float:
        now = self._clock()
        for held in (self._paths, self._saved):
            for path in [p for p, at in held.items() if now - at >= OWN_CHANGE_S]:
                del held[path]
        return now


class TreeFeed:
    """Publishes the watcher's changes as tree events to every user (see the module). Use as
    ``async with TreeFeed(...) as feed`` (a held-back rescan is sent from its task group)."""

    def __init__(
        self,
        workspaces: Workspaces,
        bus: EventBus,
        own: RecentPaths,
        *,
        clock: Clock = time.monotonic,
    ) -> None:
        self._workspaces = workspaces
        self._bus = bus
        self._own = own
        self._clock = clock
        self._last_rescan: dict[Path, float] = {}
        self._counts: dict[Path, deque[tuple[float, int]]] = {}
        self._held: set[Path] = set()
        self._burst: dict[Path, float] = {}
        """Each workspace in a burst, with when its last batch came."""
        self._group: TaskGroup | None = None

    async def __aenter__(self) -> Self:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        group, self._group = self._group, None
        if group is not None:
            group.cancel_scope.cancel()
            await group.__aexit__(None, None, None)

    async def watched(self, changes: list[FileChange]) -> None:
        """Publish one batch of the watcher's changes (the search service's listener)."""
        for workspace, found in self.changes_by_workspace(changes).items():
            if self._in_burst(workspace, len(found)):
                self._rescan(workspace)
            elif found and workspace not in self._held:
                data = TreeData(workspace=str(workspace), changes=tuple(found), rescan=False)
                self._bus.publish_all(TreeEvent(data=data))

    def _in_burst(self, workspace: Path, changed: int) -> bool:
        """Whether a batch of ``changed`` paths in ``workspace`` is part of a burst: it takes
        the paths changed within ``RESCAN_QUIET_S`` past ``RESCAN_AT``, or comes within
        ``RESCAN_QUIET_S`` of a batch that was (a burst lasts until the workspace is quiet, so
        a checkout slowed down by a busy machine does not go back to long lists midway)."""
        now = self._clock()
        last = self._burst.get(workspace)
        if self._count(workspace, changed) > RESCAN_AT or (
            last is not None and now - last < RESCAN_QUIET_S
        ):
            self._burst[workspace] = now
            return True
        self._burst.pop(workspace, None)
        return False

    def _count(self, workspace: Path, changed: int) -> int:
        """The paths changed in ``workspace`` over the last ``RESCAN_QUIET_S``, these too: a
        checkout on a busy machine pauses often and comes as many smaller batches."""
        now = self._clock()
        counts = self._counts.setdefault(workspace, deque())
        while counts and now - counts[0][0] >= RESCAN_QUIET_S:
            counts.popleft()
        counts.append((now, changed))
        return sum(count for _, count in counts)

    def changes_by_workspace(self, changes: Sequence[FileChange]) -> dict[Path, list[TreeChange]]:
        """The tree changes in ``changes``, by workspace (hidden and Quire's own left out)."""
        found: dict[Path, list[TreeChange]] = {}
        for change in changes:
            workspace = self._workspaces.workspace_of(change.path)
            if workspace is None or change.path == workspace:
                continue
            if _hidden(change.path.relative_to(workspace)) or self._own.covers(change):
                continue
            if change.kind == "deleted":
                action, is_folder = "deleted", False
            elif change.created:
                action, is_folder = "created", change.is_folder
            else:
                continue
            found.setdefault(workspace, []).append(
                TreeChange.model_validate(
                    {"action": action, "path": str(change.path), "is_folder": is_folder}
                )
            )
        return found

    def _rescan(self, workspace: Path) -> None:
        if workspace in self._held:
            return
        now = self._clock()
        wait = self._last_rescan.get(workspace, now - RESCAN_QUIET_S) + RESCAN_QUIET_S - now
        if wait > 0 and self._group is not None:
            # Hold it back and send it later from the feed's tasks: the watcher's loop (which
            # also feeds the search index) goes on at once.
            self._held.add(workspace)
            self._group.start_soon(self._send_later, workspace, wait)
            return
        self._send_rescan(workspace)

    async def _send_later(self, workspace: Path, wait: float) -> None:
        await anyio.sleep(wait)
        self._held.discard(workspace)
        self._send_rescan(workspace)

    def _send_rescan(self, workspace: Path) -> None:
        self._last_rescan[workspace] = self._clock()
        data = TreeData(workspace=str(workspace), changes=(), rescan=True)
        self._bus.publish_all(TreeEvent(data=data))


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)
