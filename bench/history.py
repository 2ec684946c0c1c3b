"""History: a save's round trip with history on vs off, and save → commit visible.

A repository of ``NOTES`` notes and ``COMMITS`` commits is made with ``git fast-import`` (one
commit adding every note, then one commit per note changed) and checked out. Real ``quire
serve`` processes serve it in turn over one state folder: a first one, not timed, builds the
search index; then history off and on take turns twice (the default window), and last history
on with no window (each save its own commit) gives the visibility figure: from the save's
request to the moment the note's history (``GET /api/history``) lists its new commit.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import anyio
import httpx

from bench.server import quire_serve
from bench.timing import percentile, print_table, progress

NOTES: Final = 10_000
COMMITS: Final = 10_000
SAVES: Final = 60
VISIBLE: Final = 40
WARM_UP: Final = 5
STEP_TIMEOUT_S: Final = 30.0
NOTE: Final = "notes/{:03}/n{:05}.md"


def _env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid"})
    env.update({"GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"})
    return env


def _git(repo: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, input=data, capture_output=True, env=_env(), check=True
    )
    return done.stdout.decode()


def _note(number: int) -> str:
    """A note's path: 100 notes a folder, so each commit rewrites small trees only."""
    return NOTE.format(number // 100, number)


def _blob(text: str) -> bytes:
    data = text.encode("utf-8")
    return b"data %d\n%s\n" % (len(data), data)


def fast_import_stream(notes: int, commits: int) -> Iterator[bytes]:
    """The fast-import commands of the bench repository (deterministic)."""
    when = 1_700_000_000
    yield b"commit refs/heads/main\n"
    yield b"committer Bench <bench@example.invalid> %d +0000\n" % when
    yield _blob("Add the notes")
    for number in range(notes):
        text = f"# Note {number}\n\nA line of ordinary text for note {number}.\n"
        yield b"M 100644 inline " + _note(number).encode() + b"\n" + _blob(text)
    for number in range(1, commits):
        target = number % notes
        yield b"commit refs/heads/main\n"
        yield b"committer Bench <bench@example.invalid> %d +0000\n" % (when + number)
        yield _blob(f"Change note {target}")
        text = f"# Note {target}\n\nChanged in commit {number}.\n"
        yield b"M 100644 inline " + _note(target).encode() + b"\n" + _blob(text)


def make_repository(root: Path, notes: int = NOTES, commits: int = COMMITS) -> Path:
    """A checked-out repository of ``notes`` notes and ``commits`` commits under ``root``."""
    repo = root / "workspace"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "fast-import", "--quiet", data=b"".join(fast_import_stream(notes, commits)))
    _git(repo, "reset", "-q", "--hard", "main")
    return repo


@dataclass(frozen=True)
class Run:
    """One server's samples in seconds: save round trips, and save → commit visible."""

    saves: list[float]
    visible: list[float]
    history_page: list[float]


async def _newest(client: httpx.AsyncClient, note: Path) -> str:
    """The newest commit of ``note`` as its history answers it."""
    page = await client.get("/api/history", params={"path": str(note), "limit": 1})
    page.raise_for_status()
    return str(page.json()["entries"][0]["commit"])


async def _indexed(client: httpx.AsyncClient) -> None:
    """Wait until the server's search index is built (its first build loads the machine)."""
    with anyio.fail_after(600):
        while True:
            found = await client.get("/api/search", params={"q": "note"})
            found.raise_for_status()
            if "still being built" not in str(found.json().get("note", "")):
                return
            await anyio.sleep(0.5)


