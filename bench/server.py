"""The server against its own bare HTTP round trip: a real ``quire serve`` subprocess, timed
from a client in this process over one keep-alive connection.

Targets (issue 3), each p50 as a ratio to ``GET /health``'s p50 in the same run: an API edit
round trip within 3x, an agent edit visible at a second Yjs client within 5x, a review decision
waking a waiting call within 3x. p95 figures are reported beside them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
from anyio.abc import Process

from bench.timing import percentile, print_table, progress
from bench.yjs_client import YjsBrowser, yjs_browser
from tests.support.processes import first_line, stop_process

START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30
STEP_TIMEOUT_S = 30
WARM_UP = 30
HEALTH_CALLS = 300
EDIT_CALLS = 300
VISIBLE_EDITS = 200
REVIEWS = 200
"""Timed reviews, after WARM_UP untimed ones; together under the 256 a user keeps."""
MARKERS = ("marker-alpha", "marker-omega")
"""The two texts the timed edits swap, so every edit finds exactly one match."""

_LOGIN_LINE = re.compile(r"^Quire is running at (http://\S+?)/\?token=([0-9a-f]+)$")
_INHERITED_SETTINGS = ("QUIRE_HOST", "QUIRE_PORT", "QUIRE_DB", "DISPLAY", "WAYLAND_DISPLAY")


# A real `quire serve` in a subprocess (the tests of the real server use it too).


@dataclass(frozen=True)
class RunningServer:
    """A started ``quire serve``: its process, base URL and token."""

    process: Process
    url: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        """The header every request but /health needs."""
        return {"Authorization": f"Bearer {self.token}"}


def serve_command(workspace: Path, state_dir: Path, db_url: str | None = None) -> list[str]:
    """The command line of ``quire serve`` on a free loopback port, with no browser."""
    command = [sys.executable, "-m", "quire.cli.main", "serve", str(workspace), "--port", "0"]
    command += ["--no-browser", "--state-dir", str(state_dir)]
    return command if db_url is None else [*command, "--db", db_url]


def serve_environment(state_dir: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without settings that would steer the server, with QUIRE_HOME set."""
    kept = {key: value for key, value in environ.items() if key not in _INHERITED_SETTINGS}
    kept["QUIRE_HOME"] = str(state_dir)
    return kept


@asynccontextmanager
async def quire_serve(
    workspace: Path, state_dir: Path, log: Path, *, db_url: str | None = None
) -> AsyncIterator[RunningServer]:
    """Start ``quire serve`` and yield once it printed its login URL; its stderr is appended to
    ``log``. On exit a server still running gets SIGTERM (SIGKILL if it lingers)."""
    with log.open("ab") as errors:
        process = await anyio.open_process(
            serve_command(workspace, state_dir, db_url),
            stdout=subprocess.PIPE,
            stderr=errors,
            env=serve_environment(state_dir, os.environ),
            cwd=state_dir.parent,
        )
        try:
            line = await first_line(process)
            match = _LOGIN_LINE.match(line)
            if match is None:
                problem = await anyio.Path(log).read_text(encoding="utf-8", errors="replace")
                raise RuntimeError(f"quire serve did not start ({line!r}):\n{problem}")
            yield RunningServer(process, match.group(1), match.group(2))
        finally:
            await stop_process(process)


# The measurements.


@dataclass(frozen=True)
class Figures:
    """Samples in seconds of each measured path."""

    health: list[float]
    edit: list[float]
    visible: list[float]
    wake_up: list[float]


def note_text() -> str:
    """A 1 KB note holding the first marker once."""
    lines = ["# Bench note", "", f"The {MARKERS[0]} is swapped by every timed edit.", ""]
    number = 0
    while sum(len(line) + 1 for line in lines) < 1000:
        number += 1
        lines.append(f"- item {number:03}: a line of ordinary text for the note to carry")
    return "\n".join(lines)[:1024].rsplit("\n", 1)[0] + "\n"


async def _samples(count: int, once: Callable[[], Awaitable[float]]) -> list[float]:
    return [await once() for _ in range(count)]


