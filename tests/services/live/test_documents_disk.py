"""Live documents and their files changing on disk: reloads as minimal changes, conflicts with
unsaved edits, editors' atomic saves, and Quire's own saves left alone."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal, cast

import anyio
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from pycrdt import Doc, Text, TextEvent

from quire.api.events import Event
from quire.core.errors import PathRefused
from quire.db.engine import Database
from quire.fs.folders import AllowedFolders
from quire.services.events import EventBus
from quire.services.live.document import CONTENT, LiveDocument
from quire.services.live.documents import LiveDocuments
from tests.support.events import CheckedBus

NOTE = "# Plan\n\n- item one\n- item two\n"

pytestmark = pytest.mark.anyio


def clock() -> int:
    return 1_700_000_000_000


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = (tmp_path / "notes").resolve()
    path.mkdir()
    return path


@pytest.fixture
def note(folder: Path) -> Path:
    path = folder / "plan.md"
    path.write_text(NOTE, encoding="utf-8")
    return path


@pytest.fixture
def bus() -> EventBus:
    return CheckedBus()


@pytest.fixture
async def documents(database: Database, bus: EventBus) -> AsyncIterator[LiveDocuments]:
    async with LiveDocuments(
        database, bus, folders=AllowedFolders.whole_disk(), clock=clock
    ) as live:
        yield live


async def until_text(live: LiveDocument, condition: Callable[[str], bool]) -> None:
    """Wait until the live text satisfies ``condition``; it changes only through updates, and
    an observer may not read the text, so each update wakes the check up."""
    updated = anyio.Event()

    def on_update(_event: object) -> None:
        updated.set()

    subscription = live.ydoc.observe(on_update)
    try:
        with anyio.fail_after(10):
            while not condition(live.text()):
                await updated.wait()
                updated = anyio.Event()
    finally:
        live.ydoc.unobserve(subscription)


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def atomic_save(path: Path, text: str) -> None:
    """What editors do: write a temp file beside the document, then rename it over it."""
    temp = path.with_name(f".{path.name}.swap")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)


def delta_of(event: TextEvent) -> object:
    return cast("Any", event).delta


async def test_a_clean_buffer_reloads_a_file_changed_on_disk(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    deltas: list[object] = []
    live.content.observe(lambda event: deltas.append(delta_of(event)))
    write(note, NOTE.replace("item two", "item 2"))
    await until_text(live, lambda text: "item 2" in text)
    assert live.text() == NOTE.replace("item two", "item 2")
    assert deltas == [
        [{"retain": len("# Plan\n\n- item one\n- item ")}, {"delete": 3}, {"insert": "2"}]
    ]
    assert not documents.is_dirty(live.doc_id)


async def test_a_reload_keeps_what_an_editor_typed_meanwhile(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    browser: Doc[Text] = Doc()
    browser.apply_update(live.ydoc.get_update())
    state = browser.get_state()
    browser.get(CONTENT, type=Text).insert(len(b"# Plan"), " (draft)")
    write(note, NOTE + "- item three\n")
    await until_text(live, lambda text: "item three" in text)
    live.ydoc.apply_update(browser.get_update(state))
    browser.apply_update(live.ydoc.get_update(browser.get_state()))
    expected = "# Plan (draft)\n\n- item one\n- item two\n- item three\n"
    assert live.text() == str(browser.get(CONTENT, type=Text)) == expected


async def test_an_editors_atomic_save_reloads_the_buffer(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    atomic_save(note, "# Renamed over\n")
    await until_text(live, lambda text: text == "# Renamed over\n")
    assert documents.get(live.doc_id) is live
    assert not documents.is_dirty(live.doc_id)


async def test_a_dirty_buffer_keeps_its_text_and_raises_a_conflict(
    documents: LiveDocuments, note: Path, bus: EventBus
) -> None:
    live = await documents.open(note)
    await documents.replace_unique(live.doc_id, "item one", "mine", author="person")
    mine = live.text()
    async with bus.subscribe("owner") as events:
        atomic_save(note, "theirs\n")
        with anyio.fail_after(10):
            event = await anext(events)
    assert event.dump() == {
        "kind": "conflict",
        "data": {"docId": live.doc_id, "path": str(note), "mine": mine, "disk": "theirs\n"},
    }
    assert live.text() == mine
    assert documents.conflict(live.doc_id) == "theirs\n"
    await documents.resolve_conflict(live.doc_id, "disk")
    assert live.text() == "theirs\n"
    assert not documents.is_dirty(live.doc_id)


async def test_quires_own_save_is_not_taken_for_a_change_on_disk(
    documents: LiveDocuments, note: Path, folder: Path, bus: EventBus
) -> None:
    sentinel_path = folder / "sentinel.md"
    sentinel_path.write_text("quiet\n", encoding="utf-8")
    live = await documents.open(note)
    sentinel = await documents.open(sentinel_path)
    async with bus.subscribe("owner") as events:
        await documents.replace_unique(live.doc_id, "item one", "saved", author="a", save=True)
        # Dirty again: had the save's own file events been taken for another editor's change,
        # this buffer would now conflict with its own file.
        await documents.replace_unique(live.doc_id, "item two", "unsaved", author="a")
        # Changes are reported in order: once the sentinel reloads, the save's were handled.
        sentinel_path.write_text("loud\n", encoding="utf-8")
        await until_text(sentinel, lambda text: text == "loud\n")
        assert isinstance(events, MemoryObjectReceiveStream)
        kinds = []
        while True:
            try:
                kinds.append(events.receive_nowait().kind)
            except anyio.WouldBlock:
                break
    assert "conflict" not in kinds
    assert documents.conflict(live.doc_id) is None
    assert live.text() == "# Plan\n\n- saved\n- unsaved\n"
    assert documents.is_dirty(live.doc_id)


async def test_a_dirty_buffer_whose_file_now_holds_the_same_text_becomes_clean(
    documents: LiveDocuments, note: Path, bus: EventBus
) -> None:
    live = await documents.open(note)
    await documents.replace_unique(live.doc_id, "item one", "same", author="a")
    write(note, live.text())
    with anyio.fail_after(10):
        while documents.is_dirty(live.doc_id):  # noqa: ASYNC110 - the text does not change, so no update wakes us
            await anyio.sleep(0.01)
    assert documents.conflict(live.doc_id) is None


async def test_a_document_opened_before_the_watcher_started_is_watched_too(
    database: Database, bus: EventBus, note: Path
) -> None:
    documents = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await documents.open(note)
    async with documents:
        write(note, "changed\n")
        await until_text(live, lambda text: text == "changed\n")


async def next_conflict(events: AsyncIterator[Event]) -> Event:
    """The next conflict event (edits announce themselves too)."""
    with anyio.fail_after(10):
        async for event in events:
            if event.kind == "conflict":
                return event
    raise AssertionError("the events ended before a conflict event came")


async def raise_conflict(
    documents: LiveDocuments, note: Path, events: AsyncIterator[Event]
) -> LiveDocument:
    live = await documents.open(note)
    await documents.replace_unique(live.doc_id, "item one", "mine", author="person")
    atomic_save(note, "theirs\n")
    assert "resolved" not in (await next_conflict(events)).dump()["data"]
    return live


@pytest.mark.parametrize(("keep", "dirty"), [("mine", True), ("disk", False)])
async def test_resolving_a_conflict_tells_every_window_it_ended(
    documents: LiveDocuments, note: Path, bus: EventBus, keep: Literal["mine", "disk"], dirty: bool
) -> None:
    async with bus.subscribe("owner") as events:
        live = await raise_conflict(documents, note, events)
        await documents.resolve_conflict(live.doc_id, keep)
        ended = await next_conflict(events)
    assert ended.dump() == {
        "kind": "conflict",
        "data": {"docId": live.doc_id, "path": str(note), "resolved": True, "dirty": dirty},
    }
    assert documents.conflict(live.doc_id) is None


async def test_a_conflict_ends_for_every_window_when_the_file_goes_back(
    documents: LiveDocuments, note: Path, bus: EventBus
) -> None:
    async with bus.subscribe("owner") as events:
        live = await raise_conflict(documents, note, events)
        atomic_save(note, NOTE)
        ended = await next_conflict(events)
    assert ended.dump() == {
        "kind": "conflict",
        "data": {"docId": live.doc_id, "path": str(note), "resolved": True, "dirty": True},
    }
    assert documents.conflict(live.doc_id) is None
    assert "mine" in live.text()


@pytest.mark.anyio
async def test_a_save_after_the_folder_was_swapped_for_a_link_writes_nowhere(
    database: Database, bus: EventBus, tmp_path: Path
) -> None:
    workspace = (tmp_path / "ws").resolve()
    (workspace / "dirA").mkdir(parents=True)
    note = workspace / "dirA" / "doc.md"
    note.write_text("# Doc\n", encoding="utf-8")
    outside = (tmp_path / "out").resolve()
    outside.mkdir()
    elsewhere = workspace / "other"
    elsewhere.mkdir()
    documents = LiveDocuments(database, bus, folders=AllowedFolders([workspace]), clock=clock)
    try:
        live = await documents.open(note)
        # The folder is moved away and a link out of the workspace takes its name.
        (workspace / "dirA").rename(tmp_path / "ws-old")
        (workspace / "dirA").symlink_to(outside, target_is_directory=True)
        with pytest.raises(PathRefused, match="not inside an allowed folder"):
            await documents.set_content(live.doc_id, "# Agent\n", author="agent", save=True)
        assert list(outside.iterdir()) == []
        # A link to another folder inside is still not the folder the document came from.
        (workspace / "dirA").unlink()
        (workspace / "dirA").symlink_to(elsewhere, target_is_directory=True)
        with pytest.raises(PathRefused, match="its folder was replaced"):
            await documents.save(live.doc_id)
        assert list(elsewhere.iterdir()) == []
        assert (tmp_path / "ws-old" / "doc.md").read_text(encoding="utf-8") == "# Doc\n"
        # Reopening takes the folder the path leads to now, whose file conflicts with the
        # unsaved edits; keeping the person's text then saves it there.
        (elsewhere / "doc.md").write_text("# Other\n", encoding="utf-8")
        reopened = await documents.open(note)
        assert reopened is live
        assert live.conflict == "# Other\n"
        await documents.resolve_conflict(live.doc_id, "mine")
        await documents.save(live.doc_id)
        assert (elsewhere / "doc.md").read_text(encoding="utf-8") == "# Agent\n"
    finally:
        await documents.close()
