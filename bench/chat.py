"""Chat over HTTP against a real ``quire serve``: how fast a post wakes a waiting reader, and
whether a wait's cost grows with the chat's length.

Targets (issue 7): a post waking a waiting ``POST /api/chats/wait`` within 3x of the bare
``GET /health`` round trip (p50, same server), and a wait returning one new message on a
10,000-message chat within 2x of the same on a 10-message chat. The wake-up is measured twice:
with the workspace in the temporary folder (each post is durably written, two fsyncs, before
anyone is woken) and on /dev/shm when it exists (the same path with the disk's flush time
taken out), so the table shows what the wake-up itself costs and what the storage adds.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx

from bench.server import quire_serve
from bench.timing import percentile, print_table, progress
from quire.core.chat import sanitize_label
from quire.markdown.chat import append_message, check_message, make_chat

WARM_UP = 20
HEALTH_CALLS = 300
WAKE_UPS = 100
TAIL_WAITS = 200
SHORT, LONG = 10, 10_000
STEP_TIMEOUT_S = 30
WRITER, READER = "bench-writer", "bench-reader"
STAMP = "2026-10-02T14:03:05Z"
MEMORY_FOLDER = Path("/dev/shm")


@dataclass(frozen=True)
class Figures:
    """Samples in seconds of each measured path on one server."""

    health: list[float]
    wake_up: list[float]
    short_wait: list[float]
    long_wait: list[float]


def chat_text(count: int) -> str:
    """A chat note with ``count`` messages of a few lines each, from three authors."""
    text = make_chat("", "Bench chat") + "\nWhat this chat is for.\n"
    parts = [text]
    for number in range(1, count + 1):
        block = append_message(
            "", sanitize_label(f"agent-{number % 3}"), STAMP, check_message(_body(number))
        )
        parts.append("\n" + block)
    return "".join(parts)


def _body(number: int) -> str:
    return (
        f"Message {number}: the build for step {number} is green.\n\n"
        f"- checked `module_{number % 17}.py`\n- next: @agent-{(number + 1) % 3} reviews it"
    )


class _Session:
    """The client side of one run over one keep-alive connection."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.sent: dict[str, int] = {}

    async def health(self) -> float:
        start = time.perf_counter()
        response = await self.client.get("/health")
        elapsed = time.perf_counter() - start
        response.raise_for_status()
        return elapsed

    async def post(self, chat: Path, body: str) -> int:
        response = await self.client.post(
            "/api/chats/post", json={"path": str(chat), "as": WRITER, "body": body}
        )
        response.raise_for_status()
        number = response.json()["number"]
        assert isinstance(number, int)
        return number

    async def wake_up(self, chat: Path, after: int, label: str) -> tuple[float, int]:
        """Open a wait, post once the wait's request is sent, time the wait's return."""
        sent = anyio.Event()
        returned: list[float] = []

        async def trace(name: str, info: Mapping[str, object]) -> None:
            if name == "http11.send_request_body.complete":
                sent.set()

        async def wait() -> None:
            body = {"path": str(chat), "as": READER, "after": after, "timeoutMs": 60_000}
            response = await self.client.post(
                "/api/chats/wait", json=body, extensions={"trace": trace}
            )
            returned.append(time.perf_counter())
            response.raise_for_status()
            if response.json()["status"] != "messages":
                raise RuntimeError(f"the wait returned {response.json()!r}, not messages")

        with anyio.fail_after(STEP_TIMEOUT_S):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await sent.wait()
                start = time.perf_counter()
                number = await self.post(chat, f"{label} {after + 1}")
        return returned[0] - start, number

    async def one_new_message(self, chat: Path, after: int) -> float:
        """Time a wait that finds one new message already there."""
        body = {"path": str(chat), "as": READER, "after": after, "timeoutMs": 60_000}
        start = time.perf_counter()
        response = await self.client.post("/api/chats/wait", json=body)
        elapsed = time.perf_counter() - start
        response.raise_for_status()
        if len(response.json()["messages"]) != 1:
            raise RuntimeError(f"the wait returned {response.json()!r}, not one message")
        return elapsed


async def _samples(count: int, once: Callable[[], Awaitable[float]]) -> list[float]:
    return [await once() for _ in range(count)]


