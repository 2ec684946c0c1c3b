"""The tree feed: the watcher's batches made tree events for every user; hidden names and
Quire's own changes left out; a checkout-sized batch one rescan, and rescans spaced out."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from quire.api.events import Event, TreeEvent
from quire.services.events import EventBus
from quire.services.files.tree import RESCAN_AT, RESCAN_QUIET_S, RecentPaths, TreeFeed
from quire.vault.watch import FileChange
from quire.vault.workspaces import Workspaces

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def created(path: Path, *, folder: bool = False) -> FileChange:
    return FileChange(path, "changed", created=True, is_folder=folder)


async def drain(events: object) -> list[TreeEvent]:
    found: list[TreeEvent] = []
    with anyio.move_on_after(0.05):
        async for event in events:  # type: ignore[attr-defined]
            assert isinstance(event, TreeEvent)
            found.append(event)
    return found


async def test_every_user_gets_the_changes_of_each_workspace(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    bus = EventBus()
    feed = TreeFeed(Workspaces([one, two]), bus, RecentPaths())
    async with bus.subscribe("ann") as ann, bus.subscribe("bob") as bob, feed:
        await feed.watched(
            [
                created(one / "a.md"),
                created(two / "Sub", folder=True),
                FileChange(two / "gone.md", "deleted"),
                FileChange(one / "edited.md", "changed"),
                created(one / ".git" / "index"),
                created(one / ".quire" / "trash" / "x" / "a.md"),
                created(tmp_path / "elsewhere.md"),
                created(one),
            ]
        )
        seen = {name: await drain(events) for name, events in (("ann", ann), ("bob", bob))}
    assert seen["ann"] == seen["bob"]
    assert [(e.data.workspace, [(c.action, c.path, c.is_folder) for c in e.data.changes])
            for e in seen["ann"]] == [
        (str(one), [("created", str(one / "a.md"), False)]),
        (str(two), [("created", str(two / "Sub"), True), ("deleted", str(two / "gone.md"), False)]),
    ]  # fmt: skip


async def test_quires_own_changes_are_left_out_for_a_while(tmp_path: Path) -> None:
    clock = Clock()
    own = RecentPaths(clock)
    bus = EventBus()
    feed = TreeFeed(Workspaces([tmp_path]), bus, own, clock=clock)
    own.note(tmp_path / "Moved")
    own.note_saved(tmp_path / "saved.md")
    async with bus.subscribe("ann") as ann, feed:
        batch = [
            created(tmp_path / "Moved" / "inside.md"),
            created(tmp_path / "saved.md"),
            FileChange(tmp_path / "saved.md", "deleted"),
        ]
        await feed.watched(batch)
        first = await drain(ann)
        clock.now += 10
        await feed.watched(batch)
        later = await drain(ann)
    # A save is not a tree change, but the file's deletion by another program is.
    assert [[c.path for c in e.data.changes] for e in first] == [[str(tmp_path / "saved.md")]]
    assert [len(e.data.changes) for e in later] == [3]


async def test_a_burst_is_one_rescan_and_rescans_are_spaced(tmp_path: Path) -> None:
    clock = Clock()
    bus = EventBus()
    feed = TreeFeed(Workspaces([tmp_path]), bus, RecentPaths(clock), clock=clock)
    burst = [created(tmp_path / f"n{i}.md") for i in range(RESCAN_AT + 1)]
    small = [created(tmp_path / "one.md")]
    received: list[Event] = []
    async with bus.subscribe("ann") as ann, feed:
        await feed.watched(burst)
        received += await drain(ann)
        await feed.watched(burst)  # within the quiet time: held back
        await feed.watched(small)  # covered by the held-back rescan
        received += await drain(ann)
        assert len(received) == 1
        clock.now += RESCAN_QUIET_S
        with anyio.fail_after(RESCAN_QUIET_S + 1):
            async for event in ann:
                received.append(event)
                break
        await feed.watched(small)
        received += await drain(ann)
    kinds = [(e.data.rescan, len(e.data.changes)) for e in received if isinstance(e, TreeEvent)]
    assert kinds == [(True, 0), (True, 0), (False, 1)]


async def test_a_burst_in_many_smaller_batches_turns_into_rescans_once_past_the_limit(
    tmp_path: Path,
) -> None:
    clock = Clock()
    bus = EventBus()
    feed = TreeFeed(Workspaces([tmp_path]), bus, RecentPaths(clock), clock=clock)
    part = RESCAN_AT // 3 + 1
    received: list[Event] = []
    async with bus.subscribe("ann") as ann, feed:
        for index in range(8):  # a checkout that pauses longer than the quiet step, often
            batch = [created(tmp_path / f"b{index}" / f"n{i}.md") for i in range(part)]
            await feed.watched(batch)
            clock.now += 0.1
        received += await drain(ann)
        clock.now += RESCAN_QUIET_S
        with anyio.fail_after(RESCAN_QUIET_S + 1):
            async for event in ann:
                received.append(event)
                break
    kinds = [(e.data.rescan, len(e.data.changes)) for e in received if isinstance(e, TreeEvent)]
    assert kinds == [(False, part), (False, part), (True, 0), (True, 0)]


async def test_a_burst_lasts_until_the_workspace_is_quiet(tmp_path: Path) -> None:
    """Past the limit, smaller batches that keep coming are rescans too, even once the last
    ``RESCAN_QUIET_S`` alone would hold fewer than the limit; a batch after a quiet spell is a
    list again."""
    clock = Clock()
    bus = EventBus()
    feed = TreeFeed(Workspaces([tmp_path]), bus, RecentPaths(clock), clock=clock)
    burst = [created(tmp_path / f"n{i}.md") for i in range(RESCAN_AT + 1)]
    received: list[Event] = []
    async with bus.subscribe("ann") as ann, feed:
        await feed.watched(burst)
        received += await drain(ann)
        for index in range(2):  # the checkout goes on, slowly: each batch a held-back rescan
            clock.now += RESCAN_QUIET_S * 0.75
            await feed.watched([created(tmp_path / f"slow{index}.md")])
            with anyio.fail_after(RESCAN_QUIET_S + 1):
                async for event in ann:
                    received.append(event)
                    break
        clock.now += RESCAN_QUIET_S
        await feed.watched([created(tmp_path / "later.md")])
        received += await drain(ann)
    kinds = [(e.data.rescan, len(e.data.changes)) for e in received if isinstance(e, TreeEvent)]
    assert kinds == [(True, 0), (True, 0), (True, 0), (False, 1)]
