"""The file tree of a real ``quire serve``: listing a large workspace beside ``find``, and a file
made by another program reaching a window's ``/ws/events`` beside a bare WebSocket round trip.

Targets (issue 16): the first page of the tree (``GET /api/files?limit=1000``) within 50 ms at
100,000 notes (the first listing after a start walks every folder and is reported apart; later
ones stat each folder and walk only when one changed); a tree event within 20x a WebSocket
round trip plus the watcher's quiet step (``quire.vault.watch.STEP_MS``). The
whole tree (every page, as the window reads it) is reported beside ``find DIR -name '*.md'`` on
the same folder in the same run. ``QUIRE_BENCH_FILES`` sets the sizes (default 10000,100000).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.server import RunningServer, quire_serve
from bench.timing import percentile, print_table, progress
from quire.vault.watch import STEP_MS

SIZES_VARIABLE = "QUIRE_BENCH_FILES"
DEFAULT_SIZES = (10_000, 100_000)
NOTES_PER_FOLDER = 100
PAGE = 1000
FIRST_PAGES = 15
WHOLE_TREES = 3
FINDS = 5
EVENTS = 40
PINGS = 200
FIRST_PAGE_TARGET_MS = 50.0
EVENT_TARGET = 20.0
STEP_S = 30


def sizes() -> tuple[int, ...]:
    """The workspace sizes to measure, from QUIRE_BENCH_FILES or the defaults."""
    raw = os.environ.get(SIZES_VARIABLE, "")
    return tuple(int(part) for part in raw.split(",") if part.strip()) or DEFAULT_SIZES


def make_workspace(root: Path, notes: int) -> Path:
    """``notes`` small notes, NOTES_PER_FOLDER to a folder, two folder levels deep."""
    workspace = root / f"ws-{notes}"
    for index in range(notes):
        folder = (
            workspace / f"area-{index // 10_000:02d}" / f"topic-{index // NOTES_PER_FOLDER:04d}"
        )
        if index % NOTES_PER_FOLDER == 0:
            folder.mkdir(parents=True)
        (folder / f"note-{index:06d}.md").write_text(f"# Note {index}\n", encoding="utf-8")
    return workspace


async def _timed(call: httpx.AsyncClient, url: str) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    response = await call.get(url)
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    page: dict[str, object] = response.json()
    return elapsed, page


async def until_indexed(client: httpx.AsyncClient, notes: int) -> None:
    """Wait for the server's first index build, so it does not run beside the timings."""
    with anyio.fail_after(600):
        while True:
            response = await client.get("/api/search", params={"q": "Note", "limit": 1})
            response.raise_for_status()
            answer = response.json()
            if answer["indexed"] >= notes and not answer.get("note"):
                return
            await anyio.sleep(0.5)


async def whole_tree(client: httpx.AsyncClient) -> tuple[float, int]:
    """Seconds to read every page as the window does, and the files read."""
    start = time.perf_counter()
    cursor: object = None
    count = 0
    while True:
        query = f"/api/files?limit={PAGE}" + (f"&cursor={cursor}" if cursor else "")
        _, page = await _timed(client, query)
        files = page["files"]
        assert isinstance(files, list)
        count += len(files)
        cursor = page.get("nextCursor")
        if not cursor:
            return time.perf_counter() - start, count


