"""What agents were given and previewed, as replicas share it: versions kept per document up to
a limit, previews up to a limit overall, and a preview's applied mark."""

from __future__ import annotations

import pytest

from quire.db import agent_memory
from quire.db.agent_memory import StoredPreview
from quire.db.engine import Database

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000_000


async def give(database: Database, doc_id: str, version: str, text: str, now: int) -> None:
    async with database.session() as session, session.begin():
        await agent_memory.give_version(session, doc_id, version, text, now_ms=now, keep=3)


async def text_of(database: Database, doc_id: str, version: str) -> str | None:
    async with database.session() as session:
        return await agent_memory.version_text(session, doc_id, version)


async def test_a_version_given_out_is_kept_until_newer_ones_push_it_out(
    database: Database,
) -> None:
    for number in range(4):
        await give(database, "doc", f"v{number}", f"text {number}", NOW + number)
    await give(database, "other", "v0", "other text", NOW)
    assert await text_of(database, "doc", "v0") is None
    assert [await text_of(database, "doc", f"v{n}") for n in (1, 2, 3)] == [
        "text 1",
        "text 2",
        "text 3",
    ]
    assert await text_of(database, "other", "v0") == "other text"
    # Given out again (by another replica): kept once, as it was.
    await give(database, "doc", "v3", "text 3", NOW + 9)
    assert await text_of(database, "doc", "v3") == "text 3"
    assert await text_of(database, "doc", "v9") is None


def preview(edit_id: str) -> StoredPreview:
    return StoredPreview(
        edit_id=edit_id,
        doc_id="doc",
        path="/n/plan.md",
        find="old ✓",
        replace="",
        version=7,
        match_count=2,
        base="vabc",
        applied=False,
    )


async def test_a_preview_is_stored_marked_applied_and_pushed_out_by_newer_ones(
    database: Database,
) -> None:
    for number in range(5):
        async with database.session() as session, session.begin():
            await agent_memory.remember_preview(
                session, preview(f"e{number}"), now_ms=NOW + number, keep=3
            )
    async with database.session() as session:
        assert await agent_memory.stored_preview(session, "e1") is None
        assert await agent_memory.stored_preview(session, "e4") == preview("e4")
    async with database.session() as session, session.begin():
        await agent_memory.mark_preview_applied(session, "e4")
        await agent_memory.mark_preview_applied(session, "never made")
    async with database.session() as session:
        stored = await agent_memory.stored_preview(session, "e4")
        assert stored is not None and stored.applied
        assert await agent_memory.stored_preview(session, "never made") is None
