"""Replicas: what a second and third ``quire serve`` on one PostgreSQL and one Redis cost and
bring, beside one replica, in one run.

Three real replicas (``tests.support.replicas``) on a throwaway PostgreSQL (QUIRE_TEST_POSTGRES_URL,
or one started with scripts/postgres-test-server) and a throwaway Redis.

- **Wake-up.** A reader waits on a chat (``POST /api/chats/wait``) on replica 1; a post lands
  through replica 1 (the baseline) or through replica 2 (across, by Redis). The time from
  sending the post to the wait's answer, alternating the two. Target (issue 21): across within
  2x of the same replica (p50).
- **Throughput.** 40 posters, each on a chat of its own (posts to one chat take turns
  everywhere), for a fixed time, spread over one, two and three replicas. Target: two
  replicas at least 1.6x one. The machine's cores bound it: every replica, PostgreSQL and the
  posters share them, so the figure says what this machine gives, not what more machines do.
- **An agent's edit reaches an editor.** A Yjs editor (``bench.yjs_client``) is connected to
  replica 1; an agent's edit (``POST /api/documents/edit``) goes through replica 1 (the
  baseline) or replica 2 (across: stored, announced through Redis, read back by replica 1).
  The time from sending the edit to the editor's copy holding it, alternating the two.
- **Edits per second.** ``EDITORS`` agents, each an account with a document of its own, edit
  for a fixed time through one, two and three replicas.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import anyio
import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bench.timing import percentile, print_table, progress
from bench.yjs_client import yjs_browser
from quire.settings.database import database_url
from tests.support.replicas import Cluster, MissingProgram, RedisServer, Replica, running_cluster

WAKE_UPS = 60
WARM_UP = 5
POSTERS = 40
THROUGHPUT_S = 8.0
WAKE_TARGET = 2.0
THROUGHPUT_TARGET = 1.6
EDITS = 60
EDITORS = 8
LINES = 400
ROOT = Path(__file__).resolve().parents[1]


def run() -> None:
    """Measure and print the replicas' tables (or say what is missing to run them)."""
    try:
        anyio.run(_run)
    except MissingProgram as missing:
        print(f"\n### Replicas\n\nNot measured: {missing}")


async def _run() -> None:
    with tempfile.TemporaryDirectory(prefix="quire-bench-replicas-") as folder:
        root = Path(folder)
        redis = RedisServer(root / "redis")
        async with _postgres(root) as db_url:
            progress("replicas: starting three replicas")
            async with running_cluster(root, redis, db_url, count=3) as cluster:
                token = await cluster.account("bench")
                same, across = await _wake_ups(cluster, token)
                rates = [await _throughput(cluster, token, count) for count in (1, 2, 3)]
                seen = await _edits_seen(cluster, token)
                edit_rates = await _edit_throughputs(cluster)
    _print(same, across, rates)
    _print_edits(*seen, edit_rates)


async def _wake_ups(cluster: Cluster, token: str) -> tuple[list[float], list[float]]:
    first, second = cluster.replicas[0], cluster.replicas[1]
    chat = str(cluster.workspace / "wake.md")
    same: list[float] = []
    across: list[float] = []
    async with first.client(token) as reader, second.client(token) as other:
        assert (await reader.post("/api/chats", json={"path": chat})).status_code == 200
        after = 0
        progress(f"replicas: {WAKE_UPS} wake-ups on one replica and across two")
        for round_ in range(WARM_UP + WAKE_UPS):
            for poster, samples in ((reader, same), (other, across)):
                elapsed, after = await _wake_up(reader, poster, chat, after)
                if round_ >= WARM_UP:
                    samples.append(elapsed)
    return same, across


async def _wake_up(
    reader: httpx.AsyncClient, poster: httpx.AsyncClient, chat: str, after: int
) -> tuple[float, int]:
    answered = anyio.Event()
    result: dict[str, float | int] = {}

    async def wait() -> None:
        body = {"path": chat, "as": "reader", "after": after, "timeoutMs": 30_000}
        answer = await reader.post("/api/chats/wait", json=body)
        result["at"] = time.perf_counter()
        result["next"] = answer.json()["next"]
        answered.set()

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await anyio.sleep(0.05)  # the wait is held
        sent = time.perf_counter()
        body = {"path": chat, "as": "writer", "body": "tick"}
        assert (await poster.post("/api/chats/post", json=body)).status_code == 200
        await answered.wait()
    return float(result["at"]) - sent, int(result["next"])


@dataclass(frozen=True)
class Load:
    """What a fixed time of load gave: operations per second, the replicas' CPU time per
    operation, and the share of the machine's CPU time in use."""

    rate: float
    cpu_ms: float
    busy: float


