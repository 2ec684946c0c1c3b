"""``quire mcp`` over stdio against a no-op tool on the same SDK and transport (the floor).

Targets (issue 4): get_current_content ≤ 2x the floor's p50, edit_document on 1 KB ≤ 3x.
A real ``quire serve`` runs in a subprocess on a temp state folder; ``quire mcp`` and the
no-op server are driven by the SDK's stdio client, one call at a time.
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
from pathlib import Path
from typing import Any

import anyio

from bench.timing import percentile, print_table, progress
from mcp import Client, StdioServerParameters
from quire.client.discovery import Found, discover

CALLS = 200
WARMUP = 20
SIZES = (("1 KB", 1_000), ("1 MB", 1_000_000))


def _document(size: int) -> str:
    line = "- [ ] a line of the plan that an agent wrote and a person reads\n"
    body = line * max(1, size // len(line))
    return "# Plan\n\nMARKER-A\n\n" + body


async def _sample(call: Callable[[int], Awaitable[Any]]) -> tuple[float, float]:
    for index in range(WARMUP):
        await call(index)
    samples = []
    for index in range(CALLS):
        start = time.perf_counter()
        await call(index)
        samples.append((time.perf_counter() - start) * 1000)
    return percentile(samples, 0.5), percentile(samples, 0.95)


@asynccontextmanager
async def _client(args: list[str], env: dict[str, str], cwd: Path) -> Any:
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        yield client


def _wait_for_server(state: Path, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not isinstance(discover(state), Found):
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"quire serve did not start (exit code {server.returncode})")
        time.sleep(0.05)


async def _measure(workspace: Path, env: dict[str, str]) -> list[list[str]]:
    rows: list[list[str]] = []
    progress("no-op tool on the same SDK over stdio (floor)")
    async with _client(["-m", "bench.noop_mcp"], env, Path.cwd()) as noop:
        floor = await _sample(lambda _: noop.call_tool("noop", {}))
    rows.append(["no-op tool (floor)", f"{floor[0]:.2f}", f"{floor[1]:.2f}", "1.00", "", ""])
    async with _client(["-m", "quire.cli.main", "mcp"], env, workspace) as quire:
        for label, size in SIZES:
            note = workspace / f"plan-{size}.md"
            note.write_text(_document(size), encoding="utf-8")
            await quire.call_tool("open_file", {"path": str(note)})
            progress(f"{label}: get_current_content")
            read = await _sample(lambda _: quire.call_tool("get_current_content", {}))
            progress(f"{label}: edit_document")
            edit = await _sample(
                lambda i: quire.call_tool(
                    "edit_document",
                    {
                        "find": "MARKER-A" if i % 2 == 0 else "MARKER-B",
                        "replace": "MARKER-B" if i % 2 == 0 else "MARKER-A",
                    },
                )
            )
            for name, (p50, p95), target in (
                ("get_current_content", read, 2.0),
                ("edit_document", edit, 3.0 if size < 10_000 else None),
            ):
                ratio = p50 / floor[0]
                verdict = "" if target is None else ("met" if ratio <= target else "MISSED")
                rows.append(
                    [
                        f"{name} {label}",
                        f"{p50:.2f}",
                        f"{p95:.2f}",
                        f"{ratio:.2f}",
                        "" if target is None else f"≤ {target}",
                        verdict,
                    ]
                )
    return rows


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
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    print_table(
        "quire mcp over stdio: tools/call latency (ms) and p50 ratio to a no-op tool",
        ["call", "p50 ms", "p95 ms", "p50 ratio", "target", "result"],
        rows,
    )