def find_seconds(workspace: Path) -> float:
    """Seconds for ``find`` to list the same Markdown files."""
    start = time.perf_counter()
    subprocess.run(["find", str(workspace), "-name", "*.md"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


async def _tree_event(socket: ClientConnection, path: Path) -> None:
    with anyio.fail_after(STEP_S):
        while True:
            frame = json.loads(await socket.recv())
            if frame.get("kind") != "tree":
                continue
            changes = frame["data"]["changes"]
            if any(change["path"] == str(path) for change in changes):
                return


async def event_latency(server: RunningServer, workspace: Path) -> tuple[list[float], list[float]]:
    """Seconds from a file written by this process to its tree event, and WebSocket pings."""
    url = server.url.replace("http://", "ws://", 1) + "/ws/events"
    events: list[float] = []
    pings: list[float] = []
    async with connect(url, additional_headers=server.auth, max_size=None) as socket:
        for _ in range(20):
            await (await socket.ping())
        for _ in range(PINGS):
            start = time.perf_counter()
            await (await socket.ping())
            pings.append(time.perf_counter() - start)
        folder = workspace / "arrivals"
        folder.mkdir()
        await anyio.sleep(0.5)  # the watcher takes the new folder in before the timed files
        for index in range(EVENTS):
            path = folder / f"made-elsewhere-{index:03d}.md"
            start = time.perf_counter()
            path.write_text("# From another program\n", encoding="utf-8")
            await _tree_event(socket, path)
            events.append(time.perf_counter() - start)
            await anyio.sleep(0.1)  # one change per batch: each sample is one event
    return events, pings


async def measure(notes: int, root: Path) -> list[list[str]]:
    progress(f"{notes:,} notes: writing the workspace")
    workspace = make_workspace(root, notes)
    state = root / f"state-{notes}"
    state.mkdir()
    rows: list[list[str]] = []
    async with quire_serve(workspace, state, root / "serve.log") as server:
        async with httpx.AsyncClient(
            base_url=server.url, headers=server.auth, timeout=120
        ) as client:
            progress(f"{notes:,} notes: waiting for the search index's first build")
            await until_indexed(client, notes)
            progress(f"{notes:,} notes: first pages")
            firsts = [
                (await _timed(client, f"/api/files?limit={PAGE}"))[0] for _ in range(FIRST_PAGES)
            ]
            progress(f"{notes:,} notes: the whole tree, page by page")
            wholes = [await whole_tree(client) for _ in range(WHOLE_TREES)]
        progress(f"{notes:,} notes: find on the same folder")
        finds = [find_seconds(workspace) for _ in range(FINDS)]
        progress(f"{notes:,} notes: tree events for files made by another program")
        events, pings = await event_latency(server, workspace)
    find_p50 = percentile(finds, 0.5)
    cold = firsts[0]
    first_p50 = percentile(firsts[1:], 0.5)
    whole_p50 = percentile([seconds for seconds, _ in wholes], 0.5)
    listed = wholes[0][1]
    ping_p50 = percentile(pings, 0.5)
    event_p50 = percentile(events, 0.5)
    allowed = EVENT_TARGET * ping_p50 + STEP_MS / 1000
    rows.append([f"{notes:,}", "find -name '*.md' (baseline)", _ms(find_p50), "1.00", "", ""])
    rows.append(
        [
            f"{notes:,}",
            f"first page, cold (a walk; {PAGE} files)",
            _ms(cold),
            f"{cold / find_p50:.2f}",
            "",
            "",
        ]
    )
    rows.append(
        [
            f"{notes:,}",
            f"first page ({PAGE} files, folders unchanged)",
            _ms(first_p50),
            f"{first_p50 / find_p50:.2f}",
            f"≤ {FIRST_PAGE_TARGET_MS:.0f} ms",
            "met" if first_p50 * 1000 <= FIRST_PAGE_TARGET_MS else "MISSED",
        ]
    )
    rows.append(
        [
            f"{notes:,}",
            f"whole tree ({listed:,} files)",
            _ms(whole_p50),
            f"{whole_p50 / find_p50:.2f}",
            "",
            "",
        ]
    )
    rows.append([f"{notes:,}", "WebSocket ping (baseline)", _ms(ping_p50), "1.00", "", ""])
    rows.append(
        [
            f"{notes:,}",
            f"file made elsewhere → tree event (p95 {_ms(percentile(events, 0.95))})",
            _ms(event_p50),
            f"{event_p50 / ping_p50:.1f}",
            f"≤ 20x + {STEP_MS:.0f} ms ({_ms(allowed)})",
            "met" if event_p50 <= allowed else "MISSED",
        ]
    )
    return rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def run() -> None:
    """Measure each size and print the table."""
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="quire-bench-files-") as folder:
        for notes in sizes():
            rows += anyio.run(measure, notes, Path(folder))
    print_table(
        "The file tree: listing beside find, tree events beside a WebSocket round trip (p50)",
        ["notes", "what", "p50", "ratio to baseline", "target", "result"],
        rows,
    )
