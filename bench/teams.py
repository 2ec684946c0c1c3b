"""The cost of multi mode's permission checks on the hot paths, beside single mode, in one run.

Two apps in this process over the same kind of workspace and database (SQLite in a temporary
state folder): one in single mode signed in with the server's token, one in multi mode signed
in with an account's API token (write access to the whole workspace), so every multi request
pays for the token check, the grants lookup and the per-path checks. Requests go through the
whole ASGI stack (middleware included) over ``httpx.ASGITransport``: no network, so the
overhead is not hidden behind a socket round trip. Calls alternate between the two apps.

Target (issue 19): each path's p50 in multi mode within 1.2x single mode's.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx

from bench.timing import percentile, print_table, progress
from quire.services.agents.machine import MachineFacts
from quire.services.app import open_services
from quire.settings.model import Settings
from quire.web.app import create_app

TOKEN = "0123456789abcdef" * 4
PORT = 4747
WARM_UP = 30
CALLS = 300
TARGET = 1.2
NOTES = 200
MARKERS = ("marker-alpha", "marker-omega")


@dataclass
class Side:
    """One app (single or multi mode) and a client signed in to it."""

    client: httpx.AsyncClient
    note: str
    chat: str
    edits: int = 0


def _workspace(root: Path) -> Path:
    workspace = root / "team"
    for index in range(NOTES):
        note = workspace / f"area-{index // 50}" / f"note-{index:04d}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Note {index}\n\nSome text about topic {index % 17}.\n", "utf-8")
    (workspace / "plan.md").write_text(f"# Plan\n\n{MARKERS[0]} first step.\n", "utf-8")
    return workspace


def _machine(root: Path) -> MachineFacts:
    """A machine of its own (empty home, empty PATH), so no agent of this one is looked at."""
    return MachineFacts(
        environ={"PATH": str(root / "bin")},
        home=root / "home",
        argv0=sys.executable,
        executable=sys.executable,
        cwd=root,
    )


@asynccontextmanager
async def _side(root: Path, *, multi: bool) -> AsyncIterator[Side]:
    workspace = _workspace(root)
    settings = Settings(
        workspaces=(workspace,),
        state_dir=root / "state",
        port=PORT,
        mode="multi" if multi else "single",
    )
    async with AsyncExitStack() as stack:
        services = await stack.enter_async_context(
            open_services(
                settings,
                token=TOKEN,
                clock=lambda: int(time.time() * 1000),
                machine=_machine(root),
            )
        )
        app = create_app(services)
        await stack.enter_async_context(app.router.lifespan_context(app))
        token = TOKEN
        if multi:
            team = services.team
            assert team is not None
            await team.accounts.add("alice", password="correct horse battery staple")
            await team.grants.grant("alice", "team", access="write")
            token = (await team.tokens.issue("alice", name="bench")).token
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url=f"http://127.0.0.1:{PORT}",
            headers={"Authorization": f"Bearer {token}"},
        )
        stack.push_async_callback(client.aclose)
        note = str((workspace / "plan.md").resolve())
        chat = str((workspace / "room.md").resolve())
        opened = await client.post("/api/documents/open", json={"path": note})
        opened.raise_for_status()
        made = await client.post("/api/chats", json={"path": chat})
        made.raise_for_status()
        yield Side(client, note, chat)


Call = Callable[[Side], Awaitable[httpx.Response]]


async def _current(side: Side) -> httpx.Response:
    return await side.client.get("/api/documents/current")


async def _edit(side: Side) -> httpx.Response:
    find, replace = MARKERS if side.edits % 2 == 0 else MARKERS[::-1]
    side.edits += 1
    return await side.client.post(
        "/api/documents/edit", json={"find": find, "replace": replace, "path": side.note}
    )


async def _post(side: Side) -> httpx.Response:
    return await side.client.post(
        "/api/chats/post", json={"path": side.chat, "as": "bench", "body": "a short message"}
    )


async def _search(side: Side) -> httpx.Response:
    return await side.client.get("/api/search", params={"q": "topic 7"})


PATHS: tuple[tuple[str, Call], ...] = (
    ("GET /api/documents/current", _current),
    ("POST /api/documents/edit", _edit),
    ("POST /api/chats/post", _post),
    ("GET /api/search", _search),
)


async def _timed(call: Call, side: Side) -> float:
    start = time.perf_counter()
    answer = await call(side)
    took = time.perf_counter() - start
    if answer.status_code != 200:
        raise RuntimeError(f"{answer.request.url}: {answer.status_code} {answer.text[:300]}")
    return took


@dataclass(frozen=True)
class Figures:
    """Samples in seconds of one path on each side."""

    name: str
    single: list[float]
    multi: list[float]

    def ratio(self, fraction: float) -> float:
        return percentile(self.multi, fraction) / percentile(self.single, fraction)


async def measure(calls: int = CALLS, warm_up: int = WARM_UP) -> list[Figures]:
    """Time every hot path on both sides, alternating calls."""
    with tempfile.TemporaryDirectory(prefix="quire-bench-teams-") as raw:
        root = Path(raw)
        (root / "single").mkdir()
        (root / "multi").mkdir()
        async with (
            _side(root / "single", multi=False) as single,
            _side(root / "multi", multi=True) as multi,
        ):
            found = []
            for name, call in PATHS:
                progress(name)
                for _ in range(warm_up):
                    await _timed(call, single)
                    await _timed(call, multi)
                figures = Figures(name, [], [])
                for index in range(calls):
                    first, second = (single, multi) if index % 2 == 0 else (multi, single)
                    took_first = await _timed(call, first)
                    took_second = await _timed(call, second)
                    singles, multis = (
                        (figures.single, figures.multi)
                        if first is single
                        else (figures.multi, figures.single)
                    )
                    singles.append(took_first)
                    multis.append(took_second)
                found.append(figures)
            return found


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def report(found: list[Figures]) -> bool:
    """Print the table; whether every path met the target."""
    rows = []
    met = True
    for figures in found:
        ratio = figures.ratio(0.5)
        met = met and ratio <= TARGET
        rows.append(
            [
                figures.name,
                _ms(percentile(figures.single, 0.5)),
                _ms(percentile(figures.multi, 0.5)),
                f"{ratio:.2f}x",
                f"{figures.ratio(0.95):.2f}x",
                "yes" if ratio <= TARGET else "NO",
            ]
        )
    print_table(
        f"Multi mode's permission checks against single mode (p50 ratio target ≤ {TARGET}x)",
        ["path", "single p50", "multi p50", "p50 ratio", "p95 ratio", "met"],
        rows,
    )
    return met


def run() -> None:
    report(anyio.run(measure))
