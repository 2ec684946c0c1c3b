"""Review deadlines: the timer records a timeout at the deadline (waking the waiters), keeps
time for the soonest review, catches up after a restart, retries when the database fails it,
and never loses a decision that races it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.errors import ReviewRefused
from quire.core.views import OWNER, ReviewStatus
from quire.db import reviews as store
from quire.db.engine import Database
from quire.db.reviews import StoredReview
from quire.services.app import open_services
from quire.services.reviews.loop import TIMER_RETRY_S
from quire.services.reviews.results import Ended, WaitOutcome
from quire.settings.model import Settings
from tests.support.machines import machine_under
from tests.support.reviews import Gate, until
from tests.support.world import FakeClock, World, open_world

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


def actions(world: World, user: str = OWNER) -> list[object]:
    return [event["action"] for event in world.bus.of_kind("review", user)]


async def stored_in(db: Database, review_id: str) -> StoredReview:
    async with db.session() as session:
        review = await store.get_review(session, review_id)
    assert review is not None
    return review


async def stored(world: World, review_id: str) -> StoredReview:
    return await stored_in(world.db, review_id)


async def test_a_review_nobody_waits_on_is_recorded_as_timed_out_at_its_deadline(
    world: World,
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    await world.timer.fire()
    await until(lambda: actions(world) == ["new", "timeout"])
    assert world.clock.now == review.deadline_ms
    assert world.timer.calls == [5.0]
    row = await stored(world, review.id)
    assert (row.status, row.verdict, row.late, row.decided_at_ms) == (
        "timeout",
        "timeout",
        False,
        None,
    )
    assert await world.reviews.active(OWNER) is None


async def test_a_waiting_call_answers_timeout_when_the_timer_rings_at_the_deadline(
    world: World,
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    world.sleep.hold = True
    outcomes: list[WaitOutcome] = []

    async def waiter() -> None:
        outcomes.append(await world.reviews.wait(OWNER, review.id, 600_000))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            await world.timer.fire()
    result = ended(outcomes[0])
    assert result.verdict == "timeout"
    assert world.clock.now == review.deadline_ms
    assert "within the review's window of 5 seconds" in str(result.message)
    assert world.sleep.calls == [5.0]
    assert actions(world) == ["new", "timeout"]


async def test_the_timer_keeps_time_for_the_soonest_deadline_of_any_user(world: World) -> None:
    slow = await world.reviews.request(OWNER, content="Slow?", timeout_ms=600_000)
    await until(lambda: world.timer.calls == [600.0])
    quick = await world.reviews.request("alice", content="Quick?", timeout_ms=5_000)
    await until(lambda: world.timer.calls == [600.0, 5.0])
    await world.timer.fire()
    await until(lambda: actions(world, "alice") == ["new", "timeout"])
    assert (await stored(world, quick.id)).status == "timeout"
    assert (await world.reviews.get(OWNER, slow.id)).status == "pending"
    await until(lambda: len(world.timer.calls) == 3)
    assert world.timer.calls[2] == 595.0
    assert actions(world) == ["new"]


async def test_a_superseded_or_decided_review_is_not_timed_out(world: World) -> None:
    first = await world.reviews.request(OWNER, content="First?", timeout_ms=5_000)
    second = await world.reviews.request(OWNER, content="Second?", timeout_ms=10_000)
    await world.reviews.decide(OWNER, second.id, "approved")
    await world.timer.fire()
    await anyio.wait_all_tasks_blocked()
    assert world.timer.calls[-1] == 10.0
    assert not world.timer.armed.is_set()
    assert (await stored(world, first.id)).status == "superseded"
    assert (await stored(world, second.id)).status == "decided"
    assert actions(world) == ["new", "superseded", "new", "decided"]


async def test_a_review_whose_deadline_passed_while_stopped_times_out_at_start(
    database: Database, tmp_path: Path
) -> None:
    workspace = (tmp_path / "w").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as first:
        review = await first.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
        clock = first.clock
    clock.advance(60_000)
    async with open_world(database, workspace, clock=clock) as second:
        await until(lambda: actions(second) == ["timeout"])
        assert second.timer.calls == []
        row = await stored(second, review.id)
        assert (row.status, row.late) == ("timeout", False)
        result = ended(await second.reviews.wait(OWNER, review.id, 1_000))
        assert result.verdict == "timeout"
        decided = await second.reviews.decide(OWNER, review.id, "approved")
        assert decided.late


async def test_a_server_started_past_a_deadline_records_the_timeout_unasked(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=0)
    clock = FakeClock()
    async with open_services(
        settings, token="t" * 64, clock=clock, machine=machine_under(tmp_path)
    ) as services:
        review = await services.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    clock.advance(5_000)
    async with open_services(
        settings, token="t" * 64, clock=clock, machine=machine_under(tmp_path)
    ) as services:
        with anyio.fail_after(10):
            while (row := await stored_in(services.database, review.id)).status == "pending":
                await anyio.lowlevel.checkpoint()
        assert (row.status, row.verdict, row.late) == ("timeout", "timeout", False)


async def test_the_timer_tries_again_when_the_database_fails_it(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    real = store.record_outcome
    failures = [OperationalError("UPDATE reviews", {}, Exception("disk I/O error"))]

    async def flaky(session: AsyncSession, outcome: StoredReview, *, was: ReviewStatus) -> bool:
        if failures:
            raise failures.pop()
        return await real(session, outcome, was=was)

    monkeypatch.setattr(store, "record_outcome", flaky)
    with caplog.at_level(logging.ERROR, logger="quire.services.reviews.loop"):
        await world.timer.fire()
        await until(lambda: world.timer.calls == [5.0, TIMER_RETRY_S])
    assert f"Could not record the timeout of review {review.id}" in caplog.text
    assert (await stored(world, review.id)).status == "pending"
    assert actions(world) == ["new"]
    await world.timer.fire()
    await until(lambda: actions(world) == ["new", "timeout"])
    assert (await stored(world, review.id)).status == "timeout"


async def test_a_decision_being_written_when_the_deadline_passes_stands_on_time(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    gate = Gate(store.record_outcome)
    monkeypatch.setattr(store, "record_outcome", gate)
    decided: list[StoredReview] = []

    async def decide() -> None:
        decided.append(await world.reviews.decide(OWNER, review.id, "approved"))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(decide)
            await gate.reached.wait()
            await world.timer.fire()
            await anyio.wait_all_tasks_blocked()
            gate.release.set()
    assert world.clock.now == review.deadline_ms
    assert (decided[0].verdict, decided[0].late) == ("approved", False)
    assert gate.writes == [(review.id, "decided")]
    assert await stored(world, review.id) == decided[0]
    assert actions(world) == ["new", "decided"]


async def test_a_decision_arriving_while_the_timeout_is_written_is_recorded_late(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?", timeout_ms=5_000)
    gate = Gate(store.record_outcome)
    monkeypatch.setattr(store, "record_outcome", gate)
    world.sleep.hold = True
    outcomes: list[WaitOutcome] = []
    decided: list[StoredReview] = []

    async def waiter() -> None:
        outcomes.append(await world.reviews.wait(OWNER, review.id, 600_000))

    async def decide() -> None:
        decided.append(await world.reviews.decide(OWNER, review.id, "changes_requested", "No."))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            await world.timer.fire()
            await gate.reached.wait()
            group.start_soon(decide)
            await anyio.wait_all_tasks_blocked()
            gate.release.set()
    assert ended(outcomes[0]).verdict == "timeout"
    assert (decided[0].verdict, decided[0].late) == ("changes_requested", True)
    assert gate.writes == [(review.id, "timeout"), (review.id, "decided")]
    assert await stored(world, review.id) == decided[0]
    assert actions(world) == ["new", "timeout", "decided"]
    world.sleep.hold = False
    later = ended(await world.reviews.wait(OWNER, review.id, 1_000))
    assert (later.verdict, later.review.late, later.review.comments) == (
        "changes_requested",
        True,
        "No.",
    )


async def test_of_two_decisions_at_once_one_is_recorded_and_the_other_refused(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    review = await world.reviews.request(OWNER, content="Ship it?")
    gate = Gate(store.record_outcome)
    monkeypatch.setattr(store, "record_outcome", gate)
    results: list[StoredReview | ReviewRefused] = []

    async def decide(verdict: str) -> None:
        try:
            results.append(await world.reviews.decide(OWNER, review.id, verdict))  # type: ignore[arg-type]
        except ReviewRefused as refused:
            results.append(refused)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(decide, "approved")
            await gate.reached.wait()
            group.start_soon(decide, "dismissed")
            await anyio.wait_all_tasks_blocked()
            gate.release.set()
    first, second = results
    assert isinstance(first, StoredReview)
    assert first.verdict == "approved"
    assert isinstance(second, ReviewRefused)
    assert "already decided (approved)" in second.message
    assert gate.writes == [(review.id, "decided")]
    assert actions(world) == ["new", "decided"]
