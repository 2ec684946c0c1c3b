"""Timing for the review loop: the deadline timer that wakes at the earliest pending deadline,
and the wait that ends on an event or after a delay, whichever is first.

Owns only when things wake; what a deadline means is the reviews service's. Time comes from an
injected clock and sleep, so tests move it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

Sleep = Callable[[float], Awaitable[None]]


class DeadlineTimer:
    """Sleeps until ``next_deadline()`` (milliseconds on ``clock``), then awaits ``on_due``
    with the time; ``reschedule`` makes it look again (a sooner deadline was added)."""

    def __init__(
        self,
        *,
        next_deadline: Callable[[], int | None],
        on_due: Callable[[int], Awaitable[None]],
        clock: Callable[[], int],
        sleep: Sleep,
    ) -> None:
        self._next_deadline = next_deadline
        self._on_due = on_due
        self._clock = clock
        self._sleep = sleep
        self._changed = anyio.Event()

    def reschedule(self) -> None:
        """Look at the deadlines again now, instead of at the one slept towards."""
        self._changed.set()

    async def run(self) -> None:
        """Keep time until cancelled. ``on_due`` must end what is due (or sleep before it
        returns): it is called again at once while a deadline has passed."""
        while True:
            changed = self._changed = anyio.Event()
            due = self._next_deadline()
            now = self._clock()
            if due is None:
                await changed.wait()
            elif due > now:
                await wait_or_sleep(changed, due - now, self._sleep)
            else:
                await self._on_due(now)


async def wait_or_sleep(wakeup: anyio.Event, delay_ms: int, sleep: Sleep) -> None:
    """Return when ``wakeup`` is set or ``sleep`` has slept ``delay_ms`` (at least 1 ms),
    whichever comes first."""
    async with anyio.create_task_group() as group:

        async def alarm() -> None:
            await sleep(max(delay_ms, 1) / 1000)
            group.cancel_scope.cancel()

        group.start_soon(alarm)
        await wakeup.wait()
        group.cancel_scope.cancel()
