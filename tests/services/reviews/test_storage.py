"""Reviews held in memory and written through: a decision is one UPDATE committed before the
waiter hears of it, waiting reads nothing, a restart restores the pending reviews, and what
another server stored is never overwritten."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from quire.core.errors import ReviewNotFound, ReviewRefused
from quire.core.views import OWNER
from quire.db import reviews as store
from quire.db.engine import Database
from quire.db.reviews import StoredReview
from quire.services.reviews.loop import Reviews
from quire.services.reviews.results import Ended, StillPending, WaitOutcome
from tests.support.reviews import statements, until
from tests.support.world import World, open_world

pytestmark = pytest.mark.anyio


@pytest.fixture
async def world(database: Database, tmp_path: Path) -> AsyncIterator[World]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as opened:
        yield opened


def ended(outcome: WaitOutcome) -> Ended:
    assert isinstance(outcome, Ended), outcome
    return outcome


def actions(world: World) -> list[object]:
    return [event["action"] for event in world.bus.of_kind("review")]


async def stored(db: Database, review_id: str) -> StoredReview | None:
    async with db.session() as session:
        return await store.get_review(session, review_id)


async def store_elsewhere(db: Database, review: StoredReview) -> None:
    """What another server on the same database would write: the verdict, behind our back."""
    async with db.session() as session, session.begin():
        assert await store.record_outcome(session, review, was="pending")


@pytest.mark.parametrize("kind", ["inline", "file"])
async def test_a_decision_is_one_update_and_the_waiting_call_reads_nothing(
    world: World, kind: str
) -> None:
    if kind == "file":
        review = await world.reviews.request(OWNER, path=world.write("plan.md"))
    else:
        review = await world.reviews.request(OWNER, content="Ship it?")
    world.sleep.hold = True
    outcomes: list[WaitOutcome] = []

    async def waiter() -> None:
        outcomes.append(await world.reviews.wait(OWNER, review.id, 600_000))

    with statements(world.db) as ran, anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            assert ran == []
            decided = await world.reviews.decide(OWNER, review.id, "approved", "Go.")
    assert len(ran) == 1, ran
    assert ran[0].startswith("UPDATE reviews SET")
    result = ended(outcomes[0])
    assert (result.verdict, result.stale, result.review) == ("approved", False, decided)
    assert await stored(world.db, review.id) == decided


async def test_the_verdict_is_committed_before_the_waiter_hears_of_it(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    world.sleep.hold = True
    seen_stored: list[StoredReview | None] = []

    async def waiter() -> None:
        ended(await world.reviews.wait(OWNER, review.id, 600_000))
        seen_stored.append(await stored(world.db, review.id))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            decided = await world.reviews.decide(OWNER, review.id, "dismissed")
    assert seen_stored == [decided]


async def test_the_waiting_call_has_its_verdict_before_the_decision_returns(
    world: World,
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    world.sleep.hold = True
    order: list[str] = []

    async def waiter() -> None:
        outcome = ended(await world.reviews.wait(OWNER, review.id, 600_000))
        order.append(f"waiter: {outcome.verdict}")

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            group.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            await world.reviews.decide(OWNER, review.id, "approved")
            order.append("decided")
    assert order == ["waiter: approved", "waiter: approved", "decided"]


async def test_a_restart_restores_pending_reviews_and_reads_nothing_to_answer_them(
    database: Database, tmp_path: Path
) -> None:
    workspace = (tmp_path / "w").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as first:
        mine = await first.reviews.request(OWNER, content="Mine?", timeout_ms=60_000)
        theirs = await first.reviews.request("alice", content="Theirs?", timeout_ms=60_000)
        clock = first.clock
    async with open_world(database, workspace, clock=clock) as second:
        with statements(database) as ran:
            assert await second.reviews.get(OWNER, mine.id) == mine
            assert await second.reviews.active(OWNER) == mine
            assert await second.reviews.active("alice") == theirs
            assert await second.reviews.wait(OWNER, mine.id, 1_000) == StillPending(mine.id)
        assert ran == []
        await until(lambda: second.timer.armed.is_set())
        assert second.timer.calls == [60.0]
        decided = await second.reviews.decide(OWNER, mine.id, "approved")
    async with open_world(database, workspace, clock=clock) as third:
        result = ended(await third.reviews.wait(OWNER, mine.id, 1_000))
        assert result.review == decided
        assert await third.reviews.active(OWNER) is None
        assert await third.reviews.active("alice") == theirs


async def test_reviews_never_started_find_the_pending_ones_on_first_use(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    unstarted = Reviews(
        world.db, world.bus, world.windows, world.documents, clock=world.clock, sleep=world.sleep
    )
    assert await unstarted.active(OWNER) == review
    world.clock.advance(5_000)
    expired = await unstarted.get(OWNER, review.id)
    assert (expired.status, expired.verdict) == ("timeout", "timeout")
    assert (await stored(world.db, review.id)) == expired


async def test_a_decision_never_overwrites_a_verdict_another_server_stored(
    world: World,
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    elsewhere = replace(
        review, status="decided", verdict="dismissed", comments="Not now.", decided_at_ms=1
    )
    await store_elsewhere(world.db, elsewhere)
    with pytest.raises(ReviewRefused, match="already decided \\(dismissed\\)"):
        await world.reviews.decide(OWNER, review.id, "approved")
    assert await world.reviews.get(OWNER, review.id) == elsewhere
    assert await stored(world.db, review.id) == elsewhere
    assert await world.reviews.active(OWNER) is None


async def test_a_decision_over_a_timeout_another_server_stored_is_late(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    await store_elsewhere(world.db, replace(review, status="timeout", verdict="timeout"))
    decided = await world.reviews.decide(OWNER, review.id, "approved")
    assert (decided.status, decided.late) == ("decided", True)
    assert await stored(world.db, review.id) == decided


async def test_the_timer_leaves_alone_a_verdict_another_server_stored(world: World) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    elsewhere = replace(review, status="decided", verdict="approved", decided_at_ms=2)
    await store_elsewhere(world.db, elsewhere)
    await world.timer.fire()
    await until(lambda: len(actions(world)) == 2)
    assert actions(world) == ["new", "decided"]
    assert await stored(world.db, review.id) == elsewhere
    assert ended(await world.reviews.wait(OWNER, review.id, 1_000)).review == elsewhere


async def test_pruning_drops_old_reviews_from_disk_and_keeps_the_pending_one(
    database: Database, tmp_path: Path
) -> None:
    workspace = (tmp_path / "w").resolve()
    workspace.mkdir()
    async with open_world(database, workspace, keep=2) as world:
        requested = []
        for index in range(4):
            world.clock.advance(1)
            requested.append(await world.reviews.request(OWNER, content=f"Review {index}"))
        for gone in requested[:2]:
            assert await stored(database, gone.id) is None
            with pytest.raises(ReviewNotFound):
                await world.reviews.decide(OWNER, gone.id, "approved")
        kept_ended, pending = requested[2], requested[3]
        assert (await world.reviews.get(OWNER, kept_ended.id)).status == "superseded"
        assert await world.reviews.active(OWNER) == pending
        decided = await world.reviews.decide(OWNER, pending.id, "approved")
        assert await stored(database, pending.id) == decided
