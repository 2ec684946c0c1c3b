"""Wake-ups: an armed waiter is woken by the next notify, never by an earlier one, the timer
ends a wait that nobody wakes, and a wait follows its chat moved."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from quire.services.chat.wakeups import ChatWaits, until
from tests.support.world import FakeClock, FakeSleep

pytestmark = pytest.mark.anyio


async def test_a_notify_sets_the_event_armed_before_it_and_later_arms_get_a_new_one() -> None:
    waits = ChatWaits()
    with waits.listening("chat") as listener:
        armed = listener.arm()
        assert listener.arm() is armed
        waits.notify("chat")
        assert armed.is_set()
        again = listener.arm()
        assert again is not armed and not again.is_set()


async def test_a_notify_of_another_chat_wakes_nobody_here() -> None:
    waits = ChatWaits()
    with waits.listening("chat") as listener:
        armed = listener.arm()
        waits.notify("other")
        assert not armed.is_set()
        waits.notify_all()
        assert armed.is_set()


async def test_listeners_are_counted_and_the_last_one_leaves_nothing_behind() -> None:
    waits = ChatWaits()
    with waits.listening("chat") as first:
        with waits.listening("chat"):
            assert waits.waiting("chat") == 2
        first.arm()
        assert waits.waiting("chat") == 1
    assert waits.waiting("chat") == 0
    assert waits._events == {}


async def test_until_returns_true_the_moment_the_event_is_set() -> None:
    clock = FakeClock()
    sleep = FakeSleep(clock)
    sleep.hold = True
    event = anyio.Event()
    woke: list[bool] = []

    async def wait() -> None:
        woke.append(await until(event, 60_000, sleep))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await sleep.sleeping.wait()
            event.set()
    assert woke == [True]


async def test_until_returns_false_when_the_timer_ends_first() -> None:
    clock = FakeClock()
    sleep = FakeSleep(clock)
    start = clock.now
    assert await until(anyio.Event(), 1500, sleep) is False
    assert clock.now - start == 1500


async def test_until_an_event_already_set_does_not_sleep() -> None:
    sleep = FakeSleep(FakeClock())
    event = anyio.Event()
    event.set()
    assert await until(event, 1000, sleep) is True
    assert sleep.calls == []


async def test_a_move_wakes_the_waits_and_they_listen_at_the_new_path() -> None:
    waits = ChatWaits()
    with waits.listening("/ws/team/a.md") as listener, waits.listening("/ws/other.md") as other:
        armed, untouched = listener.arm(), other.arm()
        assert waits.moved(Path("/ws/team"), Path("/ws/done")) == ["/ws/done/a.md"]
        assert armed.is_set() and not untouched.is_set()
        assert listener.chat == "/ws/done/a.md"
        assert waits.waiting("/ws/done/a.md") == 1 and waits.waiting("/ws/team/a.md") == 0
        again = listener.arm()
        waits.notify("/ws/done/a.md")
        assert again.is_set()
    assert waits.waiting("/ws/done/a.md") == 0
    assert waits._events == {}


async def test_a_wait_that_missed_its_chat_mid_move_learns_where_it_went() -> None:
    waits = ChatWaits()
    answers: list[bool] = []
    with waits.listening("/ws/a.md") as listener:

        async def look() -> None:
            answers.append(await listener.was_moved("/ws/a.md"))

        with anyio.fail_after(5):
            async with anyio.create_task_group() as group:
                with waits.moving():
                    group.start_soon(look)
                    await anyio.wait_all_tasks_blocked()
                    assert answers == []  # the move is not done yet
                    waits.moved(Path("/ws/a.md"), Path("/ws/b.md"))
        assert answers == [True]
        # With no move under way the answer comes at once: the chat is really gone.
        assert not await listener.was_moved("/ws/b.md")
