"""Versions and previews two replicas share through one database (``AgentMemory``), and a
server alone that keeps them to itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from quire.core.errors import EditRefused, InvalidArgument
from quire.db.engine import Database
from quire.db.models import GivenVersion
from quire.services.live.agent_memory import TRIM_EVERY, AgentMemory
from quire.services.live.versions import PER_DOCUMENT

pytestmark = pytest.mark.anyio

PLAN = Path("/notes/plan.md")


def clock() -> int:
    return 1_700_000_000_000


def pair(database: Database, *, shared: bool) -> tuple[AgentMemory, AgentMemory]:
    return (
        AgentMemory(database, shared=shared, clock=clock),
        AgentMemory(database, shared=shared, clock=clock),
    )


async def remembered(memory: AgentMemory) -> str:
    return await memory.remember(
        doc_id="plan", path=PLAN, find="old", replace="new", version=3, match_count=2, base="v1"
    )


async def test_a_version_given_out_by_one_replica_is_known_to_another(database: Database) -> None:
    one, other = pair(database, shared=True)
    version = await one.give("plan", "the text\n")
    assert await other.text("plan", version) == "the text\n"
    assert await other.known("plan", "v" + "0" * 24) is None


async def test_a_preview_made_by_one_replica_is_applied_once_through_any(
    database: Database,
) -> None:
    one, other = pair(database, shared=True)
    edit_id = await remembered(one)
    found = await other.check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")
    assert (found.base, found.match_count, found.applied) == ("v1", 2, False)
    await other.mark_applied(edit_id)
    with pytest.raises(EditRefused, match="already applied"):
        await one.check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")
    with pytest.raises(InvalidArgument):
        await one.check(" ", doc_id="plan", path=PLAN, find="old", replace="new")


async def test_a_server_alone_keeps_what_it_gave_to_itself(database: Database) -> None:
    one, other = pair(database, shared=False)
    version = await one.give("plan", "the text\n")
    assert await one.text("plan", version) == "the text\n"
    with pytest.raises(InvalidArgument, match="not a version"):
        await other.text("plan", version)
    edit_id = await remembered(one)
    with pytest.raises(EditRefused, match="Unknown or stale editId"):
        await other.check(edit_id, doc_id="plan", path=PLAN, find="old", replace="new")


async def test_the_versions_a_replica_stores_stay_bounded_per_document(database: Database) -> None:
    one, _ = pair(database, shared=True)
    for number in range(5 * TRIM_EVERY):
        await one.give("plan", f"text {number}\n")
    async with database.session() as session:
        kept = await session.scalar(select(func.count()).select_from(GivenVersion))
    assert kept is not None and PER_DOCUMENT <= kept <= PER_DOCUMENT + TRIM_EVERY
    newest = await one.give("plan", f"text {5 * TRIM_EVERY - 1}\n")
    assert (
        await pair(database, shared=True)[1].text("plan", newest) == f"text {5 * TRIM_EVERY - 1}\n"
    )