class _CpuClock:
    """CPU time of the replicas' processes and of the machine, from a start to ``done``."""

    def __init__(self, cluster: Cluster) -> None:
        self._pids = [replica.process.pid for replica in cluster.replicas]
        self._started = time.perf_counter()
        self._replicas = _process_ticks(self._pids)
        self._machine = _machine_ticks()

    def done(self, operations: int) -> Load:
        elapsed = time.perf_counter() - self._started
        ticks = _process_ticks(self._pids) - self._replicas
        busy, total = (
            now - then for now, then in zip(_machine_ticks(), self._machine, strict=True)
        )
        tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
        return Load(
            rate=operations / elapsed,
            cpu_ms=ticks * tick_ms / max(operations, 1),
            busy=busy / total if total else 0.0,
        )


def _process_ticks(pids: list[int]) -> int:
    """User and system clock ticks of the processes ``pids`` so far."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
            fields = stat.rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks


def _machine_ticks() -> tuple[int, int]:
    """The machine's busy and total clock ticks so far (/proc/stat)."""
    values = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return sum(values) - idle, sum(values)


async def _throughput(cluster: Cluster, token: str, count: int) -> Load:
    """Posts per second of ``POSTERS`` posters spread over the first ``count`` replicas."""
    progress(f"replicas: {THROUGHPUT_S:.0f} s of posts through {count} replica(s)")
    replicas = cluster.replicas[:count]
    chats = [str(cluster.workspace / f"load-{count}-{number}.md") for number in range(POSTERS)]
    async with replicas[0].client(token) as client:
        for chat in chats:
            assert (await client.post("/api/chats", json={"path": chat})).status_code == 200
    posted = 0
    ends = time.perf_counter() + THROUGHPUT_S

    async def poster(replica: Replica, chat: str) -> None:
        nonlocal posted
        async with replica.client(token) as client:
            while time.perf_counter() < ends:
                body = {"path": chat, "as": "load", "body": "a line of load"}
                answer = await client.post("/api/chats/post", json=body)
                assert answer.status_code == 200, answer.text
                posted += 1

    clock = _CpuClock(cluster)
    async with anyio.create_task_group() as group:
        for number, chat in enumerate(chats):
            group.start_soon(poster, replicas[number % count], chat)
    return clock.done(posted)


async def _open(cluster: Cluster, replica: Replica, token: str, name: str) -> str:
    """Open the new note ``name`` (``LINES`` unchecked items) as the account's document."""
    note = cluster.workspace / name
    note.write_text("".join(f"- item {i:04}\n" for i in range(LINES)), encoding="utf-8")
    async with replica.client(token) as client:
        opened = await client.post("/api/documents/open", json={"path": str(note)})
    assert opened.status_code == 200, opened.text
    doc_id: str = opened.json()["docId"]
    return doc_id


async def _edits_seen(cluster: Cluster, token: str) -> tuple[list[float], list[float]]:
    """How long an agent's edit takes to reach an editor on replica 1, made through replica 1
    and through replica 2."""
    first, second = cluster.replicas[0], cluster.replicas[1]
    doc_id = await _open(cluster, first, token, "seen.md")
    same: list[float] = []
    across: list[float] = []
    progress(f"replicas: {EDITS} agent edits seen by an editor, on its replica and across")
    async with (
        yjs_browser(first.url, doc_id, token) as editor,
        first.client(token) as near,
        second.client(token) as far,
    ):
        line = 0
        for round_ in range(WARM_UP + EDITS):
            for agent, samples in ((near, same), (far, across)):
                find, replace = f"- item {line:04}\n", f"- [x] item {line:04}\n"
                line += 1
                sent = time.perf_counter()
                answer = await agent.post(
                    "/api/documents/edit", json={"find": find, "replace": replace}
                )
                assert answer.status_code == 200, answer.text
                with anyio.fail_after(30):
                    seen = await editor.until(partial(_holds, replace))
                if round_ >= WARM_UP:
                    samples.append(seen - sent)
    return same, across


def _holds(wanted: str, text: str) -> bool:
    return wanted in text


async def _edit_throughputs(cluster: Cluster) -> list[Load]:
    progress(f"replicas: {EDITORS} accounts for the edit throughput")
    tokens = [await cluster.account(f"editor{number}") for number in range(EDITORS)]
    return [await _edit_throughput(cluster, tokens, count) for count in (1, 2, 3)]


