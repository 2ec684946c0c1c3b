"""A person's task click as one LiveDocuments operation: the box set in the live text as one
tagged change, after any edit under way, with the person's concurrent typing kept."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from pycrdt import Doc, Text, TransactionEvent

from quire.core.errors import InvalidArgument, NotOpen
from quire.db.engine import Database
from quire.fs.folders import AllowedFolders
from quire.services.events import EventBus
from quire.services.live.document import CONTENT, LiveDocument, Origin
from quire.services.live.documents import LiveDocuments

NOTE = "# Plan\n\n- [ ] one\n- [x] two\n"

pytestmark = pytest.mark.anyio


@pytest.fixture
def note(tmp_path: Path) -> Path:
    path = tmp_path / "plan.md"
    path.write_text(NOTE, encoding="utf-8")
    return path.resolve()


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
async def documents(database: Database, bus: EventBus) -> AsyncIterator[LiveDocuments]:
    live = LiveDocuments(
        database, bus, folders=AllowedFolders.whole_disk(), clock=lambda: 1_700_000_000_000
    )
    yield live
    await live.close()


def origins_of(live: LiveDocument) -> list[Origin | None]:
    """The origin of every transaction ``live`` sees from now on."""
    seen: list[Origin | None] = []

    def record(event: TransactionEvent) -> None:
        seen.append(live.origin)

    live.ydoc.observe(record)
    return seen


async def test_a_click_ticks_the_box_as_one_unsaved_change_of_the_person(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    origins = origins_of(live)
    assert await documents.toggle_task(live.doc_id, 3, True, author="person")
    assert live.text() == NOTE.replace("- [ ] one", "- [x] one")
    assert origins == [Origin("person", "person")]
    assert documents.is_dirty(live.doc_id)
    assert await anyio.Path(note).read_text(encoding="utf-8") == NOTE


async def test_a_box_already_in_that_state_changes_nothing(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    origins = origins_of(live)
    assert not await documents.toggle_task(live.doc_id, 4, True, author="person")
    assert live.text() == NOTE
    assert origins == []
    assert not documents.is_dirty(live.doc_id)


async def test_a_line_without_a_task_is_refused_naming_the_line(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    with pytest.raises(InvalidArgument) as caught:
        await documents.toggle_task(live.doc_id, 1, True, author="person")
    assert caught.value.argument == "line"
    assert "Line 1 holds no task checkbox" in str(caught.value)
    assert live.text() == NOTE


async def test_a_document_that_is_not_open_is_refused(documents: LiveDocuments) -> None:
    with pytest.raises(NotOpen, match="Open the document first"):
        await documents.toggle_task("a" * 24, 3, True, author="person")


async def test_a_click_publishes_the_changed_box_as_the_persons_edit(
    documents: LiveDocuments, bus: EventBus, note: Path
) -> None:
    live = await documents.open(note)
    async with bus.subscribe("owner") as events:
        await documents.toggle_task(live.doc_id, 4, False, author="person")
        with anyio.fail_after(5):
            activity, changed = await anext(events), await anext(events)
    assert activity.dump() == {
        "kind": "activity",
        "data": {"path": str(note), "author": "person", "kind": "edit"},
    }
    box = NOTE.index("[x]") + 1
    assert changed.dump() == {
        "kind": "document",
        "data": {
            "docId": live.doc_id,
            "path": str(note),
            "author": "person",
            "line": 4,
            "from": box,
            "to": box + 1,
        },
    }


async def test_typing_not_yet_synced_is_kept_beside_the_click(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    editor: Doc[Text] = Doc()
    editor.apply_update(live.ydoc.get_update())
    editor.get(CONTENT, type=Text).insert(len("# Plan"), " (draft)")
    await documents.toggle_task(live.doc_id, 3, True, author="person")
    state = live.ydoc.get_state()
    live.ydoc.apply_update(editor.get_update(state))
    editor.apply_update(live.ydoc.get_update(editor.get_state()))
    expected = "# Plan (draft)\n\n- [x] one\n- [x] two\n"
    assert live.text() == str(editor.get(CONTENT, type=Text)) == expected


async def test_a_click_waits_for_an_edit_under_way_and_keeps_it(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    toggled: list[bool] = []

    async def click() -> None:
        toggled.append(await documents.toggle_task(live.doc_id, 3, True, author="person"))

    async with anyio.create_task_group() as group, live.lock:
        group.start_soon(click)
        await anyio.wait_all_tasks_blocked()
        assert toggled == []
        # The edit under way, made while the click waits: the click must not undo it.
        with live.change(Origin("agent", "claude")):
            live.content.insert(len(live.content), "- [ ] three\n")
    assert toggled == [True]
    assert live.text() == "# Plan\n\n- [x] one\n- [x] two\n- [ ] three\n"
