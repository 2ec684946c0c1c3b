"""Live documents: agents' edits as minimal changes, serialised edits, previews, saves,
unsaved edits that survive a restart, and conflicts with a file changed meanwhile."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from pycrdt import Doc, Text, TextEvent

from quire.core.errors import EditRefused, FileMissing, InvalidArgument, NotOpen
from quire.core.views import document_id
from quire.db import buffers
from quire.db.engine import Database
from quire.fs.folders import AllowedFolders
from quire.services.events import EventBus
from quire.services.live.document import CONTENT
from quire.services.live.documents import LiveDocuments
from quire.services.live.versions import version_of
from tests.support.events import CheckedBus

NOW = 1_700_000_000_000
NOTE = "# Plan\n\n- item one\n- item two\n"
NEXT_STEP = "Call stream_edit again for a fresh preview, then stream_edit_apply with its editId."

pytestmark = pytest.mark.anyio


def clock() -> int:
    return NOW


@pytest.fixture
def note(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    path = folder / "plan.md"
    path.write_text(NOTE, encoding="utf-8")
    return path.resolve()


@pytest.fixture
def bus() -> EventBus:
    return CheckedBus()


@pytest.fixture
async def documents(database: Database, bus: EventBus) -> AsyncIterator[LiveDocuments]:
    live = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    yield live
    await live.close()


async def stored(database: Database, doc_id: str) -> buffers.BufferRecord:
    async with database.session() as session:
        record = await buffers.load_buffer(session, doc_id)
    assert record is not None
    return record


def browser_of(documents: LiveDocuments, doc_id: str) -> Doc[Text]:
    """A second Yjs document synced with the live one, as a person's editor holds it."""
    live = documents.get(doc_id)
    assert live is not None
    browser: Doc[Text] = Doc()
    browser.apply_update(live.ydoc.get_update())
    return browser


def exchange(first: Doc[Text], second: Doc[Text]) -> None:
    first_state, second_state = first.get_state(), second.get_state()
    first.apply_update(second.get_update(first_state))
    second.apply_update(first.get_update(second_state))


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def inode_of(path: Path) -> int:
    return path.stat().st_ino


def names_in(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir())


def remove_folder_of(path: Path) -> None:
    path.unlink()
    path.parent.rmdir()


def delta_of(event: TextEvent) -> object:
    return cast("Any", event).delta


def hash_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# Opening


async def test_opening_loads_the_file_into_a_clean_live_document(
    documents: LiveDocuments, note: Path, database: Database
) -> None:
    live = await documents.open(note)
    assert live.doc_id == document_id(note)
    assert str(live.ydoc.get(CONTENT, type=Text)) == NOTE
    assert await documents.text(live.doc_id) == NOTE
    assert not documents.is_dirty(live.doc_id)
    record = await stored(database, live.doc_id)
    assert (record.path, record.base_hash, record.dirty) == (str(note), hash_of(NOTE), False)
    assert len(record.updates) == 1


async def test_opening_twice_gives_the_same_live_document(
    documents: LiveDocuments, note: Path
) -> None:
    assert await documents.open(note) is await documents.open(note)


async def test_opening_a_missing_file_is_refused(documents: LiveDocuments, tmp_path: Path) -> None:
    with pytest.raises(FileMissing):
        await documents.open(tmp_path / "gone.md")


@pytest.mark.parametrize("call", ["text", "is_dirty", "save", "edit", "preview", "flush"])
async def test_an_unknown_document_id_says_to_open_the_document(
    documents: LiveDocuments, call: str
) -> None:
    with pytest.raises(NotOpen, match="Open the document first"):
        match call:
            case "text":
                await documents.text("nope")
            case "is_dirty":
                documents.is_dirty("nope")
            case "save":
                await documents.save("nope")
            case "edit":
                await documents.replace_unique("nope", "a", "b", author="agent")
            case "preview":
                await documents.preview("nope", "a", "b")
            case _:
                await documents.flush("nope")


