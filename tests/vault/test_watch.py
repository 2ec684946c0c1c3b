"""The folder watcher: one change per file, atomic saves seen as changes, folders in and out."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from watchfiles import Change

from quire.vault.watch import FileChange, FolderWatcher, fold_changes

pytestmark = pytest.mark.anyio


class Changes:
    """What a watcher reported, batch by batch, with a way to wait for a path."""

    def __init__(self) -> None:
        self.send, self.receive = anyio.create_memory_object_stream[list[FileChange]](100)
        self.seen: list[FileChange] = []

    async def __call__(self, batch: list[FileChange]) -> None:
        await self.send.send(batch)

    async def until(self, path: Path) -> FileChange:
        """The change of ``path``, once reported (the changes before it are in ``seen``)."""
        with anyio.fail_after(10):
            async for batch in self.receive:
                self.seen.extend(batch)
                for change in batch:
                    if change.path == path:
                        return change
        raise AssertionError("the watcher stopped")


@pytest.fixture
async def changes() -> AsyncIterator[Changes]:
    reported = Changes()
    with reported.send, reported.receive:
        yield reported


@pytest.fixture
async def watcher(changes: Changes) -> AsyncIterator[FolderWatcher]:
    async with FolderWatcher(changes) as folder_watcher:
        yield folder_watcher


def atomic_save(path: Path, text: str) -> None:
    """What editors do: write a temp file beside the document, then rename it over it."""
    temp = path.with_name(f".{path.name}.swap")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)


# Folding raw events


@pytest.mark.parametrize(
    ("events", "on_disk", "expected"),
    [
        ([(Change.added, "a.md")], ["a.md"], [("a.md", "changed", True)]),
        ([(Change.modified, "a.md")], ["a.md"], [("a.md", "changed", False)]),
        (
            [(Change.deleted, "a.md"), (Change.added, "a.md")],
            ["a.md"],
            [("a.md", "changed", True)],
        ),
        ([(Change.deleted, "a.md")], [], [("a.md", "deleted", False)]),
        ([(Change.modified, "a.md"), (Change.deleted, "a.md")], [], [("a.md", "deleted", False)]),
        ([(Change.added, ".a.tmp"), (Change.deleted, ".a.tmp")], [], []),
        ([(Change.added, ".a.tmp"), (Change.modified, ".a.tmp")], [], []),
        ([(Change.modified, "sub")], ["sub/"], []),
        (
            [(Change.modified, "b.md"), (Change.added, "a.md"), (Change.modified, "b.md")],
            ["a.md", "b.md"],
            [("a.md", "changed", True), ("b.md", "changed", False)],
        ),
        ([], [], []),
    ],
)
def test_raw_events_fold_into_one_change_per_file(
    tmp_path: Path,
    events: list[tuple[Change, str]],
    on_disk: list[str],
    expected: list[tuple[str, str, bool]],
) -> None:
    for name in on_disk:
        if name.endswith("/"):
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_text("x", encoding="utf-8")
    raw = [(change, str(tmp_path / name)) for change, name in events]
    folded = fold_changes(raw)
    assert [(change.path.name, change.kind, change.created) for change in folded] == expected
    assert not any(change.is_folder for change in folded)


def test_with_folders_a_new_folder_is_reported_created_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "old").mkdir()
    raw = [(Change.added, str(tmp_path / "sub")), (Change.modified, str(tmp_path / "old"))]
    assert fold_changes(raw, folders=True) == [
        FileChange(tmp_path / "old", "changed", created=False, is_folder=True),
        FileChange(tmp_path / "sub", "changed", created=True, is_folder=True),
    ]


# Watching


async def test_a_file_written_in_a_watched_folder_is_reported(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    await watcher.watch(tmp_path)
    (tmp_path / "note.md").write_text("hello", encoding="utf-8")
    note = tmp_path / "note.md"
    assert await changes.until(note) == FileChange(note, "changed", created=True)


async def test_an_atomic_save_is_a_change_of_the_same_file(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    note = tmp_path / "note.md"
    note.write_text("before", encoding="utf-8")
    await watcher.watch(tmp_path)
    atomic_save(note, "after")
    assert (await changes.until(note)).kind == "changed"
    assert FileChange(note, "deleted") not in changes.seen
    assert all(change.path == note for change in changes.seen)


async def test_a_deleted_file_is_reported_deleted(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    note = tmp_path / "note.md"
    note.write_text("x", encoding="utf-8")
    await watcher.watch(tmp_path)
    note.unlink()
    assert await changes.until(note) == FileChange(note, "deleted")


async def test_an_unwatched_folder_is_no_longer_reported(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    left, kept = tmp_path / "left", tmp_path / "kept"
    left.mkdir()
    kept.mkdir()
    await watcher.watch(left)
    await watcher.watch(kept)
    await watcher.unwatch(left)
    assert watcher.folders() == [(kept, False)]
    (left / "a.md").write_text("x", encoding="utf-8")
    (kept / "b.md").write_text("x", encoding="utf-8")
    await changes.until(kept / "b.md")
    assert [change.path for change in changes.seen] == [kept / "b.md"]


async def test_watches_are_counted(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    await watcher.watch(tmp_path)
    await watcher.watch(tmp_path)
    await watcher.unwatch(tmp_path)
    assert watcher.folders() == [(tmp_path, False)]
    (tmp_path / "a.md").write_text("x", encoding="utf-8")
    await changes.until(tmp_path / "a.md")
    await watcher.unwatch(tmp_path)
    await watcher.unwatch(tmp_path)
    assert watcher.folders() == []


async def test_a_folder_watched_alone_skips_its_subfolders_and_a_recursive_one_does_not(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    alone, tree = tmp_path / "alone", tmp_path / "tree"
    for folder in (alone / "sub", tree / "sub"):
        folder.mkdir(parents=True)
    await watcher.watch(alone)
    await watcher.watch(tree, recursive=True)
    (alone / "sub" / "hidden.md").write_text("x", encoding="utf-8")
    (tree / "sub" / "seen.md").write_text("x", encoding="utf-8")
    await changes.until(tree / "sub" / "seen.md")
    (alone / "direct.md").write_text("x", encoding="utf-8")
    await changes.until(alone / "direct.md")
    assert alone / "sub" / "hidden.md" not in [change.path for change in changes.seen]


async def test_a_missing_folder_is_not_watched_and_others_still_are(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    await watcher.watch(tmp_path / "missing")
    await watcher.watch(tmp_path)
    (tmp_path / "a.md").write_text("x", encoding="utf-8")
    assert (await changes.until(tmp_path / "a.md")).kind == "changed"


async def test_a_failing_handler_does_not_stop_the_watching(tmp_path: Path) -> None:
    calls: list[list[FileChange]] = []
    send, receive = anyio.create_memory_object_stream[Path](10)

    async def handler(batch: list[FileChange]) -> None:
        calls.append(batch)
        for change in batch:
            await send.send(change.path)
        if len(calls) == 1:
            raise RuntimeError("boom")

    with send, receive:
        async with FolderWatcher(handler) as folder_watcher:
            await folder_watcher.watch(tmp_path)
            (tmp_path / "a.md").write_text("x", encoding="utf-8")
            assert await next_path(receive) == tmp_path / "a.md"
            (tmp_path / "b.md").write_text("x", encoding="utf-8")
            assert await next_path(receive) == tmp_path / "b.md"


async def next_path(receive: MemoryObjectReceiveStream[Path]) -> Path:
    with anyio.fail_after(10):
        return await receive.receive()


async def test_watching_needs_the_watcher_entered(changes: Changes, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="must be entered"):
        await FolderWatcher(changes).watch(tmp_path)


async def test_a_name_that_is_not_utf8_does_not_end_the_watching(
    watcher: FolderWatcher, changes: Changes, tmp_path: Path
) -> None:
    # watchfiles ends its loop on such a name; the watcher starts it again instead of failing
    # (which ended the whole server), and sees changes again once the name is fixed.
    await watcher.watch(tmp_path, recursive=True)
    bad = tmp_path / os.fsdecode(b"caf\xe9")
    bad.mkdir()
    (bad / os.fsdecode(b"n\xe9.md")).write_bytes(b"x")
    bad.rename(tmp_path / "cafe")
    note = tmp_path / "cafe" / "a.md"
    with anyio.fail_after(20):
        while True:  # a change made while the watch restarts is not seen: write until one is
            note.write_text("x", encoding="utf-8")
            with anyio.move_on_after(1):
                async for batch in changes.receive:
                    if any(change.path == note for change in batch):
                        return
