"""How fast ``quire mcp`` starts: spawn → ``initialize`` answered, and a cold start of both.

Targets (issue 15): spawn → ``initialize`` answered (a server running) ≤ 1.3x the SDK's no-op
server spawned the same way, alternately, in the same run; a cold start (no server yet: a
fresh state folder) → the first tool answer (``open_file``, which starts ``quire serve`` in
the background) ≤ 2 s. Each spawn is the SDK's stdio client launching the process (the
installed ``quire`` program, as an agent runs it); the clock stops when the client has the
answer.

Quire's modules are byte-compiled first, as installing the package does (pip compiles them; a
first run writes them otherwise): in an editable checkout with ``PYTHONDONTWRITEBYTECODE`` set,
every spawn would compile some 200 modules from source, a cost no installed copy pays.
"""

from __future__ import annotations

import compileall
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import anyio
import mcp_types as types

import quire
from bench.timing import percentile, progress
from mcp import Client, StdioServerParameters
from quire.settings.server_file import Found, discover

SPAWNS = 12
"""Spawns of each server for the spawn → initialize rows (alternating)."""
COLD_STARTS = 4
"""Cold starts, each with a fresh state folder (a server is started and stopped each time)."""
COLD_TARGET_MS = 2000.0
CLIENT = types.Implementation(name="quire-bench", version="1")


def _params(args: list[str], env: dict[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))


def _quire_mcp(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    """``quire mcp`` as an MCP client runs it (what ``quire setup`` registers): the installed
    ``quire`` program beside this interpreter."""
    program = Path(sys.executable).with_name("quire")
    if not program.is_file():
        raise SystemExit(f"The `quire` program is not installed beside {sys.executable}.")
    return StdioServerParameters(command=str(program), args=["mcp"], env=env, cwd=str(cwd))


async def _spawn_to_initialize(params: StdioServerParameters) -> float:
    """Milliseconds from spawning the server until its ``initialize`` answer is in."""
    start = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=120, client_info=CLIENT):
        elapsed = (time.perf_counter() - start) * 1000
    return elapsed


async def _cold_start(params: StdioServerParameters, note: Path) -> float:
    """Milliseconds from spawning ``quire mcp`` until ``open_file`` answers."""
    start = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=120, client_info=CLIENT) as c:
        result = await c.call_tool("open_file", {"path": str(note)})
        elapsed = (time.perf_counter() - start) * 1000
    if result.is_error:
        raise RuntimeError(f"open_file failed on a cold start: {result}")
    return elapsed


def _stop_started(state: Path) -> None:
    found = discover(state)
    if not isinstance(found, Found):
        return
    os.kill(found.info.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while isinstance(discover(state), Found) and time.monotonic() < deadline:
        time.sleep(0.05)


async def measure_spawns(workspace: Path, env: dict[str, str]) -> tuple[list[list[str]], float]:
    """The spawn → initialize rows (a server runs in ``env``'s state folder), and the no-op
    server's p50 (the floor the cold start is also shown against)."""
    noop = _params(["-m", "bench.noop_mcp"], env, Path.cwd())
    quire = _quire_mcp(env, workspace)
    progress("spawn → initialize: the no-op server and quire mcp, alternately")
    await _spawn_to_initialize(noop)
    await _spawn_to_initialize(quire)
    floors: list[float] = []
    samples: list[float] = []
    for _ in range(SPAWNS):
        floors.append(await _spawn_to_initialize(noop))
        samples.append(await _spawn_to_initialize(quire))
    base, p50 = percentile(floors, 0.5), percentile(samples, 0.5)
    ratio = p50 / base
    rows = [
        ["no-op server spawn → initialize (floor)", f"{base:.0f}", "1.00", "", ""],
        [
            "quire mcp spawn → initialize (server running)",
            f"{p50:.0f}",
            f"{ratio:.2f}",
            "≤ 1.3x",
            "met" if ratio <= 1.3 else "MISSED",
        ],
    ]
    return rows, base


async def measure_cold(env: dict[str, str], floor_ms: float) -> list[list[str]]:
    """The cold start row: each run has a fresh state folder, so no server runs yet. Its
    target is in milliseconds; its ratio to the no-op server's spawn (``floor_ms``) says how
    much of it is this machine's speed (the issue measured that floor at 0.7 s)."""
    samples: list[float] = []
    for index in range(COLD_STARTS):
        progress(f"cold start {index + 1}/{COLD_STARTS}: quire mcp → open_file (starts a server)")
        with tempfile.TemporaryDirectory() as folder:
            workspace, state = Path(folder) / "workspace", Path(folder) / "state"
            workspace.mkdir()
            note = workspace / "plan.md"
            note.write_text("# Plan\n\nA first line.\n", encoding="utf-8")
            cold_env = {**env, "QUIRE_HOME": str(state)}
            params = _quire_mcp(cold_env, workspace)
            try:
                samples.append(await _cold_start(params, note))
            finally:
                _stop_started(state)
    p50 = percentile(samples, 0.5)
    return [
        [
            "cold start: quire mcp spawn → open_file answered (server started)",
            f"{p50:.0f}",
            f"{p50 / floor_ms:.2f}",
            f"≤ {COLD_TARGET_MS:.0f} ms",
            "met" if p50 <= COLD_TARGET_MS else "MISSED",
        ]
    ]


def byte_compile_quire() -> None:
    """Write the bytecode of Quire's modules where Python looks for it, as an install does."""
    progress("byte-compiling Quire's modules, as installing the package does")
    if not compileall.compile_dir(Path(quire.__file__).parent, quiet=1):
        raise SystemExit("Quire's modules could not be byte-compiled; see the errors above.")


def run_spawns(workspace: Path, env: dict[str, str]) -> list[list[str]]:
    """Both start rows, spawn → initialize first (a server runs), then the cold starts."""
    byte_compile_quire()
    rows, floor_ms = anyio.run(measure_spawns, workspace, env)
    return rows + anyio.run(measure_cold, env, floor_ms)
