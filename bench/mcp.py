"""``quire mcp`` over stdio against a no-op tool on the same SDK and transport (the floor).

Targets (issue 15): get_current_content 1 KB ≤ 1.3x the floor's p50, edit_document 1 KB ≤ 1.8x;
the start rows are bench/mcp_start.py's.
For the 1 MB document the floor that means something is a no-op tool answering the same
1 MB (the SDK and the pipe alone spend tens of milliseconds carrying it), so that row is
judged against it and its ratio to the empty no-op is shown beside it.
The throughput row runs N agents' edits at once on the open note, straight through the HTTP API
that ``quire mcp`` calls (N ``quire mcp`` processes would mostly measure process switching on a
small machine; the API edits only the window's open document, so they share one note). It
prints edits per second and the latency of one edit.
A real ``quire serve`` runs in a subprocess on a temp state folder; ``quire mcp`` and the
no-op server are driven by the SDK's stdio client, one call at a time. Each measured call
alternates with a no-op call, so both see the same load on a shared machine; every ratio is
to the p50 of all those no-op calls.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types

from bench.mcp_start import run_spawns
from bench.timing import percentile, print_table, progress
from mcp import Client, StdioServerParameters
from quire.settings.server_file import Found, discover

CALLS = 300
WARMUP = 30
BIG_CALLS = 60
"""Calls per 1 MB row: each takes tens of milliseconds."""
SIZES = (("1 KB", 1_000), ("1 MB", 1_000_000))
CLIENT = types.Implementation(name="quire-bench", version="1")
AGENTS = 16
"""Edits at once in the throughput rows."""
AGENT_EDITS = 40
"""Edits per agent in a throughput row (after a warm-up of a few)."""


def _document(size: int) -> str:
    line = "- [ ] a line of the plan that an agent wrote and a person reads\n"
    body = line * max(1, size // len(line))
    return "# Plan\n\nMARKER-A\n\n" + body


async def _timed(call: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    result = await call()
    elapsed = (time.perf_counter() - start) * 1000
    if getattr(result, "is_error", False):
        raise RuntimeError(f"a measured call failed: {result}")
    return elapsed


async def _sample(
    call: Callable[[int], Awaitable[Any]],
    floor: Callable[[], Awaitable[Any]],
    calls: int,
    floors: list[float],
) -> list[float]:
    """``calls`` timings of ``call`` (ms), each after a timed no-op call added to ``floors``."""
    for index in range(WARMUP):
        await floor()
        await call(index)
    samples: list[float] = []
    for index in range(calls):
        floors.append(await _timed(floor))
        samples.append(await _timed(partial(call, index)))
    return samples


@asynccontextmanager
async def _client(args: list[str], env: dict[str, str], cwd: Path) -> Any:
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))
    async with Client(
        params, mode="legacy", read_timeout_seconds=120, client_info=CLIENT
    ) as client:
        yield client


def _wait_for_server(state: Path, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not isinstance(discover(state), Found):
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"quire serve did not start (exit code {server.returncode})")
        time.sleep(0.05)


def _edit(quire: Client) -> Callable[[int], Awaitable[Any]]:
    async def edit(index: int) -> Any:
        a, b = ("MARKER-A", "MARKER-B") if index % 2 == 0 else ("MARKER-B", "MARKER-A")
        return await quire.call_tool("edit_document", {"find": a, "replace": b})

    return edit


def _read(quire: Client) -> Callable[[int], Awaitable[Any]]:
    async def read(index: int) -> Any:
        return await quire.call_tool("get_current_content", {})

    return read


Measured = tuple[str, list[float], float | None, float | None]
"""A row: name, samples, target ratio, and the floor it is judged against (None: the no-op)."""


def _sized(noop: Client, size: int) -> Callable[[int], Awaitable[Any]]:
    async def carry(index: int) -> Any:
        return await noop.call_tool("sized", {"chars": size})

    return carry


async def _measure(workspace: Path, env: dict[str, str]) -> list[list[str]]:
    measured: list[Measured] = []
    floors: list[float] = []
    async with (
        _client(["-m", "bench.noop_mcp"], env, Path.cwd()) as noop,
        _client(["-m", "quire.cli.main", "mcp"], env, workspace) as quire,
    ):

        async def floor() -> Any:
            return await noop.call_tool("noop", {})

        for label, size in SIZES:
            note = workspace / f"plan-{size}.md"
            note.write_text(_document(size), encoding="utf-8")
            await quire.call_tool("open_file", {"path": str(note)})
            calls = CALLS if size < 10_000 else BIG_CALLS
            progress(f"{label}: get_current_content, alternating with the no-op tool")
            reads = await _sample(_read(quire), floor, calls, floors)
            sized_floor: float | None = None
            if size >= 10_000:
                progress(f"{label}: the no-op tool answering {label}")
                carried = await _sample(_sized(noop, size), floor, calls, floors)
                sized_floor = percentile(carried, 0.5)
                measured.append((f"no-op answering {label} (its floor)", carried, None, None))
            measured.append((f"get_current_content {label}", reads, 1.3, sized_floor))
            progress(f"{label}: edit_document, alternating with the no-op tool")
            edits = await _sample(_edit(quire), floor, calls, floors)
            measured.append((f"edit_document {label}", edits, 1.8 if size < 10_000 else None, None))
    return _rows(floors, measured)


def _rows(floors: list[float], measured: list[Measured]) -> list[list[str]]:
    base = percentile(floors, 0.5)
    p95 = f"{percentile(floors, 0.95):.2f}"
    rows = [["no-op tool (floor)", f"{base:.2f}", p95, "1.00", "", "", ""]]
    for name, samples, target, own_floor in measured:
        p50 = percentile(samples, 0.5)
        judged = p50 / (own_floor or base)
        verdict = "" if target is None else ("met" if judged <= target else "MISSED")
        rows.append(
            [
                name,
                f"{p50:.2f}",
                f"{percentile(samples, 0.95):.2f}",
                f"{p50 / base:.2f}",
                "" if own_floor is None else f"{judged:.2f}",
                "" if target is None else f"≤ {target}",
                verdict,
            ]
        )
    return rows


async def _agents(workspace: Path, state: Path) -> list[list[str]]:
    """The throughput row: ``AGENTS`` agents editing the open note at once."""
    found = discover(state)
    assert isinstance(found, Found)
    headers = {"Authorization": f"Bearer {found.info.token}"}
    limits = httpx.Limits(max_connections=AGENTS * 2)
    shared = [workspace / "agents.md"] * AGENTS
    async with httpx.AsyncClient(
        base_url=found.info.url, headers=headers, timeout=120, limits=limits
    ) as client:
        return [await _agents_row(client, f"{AGENTS} agents at once, the open note", shared)]


async def _agents_row(client: httpx.AsyncClient, label: str, notes: list[Path]) -> list[str]:
    """Agent n edits ``notes[n]``: a warm-up of 3 edits each, then ``AGENT_EDITS`` timed."""
    for note in dict.fromkeys(notes):
        note.write_text("# Log\n", encoding="utf-8")
        answer = await client.post("/api/documents/open", json={"path": str(note)})
        answer.raise_for_status()
    latencies: list[float] = []

    async def agent(n: int, count: int, timed: bool) -> None:
        for k in range(count):
            body = {"path": str(notes[n]), "find": "# Log\n", "replace": f"# Log\n{n}-{k}\n"}
            start = time.perf_counter()
            answer = await client.post("/api/documents/edit", json=body)
            answer.raise_for_status()
            if timed:
                latencies.append((time.perf_counter() - start) * 1000)

    progress(label)
    async with anyio.create_task_group() as group:
        for n in range(len(notes)):
            group.start_soon(agent, n, 3, False)
    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for n in range(len(notes)):
            group.start_soon(agent, n, AGENT_EDITS, True)
    elapsed = time.perf_counter() - start
    return [
        label,
        f"{len(latencies) / elapsed:.0f}",
        f"{percentile(latencies, 0.5):.2f}",
        f"{percentile(latencies, 0.95):.2f}",
    ]


def run() -> None:
    """Measure and print the MCP table."""
    with tempfile.TemporaryDirectory() as folder:
        workspace, state = Path(folder) / "workspace", Path(folder) / "state"
        workspace.mkdir()
        env = {**os.environ, "QUIRE_HOME": str(state)}
        command = [sys.executable, "-m", "quire.cli.main", "serve", "--port", "0"]
        server = subprocess.Popen(
            [*command, "--no-browser", str(workspace)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_server(state, server)
            rows = anyio.run(_measure, workspace, env)
            agent_rows = anyio.run(_agents, workspace, state)
            start_rows = run_spawns(workspace, env)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    print_table(
        "quire mcp over stdio: tools/call latency (ms) and p50 ratio to a no-op tool "
        "(measured alternately, in the same run)",
        [
            "call",
            "p50 ms",
            "p95 ms",
            "ratio to no-op",
            "ratio to same-size no-op",
            "target",
            "result",
        ],
        rows,
    )
    print_table(
        "quire mcp start (ms, p50): spawn → initialize against the SDK no-op server spawned "
        "alternately in the same run, and a cold start with no server yet",
        ["start", "p50 ms", "ratio to no-op", "target", "result"],
        start_rows,
    )
    print_table(
        f"edits through the HTTP API, {AGENTS} agents at once ({AGENT_EDITS} edits each): "
        "throughput and latency of one edit",
        ["agents", "edits/s", "p50 ms", "p95 ms"],
        agent_rows,
    )