async def _edit_throughput(cluster: Cluster, tokens: list[str], count: int) -> Load:
    """Edits per second of one agent per token, spread over the first ``count`` replicas."""
    progress(f"replicas: {THROUGHPUT_S:.0f} s of edits through {count} replica(s)")
    replicas = cluster.replicas[:count]
    for number, token in enumerate(tokens):
        await _open(cluster, replicas[0], token, f"edits-{count}-{number}.md")
    edited = 0
    ends = time.perf_counter() + THROUGHPUT_S

    async def editor(replica: Replica, token: str) -> None:
        nonlocal edited
        flip = ("- item 0000", "state: a")
        async with replica.client(token) as client:
            while time.perf_counter() < ends:
                body = {"find": flip[0], "replace": flip[1]}
                answer = await client.post("/api/documents/edit", json=body)
                assert answer.status_code == 200, answer.text
                flip = (flip[1], "state: b" if flip[1] == "state: a" else "state: a")
                edited += 1

    clock = _CpuClock(cluster)
    async with anyio.create_task_group() as group:
        for number, token in enumerate(tokens):
            group.start_soon(editor, replicas[number % count], token)
    return clock.done(edited)


def _print(same: list[float], across: list[float], rates: list[Load]) -> None:
    _print_across(
        "Replicas: a post wakes a waiting reader",
        ("post on the reader's replica", "post on another replica (Redis)"),
        same,
        across,
    )
    _print_scaling(
        f"chat posts per second, {POSTERS} posters on chats of their own", "posts/s", rates
    )


def _print_edits(same: list[float], across: list[float], rates: list[Load]) -> None:
    _print_across(
        "Replicas: an agent's edit reaches an editor on replica 1",
        ("edit through the editor's replica", "edit through another replica (Redis)"),
        same,
        across,
    )
    _print_scaling(
        f"agent edits per second, {EDITORS} agents on documents of their own", "edits/s", rates
    )


def _print_across(
    title: str, labels: tuple[str, str], same: list[float], across: list[float]
) -> None:
    same_p50, across_p50 = percentile(same, 0.5), percentile(across, 0.5)
    ratio = across_p50 / same_p50
    print_table(
        title,
        ["path", "p50 ms", "p90 ms", "ratio", "target", "met"],
        [
            [labels[0], f"{same_p50 * 1e3:.2f}", f"{percentile(same, 0.9) * 1e3:.2f}",
             "1.00x", "baseline", ""],
            [labels[1], f"{across_p50 * 1e3:.2f}", f"{percentile(across, 0.9) * 1e3:.2f}",
             f"{ratio:.2f}x", f"≤ {WAKE_TARGET:.1f}x", "yes" if ratio <= WAKE_TARGET else "no"],
        ],
    )  # fmt: skip


def _print_scaling(what: str, unit: str, loads: list[Load]) -> None:
    rows = []
    for count, load in enumerate(loads, start=1):
        scale = load.rate / loads[0].rate
        target = f"≥ {THROUGHPUT_TARGET:.1f}x" if count == 2 else ""
        met = ("yes" if scale >= THROUGHPUT_TARGET else "no") if count == 2 else ""
        rows.append(
            [str(count), f"{load.rate:.0f}", f"{scale:.2f}x", f"{load.cpu_ms:.1f}",
             f"{load.busy:.0%}", target, met]
        )  # fmt: skip
    print_table(
        f"Replicas: {what} ({os.cpu_count()} cores shared by every process)",
        ["replicas", unit, "vs one", "replica CPU ms each", "machine busy", "target", "met"],
        rows,
    )


@asynccontextmanager
async def _postgres(root: Path) -> AsyncIterator[str]:
    """An empty database on the test PostgreSQL (QUIRE_TEST_POSTGRES_URL), or on a throwaway
    cluster started for the run."""
    given = os.environ.get("QUIRE_TEST_POSTGRES_URL", "").strip()
    # Its own folder under the temporary root: as root, the script hands it to the postgres
    # account, which cannot enter the run's private folder.
    cluster = Path(tempfile.mkdtemp(prefix="quire-bench-postgres-"))
    if given:
        server = given
    else:
        progress("replicas: starting a throwaway PostgreSQL")
        started = await anyio.run_process(
            [str(ROOT / "scripts" / "postgres-test-server"), "start", str(cluster)], check=False
        )
        if started.returncode != 0:
            raise MissingProgram(started.stderr.decode(errors="replace").strip())
        server = started.stdout.decode().strip()
    try:
        engine = create_async_engine(database_url(server, root), isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as connection:
                await connection.execute(text('CREATE DATABASE "quire_bench_replicas"'))
            url = engine.url.set(database="quire_bench_replicas")
            yield url.render_as_string(hide_password=False)
            async with engine.connect() as connection:
                await connection.execute(
                    text('DROP DATABASE IF EXISTS "quire_bench_replicas" WITH (FORCE)')
                )
        finally:
            await engine.dispose()
    finally:
        if not given:
            with anyio.CancelScope(shield=True):
                await anyio.run_process(
                    [str(ROOT / "scripts" / "postgres-test-server"), "stop", str(cluster)],
                    check=False,
                )
            shutil.rmtree(cluster, ignore_errors=True)