async def _serve(root: Path, repo: Path, toml: str, *, visible: bool) -> Run:
    state = root / "state"
    state.mkdir(exist_ok=True)
    (state / "quire.toml").write_text(toml, encoding="utf-8")
    note = (repo / _note(7)).resolve()
    async with (
        quire_serve(repo, state, root / "server.log") as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=60) as client,
    ):
        await _indexed(client)
        opened = await client.post("/api/documents/open", json={"path": str(note)})
        opened.raise_for_status()
        counter = 0

        async def save() -> float:
            nonlocal counter
            counter += 1
            body = {"content": f"# Note 7\n\nSaved {counter} at {time.time()}.\n", "save": True}
            start = time.perf_counter()
            response = await client.post("/api/documents/set-content", json=body)
            elapsed = time.perf_counter() - start
            response.raise_for_status()
            return elapsed

        for _ in range(WARM_UP):
            await save()
        saves = [await save() for _ in range(SAVES)]
        seen: list[float] = []
        pages: list[float] = []
        if visible:
            for _ in range(VISIBLE):
                before = await _newest(client, note)
                start = time.perf_counter()
                await save()
                with anyio.fail_after(STEP_TIMEOUT_S):
                    while await _newest(client, note) == before:
                        pass  # each read is one round trip to the server
                seen.append(time.perf_counter() - start)
            for _ in range(10):
                start = time.perf_counter()
                page = await client.get("/api/history", params={"path": str(note), "limit": 20})
                page.raise_for_status()
                pages.append(time.perf_counter() - start)
    return Run(saves, seen, pages)


async def measure(root: Path) -> dict[str, Run]:
    """Build the repository, then time the three servers in turn."""
    progress(f"building a repository of {NOTES:,} notes and {COMMITS:,} commits (fast-import)")
    start = time.perf_counter()
    repo = await anyio.to_thread.run_sync(make_repository, root)
    progress(f"built in {time.perf_counter() - start:.1f} s")
    progress("a first server builds the search index (not timed)")
    await _serve(root, repo, "[history]\nenabled = false\n", visible=False)
    runs: dict[str, Run] = {}
    # Off and on take turns twice, so a slow minute of a shared machine hits both.
    for name, toml, visible in (
        ("off", "[history]\nenabled = false\n", False),
        ("on", "[history]\nenabled = true\n", False),
        ("off", "[history]\nenabled = false\n", False),
        ("on", "[history]\nenabled = true\n", False),
        ("on, no window", "[history]\nenabled = true\nwindow = 0\n", True),
    ):
        progress(f"history {name}: {WARM_UP} warm-up and {SAVES} timed saves")
        found = await _serve(root, repo, toml, visible=visible)
        if name in runs:
            found = Run([*runs[name].saves, *found.saves], found.visible, found.history_page)
        runs[name] = found
    return runs


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def run() -> None:
    """Measure and print the history table."""
    with tempfile.TemporaryDirectory(prefix="quire-bench-history-") as root:
        runs = anyio.run(measure, Path(root), backend="asyncio")
    off = percentile(runs["off"].saves, 0.5)
    rows = []
    for name, item in runs.items():
        p50, p95 = percentile(item.saves, 0.5), percentile(item.saves, 0.95)
        target = "" if name == "off" else "≤ 1.2x"
        result = "" if name == "off" else ("met" if p50 / off <= 1.2 else "MISSED")
        rows.append(
            [f"save round trip, history {name}", _ms(p50), _ms(p95), f"{p50 / off:.2f}", target,
             result]
        )  # fmt: skip
    visible = runs["on, no window"].visible
    p50, p95 = percentile(visible, 0.5), percentile(visible, 0.95)
    rows.append(
        ["save → commit visible (no window)", _ms(p50), _ms(p95), "", "p95 ≤ 1 s",
         "met" if p95 <= 1.0 else "MISSED"]
    )  # fmt: skip
    pages = runs["on, no window"].history_page
    rows.append(
        ["GET /api/history (20 commits)", _ms(percentile(pages, 0.5)),
         _ms(percentile(pages, 0.95)), "", "", ""]
    )  # fmt: skip
    print_table(
        f"History: {NOTES:,} notes, {COMMITS:,} commits; ratios to the save with history off",
        ["path", "p50", "p95", "p50 ratio", "target", "result"],
        rows,
    )
