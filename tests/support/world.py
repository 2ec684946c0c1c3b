"""The window and review services over a real database, with a fake clock and a fake sleep.

`World` composes what a server holds (event bus, live documents, workspaces, windows, reviews)
so service tests drive the real pieces; the clock, the waits' sleep and the reviews' deadline
timer are the test's to move.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.lowlevel

from quire.api.events import Event
from quire.core.views import REVIEWS_KEPT
from quire.db.engine import Database
from quire.services.app import AppServices
from quire.services.events import EventBus
from quire.services.live.documents import LiveDocuments
from quire.services.replicas.fanout import Fanout
from quire.services.reviews.loop import Reviews
from quire.services.windows import Windows
from quire.settings.model import Settings
from quire.vault.workspaces import Workspaces
from tests.support.events import CheckedBus, checked_frame
from tests.support.machines import machine_under

START_MS = 1_700_000_000_000


class FakeClock:
    """Milliseconds since the epoch that move only when the test (or FakeSleep) moves them."""

    def __init__(self, now: int = START_MS) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


class FakeSleep:
    """The reviews' timer: a sleep moves the fake clock by its length and returns at once;
    while ``hold`` is set it never returns (a decision has to end the wait)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.hold = False
        self.calls: list[float] = []
        self.sleeping = anyio.Event()

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        self.sleeping.set()
        if self.hold:
            await anyio.sleep_forever()
        self.clock.advance(round(seconds * 1000))
        await anyio.lowlevel.checkpoint()


class FakeTimer:
    """The reviews' deadline timer: each sleep lasts until the test calls ``fire``, which first
    moves the fake clock to the sleep's end (when it is not there yet)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.calls: list[float] = []
        self.armed = anyio.Event()
        """Set while the timer sleeps."""
        self._ring: anyio.Event | None = None
        self._ends = 0

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        ring = self._ring = anyio.Event()
        self._ends = self.clock.now + round(seconds * 1000)
        self.armed.set()
        try:
            await ring.wait()
        finally:
            if self._ring is ring:
                self._disarm()

    async def fire(self) -> None:
        """Wait until the timer sleeps, then end that sleep at its end time."""
        while self._ring is None:
            await self.armed.wait()
        ring = self._ring
        self.clock.now = max(self.clock.now, self._ends)
        self._disarm()
        ring.set()

    def _disarm(self) -> None:
        self._ring = None
        self.armed = anyio.Event()


EVERYONE = "*"
"""The user an event published to everyone is recorded under."""


class RecordingBus(CheckedBus):
    """An event bus that checks every event published, and keeps it, per user."""

    def __init__(self) -> None:
        super().__init__()
        self.published: list[tuple[str, Event]] = []

    def publish(self, user: str, event: Event) -> None:
        self.published.append((user, event))
        super().publish(user, event)

    def publish_all(self, event: Event) -> None:
        """Kept under ``EVERYONE``: every user's windows receive it (none may listen now)."""
        checked_frame(event)
        self.published.append((EVERYONE, event))
        for user in list(self._subscribers):
            EventBus.publish(self, user, event)

    def kinds(self, user: str = "owner") -> list[str]:
        return [event.kind for who, event in self.published if who in (user, EVERYONE)]

    def of_kind(self, kind: str, user: str = "owner") -> list[dict[str, object]]:
        return [
            event.data.dump()
            for who, event in self.published
            if who in (user, EVERYONE) and event.kind == kind
        ]


@dataclass
class World:
    """The services of one simulated server run."""

    db: Database
    workspace: Path
    clock: FakeClock
    sleep: FakeSleep
    bus: RecordingBus
    documents: LiveDocuments
    workspaces: Workspaces
    windows: Windows
    reviews: Reviews
    timer: FakeTimer
    extra: dict[str, object] = field(default_factory=dict)

    def write(self, name: str, text: str = "# Note\n") -> Path:
        """Write a document in the workspace and return its path."""
        path = self.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


@asynccontextmanager
async def open_world(
    db: Database,
    workspace: Path,
    *,
    clock: FakeClock | None = None,
    keep: int = REVIEWS_KEPT,
    allowed: tuple[Path, ...] = (),
    more_workspaces: tuple[Path, ...] = (),
    fanout: Fanout | None = None,
) -> AsyncIterator[World]:
    """The services over ``db`` serving ``workspace`` (and ``more_workspaces`` after it), the
    reviews' deadline timer running; closes the live documents after."""
    clock = clock or FakeClock()
    sleep = FakeSleep(clock)
    timer = FakeTimer(clock)
    bus = RecordingBus()
    workspaces = Workspaces([workspace, *more_workspaces], allowed=allowed)
    documents = LiveDocuments(db, bus, folders=workspaces.openable, clock=clock)
    windows = Windows(db, bus, documents, workspaces, clock=clock)
    reviews = Reviews(
        db,
        bus,
        windows,
        documents,
        clock=clock,
        sleep=sleep,
        timer=timer,
        keep=keep,
        fanout=fanout,
    )
    try:
        async with reviews:
            yield World(
                db, workspace, clock, sleep, bus, documents, workspaces, windows, reviews, timer
            )
    finally:
        await documents.close()


def world_services(world: World, settings: Settings, token: str) -> AppServices:
    """The app's services made of ``world``'s pieces (its fake clock and timer included)."""
    return AppServices(
        settings=settings,
        database=world.db,
        bus=world.bus,
        workspaces=world.workspaces,
        documents=world.documents,
        windows=world.windows,
        reviews=world.reviews,
        token=token,
        clock=world.clock,
        machine=machine_under(world.workspace.parent),
    )
