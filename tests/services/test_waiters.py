"""Waiters (of reviews and approval requests): an ended one wakes everyone listening and is
handed over in memory for as long as someone listens; nothing is kept for one nobody waits on;
a nudge wakes listeners to look again, and a rearmed listener sleeps until the next."""

from __future__ import annotations

from dataclasses import replace

import anyio
import pytest

from quire.db.reviews import StoredReview
from quire.services.waiters import Waiters

pytestmark = pytest.mark.anyio

PENDING = StoredReview(
    id="ab12",
    user_id="owner",
    path=None,
    content="Ship it?",
    content_hash="a" * 64,
    requested_by="owner",
    timeout_ms=60_000,
    created_at_ms=1,
    deadline_ms=60_001,
    status="pending",
    verdict=None,
    comments=None,
    decided_at_ms=None,
    late=False,
    superseded_by=None,
)
DECIDED = replace(PENDING, status="decided", verdict="approved", decided_at_ms=5)


async def test_an_ended_review_wakes_every_listener_and_is_handed_to_them() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with waiters.listening(PENDING.id) as first, waiters.listening(PENDING.id) as second:
        assert first is second
        assert not first.is_set()
        waiters.wake(DECIDED.id, DECIDED)
        assert first.is_set()
        assert waiters.outcome(PENDING.id) == DECIDED
    assert waiters.outcome(PENDING.id) is None
    assert not waiters.is_listened(PENDING.id)


async def test_the_outcome_stays_until_the_last_listener_leaves() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with waiters.listening(PENDING.id):
        with waiters.listening(PENDING.id):
            waiters.wake(DECIDED.id, DECIDED)
        assert waiters.is_listened(PENDING.id)
        assert waiters.outcome(PENDING.id) == DECIDED
    assert waiters.outcome(PENDING.id) is None


async def test_a_review_nobody_listens_on_wakes_nobody_and_keeps_nothing() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    waiters.wake(DECIDED.id, DECIDED)
    assert waiters.outcome(PENDING.id) is None
    with waiters.listening(PENDING.id) as wakeup:
        assert not wakeup.is_set()


async def test_a_listener_after_a_wake_gets_a_fresh_event() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with waiters.listening(PENDING.id) as first:
        waiters.wake(DECIDED.id, DECIDED)
        with waiters.listening(PENDING.id) as second:
            assert second is not first
            assert not second.is_set()


async def test_a_pending_review_wakes_its_listeners_without_a_handover() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with waiters.listening(PENDING.id) as wakeup:
        waiters.wake(PENDING.id, None)
        assert wakeup.is_set()
        assert waiters.outcome(PENDING.id) is None


async def test_listeners_of_other_reviews_sleep_on() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with waiters.listening("other") as other, waiters.listening(PENDING.id):
        waiters.wake(DECIDED.id, DECIDED)
        assert not other.is_set()
        assert waiters.outcome("other") is None


async def test_a_waiting_task_wakes_with_the_outcome() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    seen: list[StoredReview | None] = []

    async def wait() -> None:
        with waiters.listening(PENDING.id) as wakeup:
            await wakeup.wait()
            seen.append(waiters.outcome(PENDING.id))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.wait_all_tasks_blocked()
            waiters.wake(DECIDED.id, DECIDED)
    assert seen == [DECIDED]


async def test_taken_returns_at_once_when_nobody_listens() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with anyio.fail_after(10):
        await waiters.taken(PENDING.id)


async def test_taken_returns_once_every_woken_listener_has_left() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    order: list[str] = []

    async def listener(name: str) -> None:
        with waiters.listening(PENDING.id) as wakeup:
            await wakeup.wait()
            assert waiters.outcome(PENDING.id) == DECIDED
            order.append(name)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(listener, "first")
            group.start_soon(listener, "second")
            await anyio.wait_all_tasks_blocked()
            waiters.wake(DECIDED.id, DECIDED)
            await waiters.taken(PENDING.id)
            order.append("taken")
    assert order == ["first", "second", "taken"]
    assert not waiters.is_listened(PENDING.id)


async def test_a_nudge_wakes_listeners_to_look_and_a_rearmed_one_sleeps_again() -> None:
    waiters: Waiters[StoredReview] = Waiters()
    with waiters.listening(PENDING.id) as first, waiters.listening("other") as other:
        waiters.nudge(PENDING.id)
        assert first.is_set() and not other.is_set()
        assert waiters.outcome(PENDING.id) is None
        again = waiters.rearm(PENDING.id)
        assert again is not first and not again.is_set()
        waiters.nudge_all()
        assert again.is_set() and other.is_set()
    assert not waiters.is_listened(PENDING.id)
