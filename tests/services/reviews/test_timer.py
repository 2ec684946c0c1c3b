"""The deadline timer and the event-or-delay wait: each sleeps on the injected sleep, wakes at
the soonest deadline, and looks again when told the deadlines changed."""

from __future__ import annotations

import anyio
import pytest

from quire.services.reviews.timer import DeadlineTimer, wait_or_sleep
from tests.support.reviews import until
from tests.support.world import FakeClock, FakeSleep, FakeTimer

pytestmark = pytest.mark.anyio


class Deadlines:
    """What the timer keeps time for: deadlines it ends when they are due."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.pending: list[int] = []
        self.due: list[tuple[int, list[int]]] = []

    def soonest(self) -> int | None:
        return min(self.pending, default=None)

    async def end_due(self, now: int) -> None:
        ended = sorted(deadline for deadline in self.pending if deadline <= now)
        self.pending = [deadline for deadline in self.pending if deadline > now]
        self.due.append((now, ended))


def timer_of(deadlines: Deadlines, sleep: FakeTimer) -> DeadlineTimer:
    return DeadlineTimer(
        next_deadline=deadlines.soonest,
        on_due=deadlines.end_due,
        clock=deadlines.clock,
        sleep=sleep,
    )


async def test_with_no_deadline_the_timer_sleeps_until_told_to_look_again() -> None:
    clock = FakeClock()
    deadlines, sleep = Deadlines(clock), FakeTimer(clock)
    timer = timer_of(deadlines, sleep)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(timer.run)
            await anyio.wait_all_tasks_blocked()
            assert sleep.calls == []
            deadlines.pending.append(clock.now + 5_000)
            timer.reschedule()
            await until(lambda: sleep.calls == [5.0])
            group.cancel_scope.cancel()
    assert deadlines.due == []


async def test_the_timer_ends_a_deadline_when_it_comes_and_then_rests() -> None:
    clock = FakeClock()
    deadlines, sleep = Deadlines(clock), FakeTimer(clock)
    deadline = clock.now + 7_500
    deadlines.pending.append(deadline)
    timer = timer_of(deadlines, sleep)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(timer.run)
            await sleep.fire()
            await until(lambda: deadlines.due != [])
            await anyio.wait_all_tasks_blocked()
            group.cancel_scope.cancel()
    assert deadlines.due == [(deadline, [deadline])]
    assert sleep.calls == [7.5]


async def test_a_sooner_deadline_cuts_the_sleep_short() -> None:
    clock = FakeClock()
    deadlines, sleep = Deadlines(clock), FakeTimer(clock)
    start = clock.now
    deadlines.pending.append(start + 600_000)
    timer = timer_of(deadlines, sleep)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(timer.run)
            await until(lambda: sleep.calls == [600.0])
            deadlines.pending.append(start + 5_000)
            timer.reschedule()
            await until(lambda: sleep.calls == [600.0, 5.0])
            await sleep.fire()
            await until(lambda: len(sleep.calls) == 3)
            group.cancel_scope.cancel()
    assert deadlines.due == [(start + 5_000, [start + 5_000])]
    assert sleep.calls[2] == 595.0


async def test_deadlines_already_past_are_ended_at_once_without_sleeping() -> None:
    clock = FakeClock()
    deadlines, sleep = Deadlines(clock), FakeTimer(clock)
    deadlines.pending += [clock.now - 10, clock.now]
    timer = timer_of(deadlines, sleep)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(timer.run)
            await until(lambda: deadlines.due != [])
            group.cancel_scope.cancel()
    assert deadlines.due == [(clock.now, [clock.now - 10, clock.now])]
    assert sleep.calls == []


async def test_a_wait_ends_when_its_event_is_set_before_the_delay() -> None:
    clock = FakeClock()
    sleep = FakeSleep(clock)
    sleep.hold = True
    wakeup = anyio.Event()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(wait_or_sleep, wakeup, 60_000, sleep)
            await sleep.sleeping.wait()
            wakeup.set()
    assert sleep.calls == [60.0]


@pytest.mark.parametrize(("delay_ms", "slept"), [(2_500, 2.5), (1, 0.001), (0, 0.001), (-5, 0.001)])
async def test_a_wait_ends_after_its_delay_of_at_least_a_millisecond(
    delay_ms: int, slept: float
) -> None:
    clock = FakeClock()
    sleep = FakeSleep(clock)
    with anyio.fail_after(10):
        await wait_or_sleep(anyio.Event(), delay_ms, sleep)
    assert sleep.calls == [slept]
