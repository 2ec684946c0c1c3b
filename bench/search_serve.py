"""The search suite's real-server half: ``quire serve`` on the vault building its index in the
background, queries through ``quire mcp`` over stdio (the official SDK client), a write from
another program until it is searchable, and the server's RSS against a server on an empty folder.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import mcp_types as types

from bench.search_baselines import rss_bytes
from bench.server import quire_serve, serve_environment
from bench.timing import percentile, progress
from bench.vaultgen import Vault
from mcp import Client, StdioServerParameters

if TYPE_CHECKING:
    from bench.search import Row

READY_TIMEOUT_S = 900
WRITES = 40
WRITE_TIMEOUT_S = 30
CLIENT = types.Implementation(name="quire-bench-search", version="1")


@dataclass(frozen=True)
class ServerFigures:
    """The server's figures: seconds to searchable, write → searchable ms, RSS bytes."""

    ready_s: float
    writes: list[float]
    empty_rss: int
    rss: int
    peak_rss: int


async def _search(client: httpx.AsyncClient, query: str, limit: int = 1) -> dict[str, Any]:
    response = await client.get("/api/search", params={"q": query, "limit": limit})
    response.raise_for_status()
    answer: dict[str, Any] = response.json()
    return answer


async def _empty_rss(root: Path, probe: str) -> int:
    """RSS of a server on an empty folder once it has answered a few searches."""
    workspace, state = root / "empty", root / "empty-state"
    workspace.mkdir()
    async with (
        quire_serve(workspace, state, root / "empty-server.log") as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=60) as client,
    ):
        for _ in range(20):
            await _search(client, probe)
        return rss_bytes(server.process.pid)[0]


async def _until_indexed(client: httpx.AsyncClient, vault: Vault) -> None:
    with anyio.fail_after(READY_TIMEOUT_S):
        while True:
            answer = await _search(client, vault.planted.common)
            if answer["indexed"] >= vault.notes and not answer.get("note"):
                return
            await anyio.sleep(0.2)


async def _write_until_found(client: httpx.AsyncClient, vault: Vault, number: int) -> float:
    """Write a note as an editor does (temp file + rename) holding a new word; ms until a
    search finds it. Even numbers create a note, odd ones rewrite an existing one."""
    word = f"zqsaved{number:04d}"
    if number % 2 == 0:
        target = vault.root / f"Saved {number}.md"
        text = f"# Saved {number}\n\nThe word {word} is new.\n"
    else:
        target = vault.root / vault.paths[number * 97 % len(vault.paths)]
        text = target.read_text(encoding="utf-8") + f"\nThe word {word} is new.\n"
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(target)
    start = time.perf_counter()
    with anyio.fail_after(WRITE_TIMEOUT_S):
        # Another program wrote the file: asking until the answer changes is the measurement.
        while not (await _search(client, word))["hits"]:  # noqa: ASYNC110
            await anyio.sleep(0.005)
    return (time.perf_counter() - start) * 1000


async def _mcp_samples(
    state: Path, vault: Vault, rows: Sequence[Row], warmup: int, samples: int
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "quire.cli.main", "mcp"],
        env=serve_environment(state, os.environ),
        cwd=str(vault.root),
    )
    async with Client(params, mode="legacy", read_timeout_seconds=120, client_info=CLIENT) as mcp:
        for row in rows:
            progress(f"quire mcp: {row.kind.name} ({row.mode})")
            for index in range(warmup + samples):
                text = row.kind.texts[index % len(row.kind.texts)]
                arguments = {"query": text, "mode": row.mode, "limit": 50}
                start = time.perf_counter()
                result = await mcp.call_tool("search_vault", arguments)
                elapsed = (time.perf_counter() - start) * 1000
                if result.is_error:
                    raise RuntimeError(f"search_vault {arguments} failed: {result.content}")
                if index >= warmup:
                    row.mcp.append(elapsed)


async def measure(
    root: Path, vault: Vault, rows: Sequence[Row], warmup: int, samples: int
) -> ServerFigures:
    """Start a server on ``vault`` and measure its half of the suite."""
    progress("empty server: RSS baseline")
    empty_rss = await _empty_rss(root, vault.planted.common)
    state = root / "server-state"
    progress("quire serve: building the index in the background")
    start = time.perf_counter()
    async with (
        quire_serve(vault.root, state, root / "server.log") as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=60) as client,
    ):
        await _until_indexed(client, vault)
        ready_s = time.perf_counter() - start
        await _mcp_samples(state, vault, rows, warmup, samples)
        progress(f"write → searchable: {WRITES} writes")
        writes = [await _write_until_found(client, vault, number) for number in range(WRITES)]
        rss, peak = rss_bytes(server.process.pid)
    return ServerFigures(ready_s, writes, empty_rss, rss, peak)


def rows(figures: ServerFigures) -> list[list[str]]:
    """The server's rows of the build table."""
    mb = 1_000_000
    growth = (figures.rss - figures.empty_rss) / mb
    return [
        ["quire serve: start → every note searchable", f"{figures.ready_s:.1f} s", "", "", ""],
        [
            "write (temp + rename) → searchable, p50 / p95",
            f"{percentile(figures.writes, 0.5):.0f} / {percentile(figures.writes, 0.95):.0f} ms",
            "",
            "",
            "p95 ≤ 1000 ms: " + ("met" if percentile(figures.writes, 0.95) <= 1000 else "MISSED"),
        ],
        [
            "server RSS with the index loaded (peak)",
            f"{figures.rss / mb:.0f} MB ({figures.peak_rss / mb:.0f} MB)",
            f"empty folder {figures.empty_rss / mb:.0f} MB",
            f"+{growth:.0f} MB",
            "growth ≤ 300 MB: " + ("met" if growth <= 300 else "MISSED"),
        ],
    ]