class _Session:
    """The client side of one run: an HTTP client, the open note and the edit alternation."""

    def __init__(self, client: httpx.AsyncClient, note: Path) -> None:
        self.client = client
        self.note = note
        self.edits = 0
        self.reviews = 0

    async def health(self) -> float:
        start = time.perf_counter()
        response = await self.client.get("/health")
        elapsed = time.perf_counter() - start
        response.raise_for_status()
        return elapsed

    async def edit(self) -> float:
        start = time.perf_counter()
        await self._send_edit()
        return time.perf_counter() - start

    async def edit_until_visible(self, browser: YjsBrowser) -> float:
        expected = MARKERS[(self.edits + 1) % 2]
        start = time.perf_counter()
        async with anyio.create_task_group() as group:
            group.start_soon(self._send_edit)
            with anyio.fail_after(STEP_TIMEOUT_S):
                seen_at = await browser.until(lambda text: expected in text)
        return seen_at - start

    async def review_wake_up(self) -> float:
        self.reviews += 1
        requested = await self.client.post(
            "/api/reviews",
            json={"content": f"Bench review {self.reviews}", "timeout_ms": 600_000},
        )
        requested.raise_for_status()
        review_id = requested.json()["reviewId"]
        sent = anyio.Event()
        returned: list[float] = []

        async def trace(name: str, info: Mapping[str, object]) -> None:
            if name == "http11.send_request_body.complete":
                sent.set()

        async def wait() -> None:
            response = await self.client.get(
                f"/api/reviews/{review_id}/wait",
                params={"wait_ms": 60_000},
                extensions={"trace": trace},
            )
            returned.append(time.perf_counter())
            response.raise_for_status()
            if response.json().get("verdict") != "approved":
                raise RuntimeError(f"the wait returned {response.json()!r}, not approved")

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await sent.wait()
            start = time.perf_counter()
            decided = await self.client.post(
                f"/api/reviews/{review_id}/decision", json={"verdict": "approved"}
            )
            decided.raise_for_status()
        return returned[0] - start

    async def _send_edit(self) -> None:
        find, replace = MARKERS[self.edits % 2], MARKERS[(self.edits + 1) % 2]
        response = await self.client.post(
            "/api/documents/edit", json={"find": find, "replace": replace}
        )
        response.raise_for_status()
        self.edits += 1


async def measure(root: Path) -> Figures:
    """Start a server on a fresh state folder under ``root`` and time every path."""
    workspace, state = root / "workspace", root / "state"
    workspace.mkdir()
    note = workspace / "note.md"
    note.write_text(note_text(), encoding="utf-8")
    progress("starting quire serve")
    async with (
        quire_serve(workspace, state, root / "server.log") as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=60) as client,
    ):
        opened = await client.post("/api/documents/open", json={"path": str(note.resolve())})
        opened.raise_for_status()
        session = _Session(client, note)
        progress(f"GET /health: {WARM_UP} warm-up and {HEALTH_CALLS} timed calls")
        await _samples(WARM_UP, session.health)
        health = await _samples(HEALTH_CALLS, session.health)
        progress(f"POST /api/documents/edit: {EDIT_CALLS} timed edits")
        await _samples(WARM_UP, session.edit)
        edit = await _samples(EDIT_CALLS, session.edit)
        progress(f"agent edit → second Yjs client: {VISIBLE_EDITS} edits")
        async with yjs_browser(server.url, opened.json()["docId"], server.token) as browser:
            await _samples(WARM_UP, lambda: session.edit_until_visible(browser))
            visible = await _samples(VISIBLE_EDITS, lambda: session.edit_until_visible(browser))
        progress(f"review decision → waiting call: {WARM_UP} warm-up and {REVIEWS} timed reviews")
        await _samples(WARM_UP, session.review_wake_up)
        wake_up = await _samples(REVIEWS, session.review_wake_up)
        progress("stopping the server")
    return Figures(health, edit, visible, wake_up)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _ratio(value: float, baseline: float) -> str:
    return f"{value / baseline:.2f}"


def table_rows(figures: Figures) -> list[list[str]]:
    """One row per measured path: p50, p95, both as ratios to /health's p50, target, result."""
    baseline = percentile(figures.health, 0.5)
    rows = [
        [
            "GET /health (baseline)",
            _ms(baseline),
            _ms(percentile(figures.health, 0.95)),
            "1.00",
            _ratio(percentile(figures.health, 0.95), baseline),
            "",
            "",
        ]
    ]
    for name, samples, target in (
        ("API edit round trip", figures.edit, 3.0),
        ("agent edit → visible at a second Yjs client", figures.visible, 5.0),
        ("review decision → waiting call returns", figures.wake_up, 3.0),
    ):
        p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
        rows.append(
            [
                name,
                _ms(p50),
                _ms(p95),
                _ratio(p50, baseline),
                _ratio(p95, baseline),
                f"≤ {target:g}x",
                "met" if p50 / baseline <= target else "MISSED",
            ]
        )
    return rows


def run() -> None:
    """Measure a real server and print the table of ratios to its bare round trip."""
    with tempfile.TemporaryDirectory(prefix="quire-bench-") as root:
        figures = anyio.run(measure, Path(root), backend="asyncio")
    print_table(
        "Server: latency as a ratio to the bare GET /health round trip (p50), same server",
        ["path", "p50", "p95", "p50 ratio", "p95 ratio", "target (p50)", "result"],
        table_rows(figures),
    )