async def _wake_ups(session: _Session, chat: Path, count: int) -> list[float]:
    after = 0
    samples: list[float] = []
    for _ in range(count):
        elapsed, after = await session.wake_up(chat, after, "wake")
        samples.append(elapsed)
    return samples


async def _tail_waits(session: _Session, chat: Path, start: int, count: int) -> list[float]:
    samples: list[float] = []
    after = start
    for _ in range(count):
        number = await session.post(chat, f"tail {after + 1}")
        samples.append(await session.one_new_message(chat, number - 1))
        after = number
    return samples


async def measure(root: Path) -> Figures:
    """Start a server on a fresh workspace under ``root`` and time every path."""
    workspace, state = root / "workspace", root / "state"
    chats = workspace / "Chats"
    chats.mkdir(parents=True)
    wake, short, long = chats / "wake.md", chats / "short.md", chats / "long.md"
    wake.write_text(chat_text(0), encoding="utf-8")
    short.write_text(chat_text(SHORT), encoding="utf-8")
    long.write_text(chat_text(LONG), encoding="utf-8")
    progress(f"starting quire serve in {root}")
    async with (
        quire_serve(workspace, state, root / "server.log") as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=60) as client,
    ):
        session = _Session(client)
        progress(f"GET /health: {WARM_UP} warm-up and {HEALTH_CALLS} timed calls")
        await _samples(WARM_UP, session.health)
        health = await _samples(HEALTH_CALLS, session.health)
        progress(f"post → waiting reader: {WAKE_UPS} wake-ups")
        await _wake_ups(session, wake, WARM_UP)
        wake_up = await _wake_ups(session, wake, WAKE_UPS)
        progress(f"wait returning one new message: {TAIL_WAITS} on {SHORT} and {LONG} messages")
        await _tail_waits(session, short, SHORT, WARM_UP)
        await _tail_waits(session, long, LONG, WARM_UP)
        short_wait = await _tail_waits(session, short, SHORT + WARM_UP, TAIL_WAITS)
        long_wait = await _tail_waits(session, long, LONG + WARM_UP, TAIL_WAITS)
        progress("stopping the server")
    return Figures(health, wake_up, short_wait, long_wait)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _row(name: str, samples: list[float], baseline: float, target: float | None) -> list[str]:
    p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
    result = "" if target is None else ("met" if p50 / baseline <= target else "MISSED")
    return [
        name,
        _ms(p50),
        _ms(p95),
        f"{p50 / baseline:.2f}",
        f"{p95 / baseline:.2f}",
        "" if target is None else f"≤ {target:g}x",
        result,
    ]


def table_rows(where: str, figures: Figures) -> list[list[str]]:
    """The rows of one run: /health, the wake-up, and the waits on a short and a long chat
    (the long one as a ratio to the short one)."""
    health = percentile(figures.health, 0.5)
    short = percentile(figures.short_wait, 0.5)
    return [
        _row(f"GET /health (baseline, {where})", figures.health, health, None),
        _row(f"post → waiting reader wakes ({where})", figures.wake_up, health, 3.0),
        _row(
            f"wait, one new message, {SHORT} messages ({where})", figures.short_wait, health, None
        ),
        _row(
            f"wait, one new message, {LONG:,} messages, vs {SHORT} ({where})",
            figures.long_wait,
            short,
            2.0,
        ),
    ]


def run() -> None:
    """Measure a real server in the temporary folder (and on /dev/shm) and print the table."""
    rows: list[list[str]] = []
    places: list[tuple[str, Path | None]] = [("disk", None)]
    if MEMORY_FOLDER.is_dir():
        places.append(("memory", MEMORY_FOLDER))
    for where, parent in places:
        with tempfile.TemporaryDirectory(prefix="quire-bench-chat-", dir=parent) as root:
            figures = anyio.run(measure, Path(root), backend="asyncio")
        rows += table_rows(where, figures)
    print_table(
        "Chat: latency as a ratio to the bare GET /health round trip (p50), same server; the "
        f"{LONG:,}-message wait as a ratio to the {SHORT}-message wait",
        ["path", "p50", "p95", "p50 ratio", "p95 ratio", "target (p50)", "result"],
        rows,
    )
