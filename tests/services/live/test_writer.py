"""The journal's group commit: concurrent edits share transactions, each lands once and in order,
a lone edit is written at once, and a failing batch fails exactly the edits it could not store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from pycrdt import Doc, Text

from quire.core.errors import StorageFailed
from quire.db import buffers
from quire.db.appends import Append
from quire.db.engine import Database
from quire.fs.folders import AllowedFolders
from quire.services.live.document import CONTENT
from quire.services.live.documents import LiveDocuments
from quire.services.live.writer import JournalWriter
from tests.support.events import CheckedBus

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000_000
DOCUMENTS = 5
EDITS = 12
"""Edits per document, each from its own task."""


def clock() -> int:
    return NOW


@pytest.fixture
async def documents(database: Database) -> AsyncIterator[LiveDocuments]:
    live = LiveDocuments(database, CheckedBus(), folders=AllowedFolders.whole_disk(), clock=clock)
    yield live
    await live.close()


async def stored(database: Database, doc_id: str) -> tuple[bytes, ...]:
    async with database.session() as session:
        record = await buffers.load_buffer(session, doc_id)
    return () if record is None else record.updates


async def reset(database: Database, doc_id: str) -> None:
    async with database.session() as session, session.begin():
        await buffers.reset_buffer(
            session,
            doc_id,
            f"/n/{doc_id}.md",
            base_hash="h" * 64,
            state=b"s",
            dirty=False,
            now_ms=NOW,
        )


def replayed(updates: tuple[bytes, ...]) -> str:
    doc: Doc[Text] = Doc()
    for update in updates:
        doc.apply_update(update)
    return str(doc.get(CONTENT, type=Text))


async def test_concurrent_edits_of_many_documents_all_land_once_in_order(
    documents: LiveDocuments, database: Database, tmp_path: Path
) -> None:
    ids = []
    for n in range(DOCUMENTS):
        note = tmp_path / f"note-{n}.md"
        note.write_text("# Log\n", encoding="utf-8")
        ids.append((await documents.open(note.resolve())).doc_id)
    before = documents.writer.batches

    async def edit(doc_id: str, k: int) -> None:
        # Each edit appends after the heading's line: the order they landed in is readable.
        await documents.replace_unique(doc_id, "# Log\n", f"# Log\nedit-{k}\n", author="agent")

    async with anyio.create_task_group() as group:
        for k in range(EDITS):
            for doc_id in ids:
                group.start_soon(edit, doc_id, k)
    batches = documents.writer.batches - before
    assert batches < DOCUMENTS * EDITS / 2, f"{batches} batches: the edits were not grouped"
    for doc_id in ids:
        live_text = await documents.text(doc_id)
        lines = live_text.splitlines()[1:]
        assert sorted(lines) == sorted(f"edit-{k}" for k in range(EDITS))
        updates = await stored(database, doc_id)
        assert len(updates) == 1 + EDITS  # the snapshot, then each edit once
        # Replaying the journal in its order gives the live text: every update is there, once,
        # after the updates it depends on.
        assert replayed(updates) == live_text
        for prefix in range(1, len(updates)):
            partial = replayed(updates[:prefix]).splitlines()[1:]
            assert partial == lines[len(lines) - len(partial) :]


async def test_a_lone_append_is_written_at_once_in_its_own_batch(database: Database) -> None:
    await reset(database, "a")
    writer = JournalWriter(database)
    with anyio.fail_after(5):
        await writer.append(Append("a", [b"1"], dirty=True, now_ms=NOW))
    assert writer.batches == 1
    assert await stored(database, "a") == (b"s", b"1")


async def test_a_failing_batch_fails_exactly_the_appends_that_were_not_stored(
    database: Database,
) -> None:
    for doc_id in ("a", "b", "c"):
        await reset(database, doc_id)
    writer = JournalWriter(database)
    outcomes: dict[str, str] = {}

    async def append(name: str, doc_id: str, update: bytes) -> None:
        try:
            await writer.append(Append(doc_id, [update], dirty=False, now_ms=NOW))
        except StorageFailed as exc:
            outcomes[name] = str(exc)
        else:
            outcomes[name] = "stored"

    async with anyio.create_task_group() as group:
        # The first is written alone; the rest queue behind it and share the second batch,
        # where "gone" has no buffer row (deleted meanwhile), so that batch fails as a whole.
        group.start_soon(append, "first", "a", b"a0")
        group.start_soon(append, "a", "a", b"a1")
        group.start_soon(append, "gone", "no-such-buffer", b"x1")
        group.start_soon(append, "gone-later", "no-such-buffer", b"x2")
        group.start_soon(append, "b", "b", b"b1")
        group.start_soon(append, "c", "c", b"c1")
    assert writer.batches == 2
    assert outcomes["first"] == outcomes["a"] == outcomes["b"] == outcomes["c"] == "stored"
    for failed in ("gone", "gone-later"):
        assert "was not applied" in outcomes[failed]
        assert "try again" in outcomes[failed]
    assert await stored(database, "a") == (b"s", b"a0", b"a1")
    assert await stored(database, "b") == (b"s", b"b1")
    assert await stored(database, "c") == (b"s", b"c1")
    assert await stored(database, "no-such-buffer") == ()


async def test_an_edit_that_cannot_be_stored_is_not_applied_while_others_are(
    documents: LiveDocuments, database: Database, tmp_path: Path
) -> None:
    notes = []
    for name in ("kept", "lost"):
        note = tmp_path / f"{name}.md"
        note.write_text("# Log\n", encoding="utf-8")
        notes.append((await documents.open(note.resolve())).doc_id)
    kept, lost = notes
    async with database.session() as session, session.begin():
        await buffers.delete_buffer(session, lost)  # its journal can no longer be appended to
    errors: list[str] = []

    async def edit(doc_id: str) -> None:
        try:
            await documents.replace_unique(doc_id, "# Log\n", "# Log\nnew\n", author="agent")
        except StorageFailed as exc:
            errors.append(str(exc))

    async with anyio.create_task_group() as group:
        group.start_soon(edit, kept)
        group.start_soon(edit, lost)
    assert await documents.text(kept) == "# Log\nnew\n"
    assert await documents.text(lost) == "# Log\n"
    assert len(errors) == 1
    assert "The edit was not applied" in errors[0]
    assert "no window was sent it" in errors[0]
    assert replayed(await stored(database, kept)) == "# Log\nnew\n"


async def test_a_cancelled_caller_still_has_its_append_stored_or_refused(
    database: Database,
) -> None:
    await reset(database, "a")
    writer = JournalWriter(database)
    async with anyio.create_task_group() as group:
        group.start_soon(writer.append, Append("a", [b"1"], dirty=False, now_ms=NOW))
        group.start_soon(writer.append, Append("a", [b"2"], dirty=False, now_ms=NOW))
        await anyio.lowlevel.checkpoint()  # both start: one writes, one waits in line
        group.cancel_scope.cancel()  # both are queued or being written: neither is dropped
    assert await stored(database, "a") == (b"s", b"1", b"2")
    await writer.append(Append("a", [b"3"], dirty=False, now_ms=NOW))
    assert await stored(database, "a") == (b"s", b"1", b"2", b"3")