# Agents' edits


async def test_an_edit_changes_the_live_text_but_not_the_file(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    outcome = await documents.replace_unique(live.doc_id, "item two", "item 2", author="claude")
    assert await documents.text(live.doc_id) == NOTE.replace("item two", "item 2")
    assert read(note) == NOTE
    assert documents.is_dirty(live.doc_id)
    assert (outcome.line, outcome.match_index, outcome.saved) == (4, 0, False)
    new = NOTE.replace("item two", "item 2")
    assert new[outcome.start : outcome.end] == "item 2"


async def test_an_edit_touches_only_the_changed_characters(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    deltas: list[object] = []
    live.content.observe(lambda event: deltas.append(delta_of(event)))
    await documents.replace_unique(live.doc_id, "- item two", "- item 2", author="claude")
    assert deltas == [
        [{"retain": len("# Plan\n\n- item one\n- item ")}, {"delete": 3}, {"insert": "2"}]
    ]


async def test_a_person_typing_elsewhere_keeps_every_keystroke(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    browser = browser_of(documents, live.doc_id)
    browser.get(CONTENT, type=Text).insert(len(b"# Plan"), " (draft)")
    await documents.replace_unique(live.doc_id, "item one", "item 1", author="claude")
    exchange(live.ydoc, browser)
    expected = "# Plan (draft)\n\n- item 1\n- item two\n"
    assert live.text() == str(browser.get(CONTENT, type=Text)) == expected


async def test_two_editors_and_an_agent_merge_without_losing_anything(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    first, second = browser_of(documents, live.doc_id), browser_of(documents, live.doc_id)
    first.get(CONTENT, type=Text).insert(0, "<!-- a -->\n")
    second_text = second.get(CONTENT, type=Text)
    second_text.insert(len(second_text), "- item three\n")
    await documents.replace_unique(live.doc_id, "item two", "item deux", author="claude")
    for _ in range(2):
        exchange(live.ydoc, first)
        exchange(live.ydoc, second)
    expected = "<!-- a -->\n# Plan\n\n- item one\n- item deux\n- item three\n"
    assert live.text() == expected
    assert str(first.get(CONTENT, type=Text)) == str(second_text) == expected


async def test_a_hundred_concurrent_edits_are_all_applied(
    documents: LiveDocuments, tmp_path: Path
) -> None:
    path = tmp_path / "list.md"
    path.write_text("".join(f"- task {i:03}\n" for i in range(100)), encoding="utf-8")
    live = await documents.open(path.resolve())

    async def edit(i: int) -> None:
        await documents.replace_unique(
            live.doc_id, f"- task {i:03}\n", f"- [x] task {i:03}\n", author=f"agent-{i % 4}"
        )

    async with anyio.create_task_group() as group:
        for i in range(100):
            group.start_soon(edit, i)
    assert live.text() == "".join(f"- [x] task {i:03}\n" for i in range(100))


async def test_concurrent_edits_of_the_same_text_take_turns(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    refusals: list[EditRefused] = []

    async def edit(replacement: str) -> None:
        try:
            await documents.replace_unique(live.doc_id, "item one", replacement, author="a")
        except EditRefused as exc:
            refusals.append(exc)

    async with anyio.create_task_group() as group:
        for i in range(5):
            group.start_soon(edit, f"first {i}")
    assert len(refusals) == 4
    assert all(exc.match_count == 0 for exc in refusals)
    assert live.text().count("first ") == 1


@pytest.mark.parametrize(
    ("find", "count", "message"),
    [("item", 2, "is not unique (2 matches)"), ("nothing", 0, "was not found")],
)
async def test_a_refused_edit_leaves_the_document_unchanged(
    documents: LiveDocuments, note: Path, find: str, count: int, message: str
) -> None:
    live = await documents.open(note)
    with pytest.raises(EditRefused, match=re.escape(message)) as caught:
        await documents.replace_unique(live.doc_id, find, "x", author="agent")
    assert caught.value.match_count == count
    assert live.text() == NOTE
    assert not documents.is_dirty(live.doc_id)


async def test_an_edit_publishes_activity_and_the_changed_range(
    documents: LiveDocuments, bus: EventBus, tmp_path: Path
) -> None:
    path = tmp_path / "emoji.md"
    path.write_text("😀 one\ntwo\n", encoding="utf-8")
    live = await documents.open(path.resolve())
    async with bus.subscribe("owner") as events:
        await documents.replace_unique(live.doc_id, "two", "deux", author="claude")
        with anyio.fail_after(5):
            activity, changed = await anext(events), await anext(events)
    assert activity.dump() == {
        "kind": "activity",
        "data": {"path": str(live.path), "author": "claude", "kind": "edit"},
    }
    assert changed.dump() == {
        "kind": "document",
        "data": {
            "docId": live.doc_id,
            "path": str(live.path),
            "author": "claude",
            "line": 2,
            "from": 7,
            "to": 11,
        },
    }


async def test_an_edit_with_save_writes_the_file(
    documents: LiveDocuments, note: Path, database: Database
) -> None:
    live = await documents.open(note)
    outcome = await documents.replace_unique(
        live.doc_id, "item one", "item 1", author="claude", save=True
    )
    expected = NOTE.replace("item one", "item 1")
    assert outcome.saved
    assert read(note) == expected
    assert not documents.is_dirty(live.doc_id)
    assert (await stored(database, live.doc_id)).base_hash == hash_of(expected)


async def test_an_edit_whose_save_fails_says_it_was_applied_but_not_saved(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    remove_folder_of(note)
    with pytest.raises(FileMissing) as caught:
        await documents.replace_unique(live.doc_id, "item one", "item 1", author="a", save=True)
    assert str(caught.value).startswith(
        f"The edit was applied to the live document and stored. '{note}' was not saved:"
    )
    assert live.text() == NOTE.replace("item one", "item 1")
    assert documents.is_dirty(live.doc_id)


# Previews


async def test_a_preview_changes_nothing_and_its_edit_id_applies_once(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    previewed = await documents.preview(live.doc_id, "item", "entry")
    assert previewed.preview.matchCount == 2
    assert live.text() == NOTE
    outcome = await documents.apply_preview(
        live.doc_id, previewed.edit_id, "item", "entry", 1, author="claude"
    )
    assert outcome.match_index == 1
    assert live.text() == NOTE.replace("item two", "entry two")
    with pytest.raises(EditRefused, match="already applied") as caught:
        await documents.apply_preview(
            live.doc_id, previewed.edit_id, "item", "entry", 0, author="claude"
        )
    assert str(caught.value).endswith(NEXT_STEP)
    assert live.text() == NOTE.replace("item two", "entry two")


async def test_a_preview_of_another_document_is_refused(
    documents: LiveDocuments, note: Path
) -> None:
    other_path = note.parent / "other.md"
    other_path.write_text("item\n", encoding="utf-8")
    live = await documents.open(note)
    other = await documents.open(other_path)
    previewed = await documents.preview(other.doc_id, "item", "entry")
    with pytest.raises(EditRefused) as caught:
        await documents.apply_preview(live.doc_id, previewed.edit_id, "item", "entry", author="a")
    assert str(caught.value) == (
        f"Stale editId '{previewed.edit_id}': it previews '{other_path}', but the open document "
        f"is now '{note}'. {NEXT_STEP}"
    )
    assert live.text() == NOTE


async def test_an_unknown_edit_id_is_refused_and_nothing_changes(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    with pytest.raises(EditRefused, match="Unknown or stale editId 'abc'"):
        await documents.apply_preview(live.doc_id, "abc", "item one", "x", author="a")
    with pytest.raises(InvalidArgument, match="`edit_id` must not be empty"):
        await documents.apply_preview(live.doc_id, " ", "item one", "x", author="a")
    assert live.text() == NOTE


async def test_a_preview_survives_typing_elsewhere_but_not_a_change_of_its_matches(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    kept = await documents.preview(live.doc_id, "item one", "item 1")
    stale = await documents.preview(live.doc_id, "item", "entry")
    browser = browser_of(documents, live.doc_id)
    text = browser.get(CONTENT, type=Text)
    text.insert(len(text), "- item three\n")
    exchange(live.ydoc, browser)
    await documents.apply_preview(live.doc_id, kept.edit_id, "item one", "item 1", author="a")
    with pytest.raises(EditRefused, match="now occurs 3 time") as caught:
        await documents.apply_preview(live.doc_id, stale.edit_id, "item", "entry", author="a")
    assert caught.value.match_count == 3
    assert live.text() == "# Plan\n\n- item 1\n- item two\n- item three\n"


async def test_an_apply_lands_on_the_occurrence_previewed_when_the_person_adds_one_before(
    documents: LiveDocuments, note: Path
) -> None:
    """The preview's text is the apply's base: match_index counts there and the edit is
    merged onto the live text, so a new occurrence typed above does not shift which one is
    replaced (it was refused before, as find's count changed)."""
    live = await documents.open(note)
    preview = await documents.preview(live.doc_id, "item", "entry")
    assert preview.version == version_of(NOTE)
    browser = browser_of(documents, live.doc_id)
    text = browser.get(CONTENT, type=Text)
    text.insert(len("# Plan\n\n"), "- item zero\n")
    exchange(live.ydoc, browser)
    done = await documents.apply_preview(
        live.doc_id, preview.edit_id, "item", "entry", 1, author="a"
    )
    assert live.text() == "# Plan\n\n- item zero\n- item one\n- entry two\n"
    assert (done.line, done.version) == (5, version_of(live.text()))


async def test_an_apply_whose_base_is_not_the_preview_s_text_is_refused(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    _text, read = await documents.read(live.doc_id)
    browser = browser_of(documents, live.doc_id)
    text = browser.get(CONTENT, type=Text)
    text.insert(len(text), "- item three\n")
    exchange(live.ydoc, browser)
    preview = await documents.preview(live.doc_id, "item", "entry")
    with pytest.raises(EditRefused, match="its match_index counts occurrences in a text"):
        await documents.apply_preview(
            live.doc_id, preview.edit_id, "item", "entry", 2, author="a", base=read
        )
    with pytest.raises(InvalidArgument, match="`base` 'vnope' is not a version"):
        await documents.apply_preview(
            live.doc_id, preview.edit_id, "item", "entry", 2, author="a", base="vnope"
        )
    assert live.text() == NOTE + "- item three\n"
    await documents.apply_preview(
        live.doc_id, preview.edit_id, "item", "entry", 2, author="a", base=preview.version
    )
    assert live.text() == NOTE + "- entry three\n"


async def test_an_apply_without_a_preview_counts_in_its_base(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    _text, read = await documents.read(live.doc_id)
    browser = browser_of(documents, live.doc_id)
    text = browser.get(CONTENT, type=Text)
    text.insert(len("# Plan\n\n"), "- item zero\n")
    exchange(live.ydoc, browser)
    await documents.apply_preview(live.doc_id, None, "item", "entry", 0, author="a", base=read)
    assert live.text() == "# Plan\n\n- item zero\n- entry one\n- item two\n"


async def test_a_refused_apply_leaves_its_preview_usable(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    bad = await documents.preview(live.doc_id, "item one", "bad \ud800")
    with pytest.raises(InvalidArgument, match="unpaired surrogate"):
        await documents.apply_preview(
            live.doc_id, bad.edit_id, "item one", "bad \ud800", author="a"
        )
    with pytest.raises(InvalidArgument, match="unpaired surrogate"):
        await documents.apply_preview(
            live.doc_id, bad.edit_id, "item one", "bad \ud800", author="a"
        )
    good = await documents.preview(live.doc_id, "item one", "item 1")
    with pytest.raises(EditRefused, match="Use a match_index from 0 to 0"):
        await documents.apply_preview(
            live.doc_id, good.edit_id, "item one", "item 1", 1, author="a"
        )
    await documents.apply_preview(live.doc_id, good.edit_id, "item one", "item 1", author="a")
    assert live.text() == NOTE.replace("item one", "item 1")


async def test_an_apply_past_the_last_occurrence_says_which_indexes_exist(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    with pytest.raises(EditRefused, match="Use a match_index from 0 to 1") as caught:
        await documents.replace_occurrence(live.doc_id, "item", "x", 3, author="a")
    assert caught.value.match_count == 2


# Whole content


@pytest.mark.parametrize(
    ("original", "content", "expected"),
    [
        ("a\r\nb\r\n", "a\nB\nc\n", "a\r\nB\r\nc\r\n"),
        ("\ufeffhello\n", "bye\n", "\ufeffbye\n"),
        ("mixed\r\nand\n", "x\ny\n", "x\ny\n"),
        ("anything", "", ""),
    ],
)
async def test_set_content_keeps_crlf_and_bom_and_saves_on_request(
    documents: LiveDocuments, tmp_path: Path, original: str, content: str, expected: str
) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(original.encode())
    live = await documents.open(path.resolve())
    await documents.set_content(live.doc_id, content, author="a", save=True)
    assert live.text() == expected
    assert path.read_bytes() == expected.encode()
    assert not documents.is_dirty(live.doc_id)


async def test_set_content_is_applied_as_a_minimal_change(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    browser = browser_of(documents, live.doc_id)
    browser.get(CONTENT, type=Text).insert(len(b"# Plan"), "!")
    await documents.set_content(live.doc_id, NOTE.replace("two", "2"), author="a")
    exchange(live.ydoc, browser)
    assert live.text() == "# Plan!\n\n- item one\n- item 2\n"


async def test_set_content_refuses_an_unpaired_surrogate(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    with pytest.raises(InvalidArgument, match="unpaired surrogate"):
        await documents.set_content(live.doc_id, "bad \ud800", author="a")
    assert live.text() == NOTE


# Saving


async def test_saving_writes_the_file_atomically_and_compacts_the_buffer(
    documents: LiveDocuments, note: Path, database: Database
) -> None:
    live = await documents.open(note)
    inode = inode_of(note)
    for word in ("one", "two"):
        await documents.replace_unique(live.doc_id, f"item {word}", f"done {word}", author="a")
    before = await stored(database, live.doc_id)
    assert before.dirty and len(before.updates) == 3
    await documents.save(live.doc_id)
    expected = "# Plan\n\n- done one\n- done two\n"
    assert read(note) == expected
    assert inode_of(note) != inode  # a new file renamed over the old one
    assert names_in(note.parent) == ["plan.md"]
    after = await stored(database, live.doc_id)
    assert (after.dirty, after.base_hash, len(after.updates)) == (False, hash_of(expected), 1)
    assert not documents.is_dirty(live.doc_id)


# Restarts


async def test_unsaved_edits_survive_a_restart(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    await first.replace_unique(live.doc_id, "item two", "item 2", author="a")
    browser = browser_of(first, live.doc_id)
    await first.close()

    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    restored = await second.open(note)
    assert restored.text() == NOTE.replace("item two", "item 2")
    assert second.is_dirty(restored.doc_id)
    assert restored.conflict is None
    # The editor that stayed open merges without doubling the text: the same Yjs items.
    exchange(restored.ydoc, browser)
    assert restored.text() == str(browser.get(CONTENT, type=Text)) == NOTE.replace("two", "2")
    await second.close()


async def test_a_browser_keystroke_is_stored_and_survives_a_restart(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    browser = browser_of(first, live.doc_id)
    state = browser.get_state()
    browser.get(CONTENT, type=Text).insert(0, "typed ")
    live.ydoc.apply_update(browser.get_update(state))
    await first.flush(live.doc_id)
    assert (await stored(database, live.doc_id)).dirty

    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    assert (await second.open(note)).text() == "typed " + NOTE


async def test_a_clean_buffer_loads_the_file_as_it_is_now(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    await first.open(note)
    await first.close()
    write(note, NOTE + "- item three\n")
    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await second.open(note)
    assert live.text() == NOTE + "- item three\n"
    assert not second.is_dirty(live.doc_id)
    assert live.conflict is None


async def test_a_file_changed_during_a_restart_conflicts_with_unsaved_edits(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    await first.replace_unique(live.doc_id, "item one", "mine", author="person")
    await first.close()
    disk = NOTE.replace("item two", "theirs")
    write(note, disk)

    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    async with bus.subscribe("owner") as events:
        restored = await second.open(note)
        with anyio.fail_after(5):
            event = await anext(events)
    mine = NOTE.replace("item one", "mine")
    assert event.dump() == {
        "kind": "conflict",
        "data": {"docId": restored.doc_id, "path": str(note), "mine": mine, "disk": disk},
    }
    assert restored.text() == mine
    assert second.conflict(restored.doc_id) == disk
    with pytest.raises(EditRefused, match="Resolve the conflict in the window first"):
        await second.save(restored.doc_id)
    assert read(note) == disk


async def test_keeping_mine_keeps_the_edits_and_ends_the_conflict_for_good(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    await first.replace_unique(live.doc_id, "item one", "mine", author="person")
    await first.close()
    write(note, "theirs\n")
    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    restored = await second.open(note)
    await second.resolve_conflict(restored.doc_id, "mine")
    assert second.conflict(restored.doc_id) is None
    assert second.is_dirty(restored.doc_id)
    await second.close()

    third = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    again = await third.open(note)
    assert again.conflict is None
    assert again.text() == NOTE.replace("item one", "mine")
    await third.save(again.doc_id)
    assert read(note) == NOTE.replace("item one", "mine")


async def test_keeping_the_disk_text_drops_the_edits(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    await first.replace_unique(live.doc_id, "item one", "mine", author="person")
    await first.close()
    write(note, "theirs\n")
    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    restored = await second.open(note)
    await second.resolve_conflict(restored.doc_id, "disk")
    assert restored.text() == "theirs\n"
    assert not second.is_dirty(restored.doc_id)
    assert second.conflict(restored.doc_id) is None
    assert (await stored(database, restored.doc_id)).base_hash == hash_of("theirs\n")


async def test_restore_reopens_a_stored_buffer_by_its_id(
    database: Database, bus: EventBus, note: Path
) -> None:
    first = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    live = await first.open(note)
    await first.replace_unique(live.doc_id, "item one", "kept", author="a")
    await first.close()
    second = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    assert second.get(live.doc_id) is None
    restored = await second.restore(live.doc_id)
    assert restored is not None
    assert restored.text() == NOTE.replace("item one", "kept")
    assert await second.restore("0" * 24) is None
    remove_folder_of(note)
    third = LiveDocuments(database, bus, folders=AllowedFolders.whole_disk(), clock=clock)
    assert await third.restore(live.doc_id) is None


async def test_unloading_keeps_the_buffer_for_the_next_open(
    documents: LiveDocuments, note: Path
) -> None:
    live = await documents.open(note)
    await documents.replace_unique(live.doc_id, "item one", "kept", author="a")
    live.connections = 1
    assert not await documents.unload(live.doc_id)
    live.connections = 0
    assert await documents.unload(live.doc_id)
    assert documents.get(live.doc_id) is None
    reopened = await documents.open(note)
    assert reopened is not live
    assert reopened.text() == NOTE.replace("item one", "kept")
