"""The web UI in a real browser (Debian's Chromium driven by Playwright) against a real
``quire serve``: agent edit → visible, first render of a 1 MB document, typing in Edit view
while an agent edits (a small document and one of 16 MiB), and the bundle's size.

Timings are taken in the page (``window.__quire`` hooks): an edit is sent through the HTTP API
by ``fetch`` from the page, and its visible time is when the changed text reached the editor's
or the Read view's DOM; the baseline is that same API round trip. A 1 MB document's first
render runs from the open request to the first frame painted after the view showed it.
Input latency runs from a keystroke's ``keydown`` (its event time, so time queued behind
other work counts) to the character in the editor's DOM. Targets (issue 5): the initial
bundle ≤ 400 KB gzipped; Mermaid and KaTeX loaded only by documents that need them. Issue 15:
a 16 MiB document opens in Edit without freezing the tab while an agent edits it.
"""

from __future__ import annotations

import gzip
import re
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx

from bench.corpus import generate
from bench.server import MARKERS, RunningServer, note_text, quire_serve
from bench.timing import percentile, print_table, progress

if TYPE_CHECKING:
    from playwright.async_api import Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
STATIC = Path(__file__).resolve().parents[1] / "src" / "quire" / "web" / "static"
INITIAL_TARGET_KB = 400.0
WARM_UP = 20
EDITS = 200
BIG_RUNS = 5
BIG_BYTES = 1024 * 1024
BIG_WARM_UP = 3
BIG_EDITS = 12
HUGE_BYTES = 16 * 1024 * 1024 - 4096
"""Just under the 16 MiB a document may be."""
AGENT_PACE_S = 0.1
"""The pause between two of the agent's edits while the person types."""
TYPED = " The person typed this sentence while an agent edited the end of the note."
TYPING_HEAD = "# Typing\n\nThe person types here.\n\n"
TYPING_TAIL = "\nAgent target 0.\n"
_NO_PLAYWRIGHT = "Playwright for Python is not installed (pip install playwright)."
_NO_CHROMIUM = "apt-get install chromium; never let Playwright download a browser"

PLAIN = "# Plain\n\nA document with neither diagrams nor math.\n\n- [ ] one task\n"
MATH = "# Math\n\nInline $e^{i\\pi} + 1 = 0$ and\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n"
DIAGRAM = "# Diagram\n\n```mermaid\ngraph LR\n  Draft --> Review --> Publish\n```\n"

_EDIT_SCRIPT = """
async ([find, replace, needle]) => {
  const now = () => performance.timeOrigin + performance.now();
  const shown = window.__quire.whenShown(needle);
  const start = now();
  const response = await fetch("/api/documents/edit", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({find, replace}),
  });
  const answered = now();
  if (!response.ok) throw new Error(`the edit answered ${response.status}`);
  return {api: answered - start, visible: (await shown) - start};
}
"""

_OPEN_SCRIPT = """
async ([path, view, close]) => {
  const now = () => performance.timeOrigin + performance.now();
  const first = window.__quire.whenRendered(view, "first");
  const whole = window.__quire.whenRendered(view, "whole");
  const start = now();
  const response = await fetch("/api/documents/open", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({path, mode: view}),
  });
  if (!response.ok) throw new Error(`open answered ${response.status}`);
  const opened = await response.json();
  await first;
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const painted = now() - start;
  await whole;
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const complete = now() - start;
  if (!close) return {painted, complete};
  await fetch("/api/window/close", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({docId: opened.docId}),
  });
  return {painted, complete};
}
"""

_OPEN_ONLY = """
async (path) => {
  const response = await fetch("/api/documents/open", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({path}),
  });
  if (!response.ok) throw new Error(`open answered ${response.status}`);
  return response.json();
}
"""

_CLOSE_ALL = """
async () => {
  const window = await (await fetch("/api/window")).json();
  for (const tab of window.tabs) {
    await fetch("/api/window/close", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({docId: tab.docId}),
    });
  }
}
"""

_LOADED = """
() => {
  const names = performance.getEntriesByType("resource").map((entry) => entry.name);
  performance.clearResourceTimings();
  return names;
}
"""

INPUT_LATENCY = """
() => {
  const content = document.querySelector(".cm-content");
  const state = {typed: "", pending: [], samples: []};
  window.__inputLatency = state;
  const check = () => {
    if (!state.pending.length) return;
    const text = content.textContent;
    const now = performance.now();
    state.pending = state.pending.filter(([want, start]) => {
      if (!text.includes(want)) return true;
      state.samples.push(now - start);
      return false;
    });
  };
  new MutationObserver(check).observe(
    content, {subtree: true, childList: true, characterData: true}
  );
  document.addEventListener("keydown", (event) => {
    if (event.key.length !== 1) return;
    state.typed += event.key;
    state.pending.push([state.typed, event.timeStamp]);
  }, true);
}
"""
"""Records, in the page, each keystroke's time from keydown to its character in the editor's
DOM (the bench's figures and the 16 MiB browser test's freeze check)."""

_OPEN_IN_EDIT = """
async (path) => {
  const response = await fetch("/api/documents/open", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({path, mode: "edit"}),
  });
  if (!response.ok) throw new Error(`open answered ${response.status}`);
  return response.json();
}
"""

_TIMED_GET = """
async (url) => {
  const start = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - start;
}
"""


@dataclass
class Figures:
    """Samples in milliseconds, and what the bundle weighs and loads."""

    health: list[float] = field(default_factory=list)
    edit_api: dict[str, list[float]] = field(default_factory=dict)
    visible: dict[str, list[float]] = field(default_factory=dict)
    first_render: dict[str, list[float]] = field(default_factory=dict)
    complete: dict[str, list[float]] = field(default_factory=dict)
    big_baseline: dict[str, list[float]] = field(default_factory=dict)
    typing: dict[str, list[float]] = field(default_factory=dict)
    agent_edits: dict[str, int] = field(default_factory=dict)
    chunks: dict[str, list[str]] = field(default_factory=dict)
    big_edit_api: list[float] = field(default_factory=list)
    big_visible: list[float] = field(default_factory=list)


def gzipped_kb(names: list[str]) -> float:
    """The gzipped size (level 9) of the bundle files ``names``, in KB (1,000 bytes)."""
    return sum(len(gzip.compress((STATIC / name).read_bytes(), 9)) for name in names) / 1000


def initial_assets() -> list[str]:
    """The files index.html loads before the app runs: its script, styles and preloads."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    found = re.findall(r'(?:src|href)="/(assets/[^"]+\.(?:js|css))"', html)
    return list(dict.fromkeys(found))


async def _samples(count: int, once: Callable[[], Awaitable[Any]]) -> list[Any]:
    return [await once() for _ in range(count)]


class _Run:
    """One browser page on one server."""

    def __init__(self, page: Page, workspace: Path) -> None:
        self.page = page
        self.workspace = workspace
        self.edits = 0

    async def loaded(self) -> list[str]:
        """The bundle files the page loaded since the last call (by its resource timings)."""
        names: list[str] = await self.page.evaluate(_LOADED)
        return [match.group(1) for name in names if (match := re.search(r"/(assets/[^?#]+)", name))]

    async def chunks_for(self, name: str) -> list[str]:
        """The bundle files opening ``name`` in Read view made the page load."""
        await self.loaded()
        path = str(self.workspace / name)
        opened = await self.page.evaluate(_OPEN_SCRIPT, [path, "read", False])
        assert opened["complete"] > 0
        # Diagrams and math are drawn after the first paint: wait for them to be done.
        await self.page.wait_for_function(
            "() => document.querySelector('.read-content') && !document.querySelector("
            "'pre.mermaid:not(.mermaid-drawn), .math:not([data-typeset])')"
        )
        loaded = await self.loaded()
        await self.page.evaluate(_CLOSE_ALL)
        return loaded

    async def edit_until_visible(self) -> tuple[float, float]:
        find, replace = MARKERS[self.edits % 2], MARKERS[(self.edits + 1) % 2]
        self.edits += 1
        timed = await self.page.evaluate(_EDIT_SCRIPT, [find, replace, replace])
        return float(timed["api"]), float(timed["visible"])

    async def timed_get(self, url: str) -> float:
        return float(await self.page.evaluate(_TIMED_GET, url))


async def _edits(run: _Run, figures: Figures, view: str) -> None:
    page = run.page
    await page.locator(f"[data-view-button={view}]").click()
    await page.locator(f".doc-body [data-view={view}]").wait_for()
    await page.locator(".doc-body", has_text=MARKERS[run.edits % 2]).wait_for()
    progress(f"agent edit → visible in {view} view: {WARM_UP} warm-up and {EDITS} timed edits")
    await _samples(WARM_UP, run.edit_until_visible)
    timed = await _samples(EDITS, run.edit_until_visible)
    figures.edit_api[view] = [api for api, _ in timed]
    figures.visible[view] = [visible for _, visible in timed]


async def _big_edits(run: _Run, figures: Figures) -> None:
    """Agent edits of a 1 MB document open in Read view: each swaps a marker in one block."""
    page = run.page
    await page.evaluate(_OPEN_ONLY, str(run.workspace / "big-live.md"))
    await page.locator("[data-view-button=read]").click()
    await page.locator(".doc-body [data-view=read]").wait_for()
    run.edits = 0
    await page.locator(".doc-body", has_text=MARKERS[0]).wait_for(timeout=120_000)
    progress(f"agent edit → visible in Read, 1 MB: {BIG_WARM_UP} warm-up, {BIG_EDITS} timed")
    await _samples(BIG_WARM_UP, run.edit_until_visible)
    timed = await _samples(BIG_EDITS, run.edit_until_visible)
    figures.big_edit_api = [api for api, _ in timed]
    figures.big_visible = [visible for _, visible in timed]
    await page.evaluate(_CLOSE_ALL)


async def _big(run: _Run, figures: Figures, view: str) -> None:
    progress(f"first render of a 1 MB document in {view} view: {BIG_RUNS} documents")
    painted, complete = [], []
    for number in range(BIG_RUNS):
        path = run.workspace / f"big-{view}-{number}.md"
        timed = await run.page.evaluate(_OPEN_SCRIPT, [str(path), view, True])
        painted.append(float(timed["painted"]))
        complete.append(float(timed["complete"]))
    figures.first_render[view] = painted
    figures.complete[view] = complete


async def _baselines(run: _Run, figures: Figures) -> None:
    """The server's own share of a 1 MB first render, fetched from the page: rendering the
    whole document's HTML (each a text not rendered before), and the live text the editor
    starts from."""
    renders = []
    for number in range(BIG_RUNS):
        path = str(run.workspace / f"big-base-{number}.md")
        opened = await run.page.evaluate(_OPEN_ONLY, path)
        renders.append(await run.timed_get(f"/api/documents/render?docId={opened['docId']}"))
    figures.big_baseline["read"] = renders
    figures.big_baseline["edit"] = await _samples(
        BIG_RUNS, lambda: run.timed_get("/api/documents/current")
    )
    await run.page.evaluate(_CLOSE_ALL)


async def _typing(run: _Run, figures: Figures, name: str, server: RunningServer) -> None:
    """Type ``TYPED`` into ``name`` in Edit view while an agent edits its last line through
    the API, one edit after another; keep each keystroke's input latency."""
    progress(f"typing in Edit view ({name}) while an agent edits")
    page = run.page
    await page.evaluate(_OPEN_IN_EDIT, str(run.workspace / name))
    line = page.locator(".cm-line", has_text="The person types here.")
    await line.wait_for(timeout=180_000)
    await page.evaluate(INPUT_LATENCY)
    await line.click()
    await page.keyboard.press("End")
    done = anyio.Event()
    edits = 0

    async def agent() -> None:
        nonlocal edits
        async with httpx.AsyncClient(
            base_url=server.url, headers=server.auth, timeout=120
        ) as client:
            while not done.is_set():
                find, replace = f"Agent target {edits}.", f"Agent target {edits + 1}."
                answer = await client.post(
                    "/api/documents/edit", json={"find": find, "replace": replace}
                )
                answer.raise_for_status()
                edits += 1
                # Paced like an agent working, so both documents see edits at the same rate
                # (a 16 MiB edit takes the server longer than this on its own).
                await anyio.sleep(AGENT_PACE_S)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(agent)
        await page.keyboard.type(TYPED, delay=40)
        done.set()
    await page.wait_for_function("() => window.__inputLatency.pending.length === 0", timeout=60_000)
    figures.typing[name] = list(await page.evaluate("() => window.__inputLatency.samples"))
    figures.agent_edits[name] = edits
    await page.evaluate(_CLOSE_ALL)


def _typing_text(size: int) -> str:
    """A note of about ``size`` bytes with the line the person types on at its top and the
    agent's target at its end."""
    body = generate(max(size - len(TYPING_HEAD) - len(TYPING_TAIL), 1))
    text = TYPING_HEAD + body
    while len(text.encode("utf-8")) + len(TYPING_TAIL) > size:
        text = text[: len(text) - (len(text.encode("utf-8")) + len(TYPING_TAIL) - size) - 1]
    return text.rsplit("\n", 1)[0] + TYPING_TAIL


def _workspace(root: Path) -> Path:
    workspace = root / "workspace"
    workspace.mkdir()
    (workspace / "note.md").write_text(note_text(), encoding="utf-8")
    for name, text in (("plain.md", PLAIN), ("math.md", MATH), ("diagram.md", DIAGRAM)):
        (workspace / name).write_text(text, encoding="utf-8")
    big = generate(BIG_BYTES)
    middle = big.index("## Section 600\n")
    live = f"{big[:middle]}The {MARKERS[0]} is swapped by every timed edit.\n\n{big[middle:]}"
    (workspace / "big-live.md").write_text(live, encoding="utf-8")
    for kind in ("read", "edit", "base"):
        for number in range(BIG_RUNS):
            # Each text differs, so no render is the server's remembered one.
            text = f"{big}\nThe {kind} copy number {number}.\n"
            (workspace / f"big-{kind}-{number}.md").write_text(text, encoding="utf-8")
    for name, size in (("typing-small.md", 4096), ("typing-16mib.md", HUGE_BYTES)):
        (workspace / name).write_text(_typing_text(size), encoding="utf-8")
    return workspace.resolve()


async def measure(root: Path) -> Figures:
    """Start a server and a browser under ``root`` and take every figure."""
    from playwright.async_api import async_playwright

    workspace = _workspace(root)
    figures = Figures()
    progress("starting quire serve and Chromium")
    async with (
        quire_serve(workspace, root / "state", root / "server.log") as server,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        run = _Run(page, workspace)
        await page.add_init_script("performance.setResourceTimingBufferSize(10000)")
        await page.goto(f"{server.url}/?token={server.token}")
        await page.locator(".app").wait_for()
        # The editor's code is fetched once the window is idle; let that happen first.
        await page.wait_for_function("() => window.__quire !== undefined")
        await page.wait_for_timeout(2500)
        figures.chunks["start"] = await run.loaded()
        for name in ("plain.md", "math.md", "diagram.md"):
            figures.chunks[name] = await run.chunks_for(name)
        figures.health = await _samples(EDITS, lambda: run.timed_get("/health"))
        await page.evaluate(_OPEN_ONLY, str(workspace / "note.md"))
        for view in ("edit", "read"):
            await _edits(run, figures, view)
        # With no tab left, the only view that renders next is the one being timed.
        await page.evaluate(_CLOSE_ALL)
        await _big_edits(run, figures)
        for view in ("read", "edit"):
            await _big(run, figures, view)
        await _baselines(run, figures)
        for name in ("typing-small.md", "typing-16mib.md"):
            await _typing(run, figures, name, server)
        await browser.close()
        progress("stopping the server")
    return figures


def _ms(value: float) -> str:
    return f"{value:.1f} ms"


def latency_rows(figures: Figures) -> list[list[str]]:
    """Edit → visible against the same edit's API round trip, and 1 MB first renders against
    the server's share of them."""
    health = percentile(figures.health, 0.5)
    rows = [["GET /health from the page", _ms(health), _ms(percentile(figures.health, 0.95)), ""]]
    for view in ("edit", "read"):
        api = percentile(figures.edit_api[view], 0.5)
        rows.append(
            [
                f"API edit round trip (page open in {view.title()})",
                _ms(api),
                _ms(percentile(figures.edit_api[view], 0.95)),
                "1.00 (baseline)",
            ]
        )
        visible = figures.visible[view]
        rows.append(
            [
                f"agent edit → visible in {view.title()} view",
                _ms(percentile(visible, 0.5)),
                _ms(percentile(visible, 0.95)),
                f"{percentile(visible, 0.5) / api:.2f}x the API round trip",
            ]
        )
    big_api = percentile(figures.big_edit_api, 0.5)
    big_visible = percentile(figures.big_visible, 0.5)
    rows.append(
        [
            "API edit round trip (1 MB, page open in Read)",
            _ms(big_api),
            _ms(percentile(figures.big_edit_api, 0.95)),
            "1.00 (baseline)",
        ]
    )
    rows.append(
        [
            "agent edit → visible in Read view, 1 MB",
            _ms(big_visible),
            _ms(percentile(figures.big_visible, 0.95)),
            f"{big_visible / big_api:.2f}x the API round trip (target ≤ 5x)",
        ]
    )
    for view, baseline_name in (("read", "GET render (whole 1 MB)"), ("edit", "GET current")):
        baseline = percentile(figures.big_baseline[view], 0.5)
        rows.append([f"{baseline_name} (baseline)", _ms(baseline), "", "1.00 (baseline)"])
        for label, samples in (
            (f"1 MB: open → first render painted, {view.title()}", figures.first_render[view]),
            (f"1 MB: open → whole document painted, {view.title()}", figures.complete[view]),
        ):
            p50 = percentile(samples, 0.5)
            rows.append(
                [label, _ms(p50), _ms(max(samples)), f"{p50 / baseline:.2f}x {baseline_name}"]
            )
    return rows + typing_rows(figures)


def typing_rows(figures: Figures) -> list[list[str]]:
    """Keystroke → shown in Edit view, a 16 MiB document against a small one, both while an
    agent edits them."""
    small = figures.typing["typing-small.md"]
    small_p50 = percentile(small, 0.5)
    rows = [
        [
            f"typing in Edit, 4 KB note, agent editing ({figures.agent_edits['typing-small.md']}"
            " edits): keydown → shown",
            _ms(small_p50),
            _ms(percentile(small, 0.95)),
            "1.00 (baseline)",
        ]
    ]
    huge = figures.typing["typing-16mib.md"]
    rows.append(
        [
            f"typing in Edit, 16 MiB note, agent editing ({figures.agent_edits['typing-16mib.md']}"
            " edits): keydown → shown",
            _ms(percentile(huge, 0.5)),
            _ms(percentile(huge, 0.95)),
            f"{percentile(huge, 0.5) / small_p50:.2f}x the 4 KB note",
        ]
    )
    return rows


def bundle_rows(figures: Figures) -> list[list[str]]:
    """The initial chunk's size against its target, and what each kind of document loads."""
    initial = initial_assets()
    size = gzipped_kb(initial)
    verdict = "met" if size <= INITIAL_TARGET_KB else "MISSED"
    rows = [
        [
            "initial (index.html's script and styles)",
            ", ".join(Path(name).name for name in initial),
            f"{size:.1f} KB",
            f"≤ {INITIAL_TARGET_KB:.0f} KB: {verdict}",
        ]
    ]
    editor = [item for item in figures.chunks["start"] if "EditorPane" in item]
    rows.append(
        [
            "the editor (fetched once the window is idle)",
            ", ".join(Path(name).name for name in editor),
            f"{gzipped_kb(editor):.1f} KB",
            "not in the initial chunk",
        ]
    )
    start = set(figures.chunks["start"])
    for name in ("plain.md", "math.md", "diagram.md"):
        extra = [item for item in dict.fromkeys(figures.chunks[name]) if item not in start]
        heavy = [item for item in extra if re.search(r"mermaid|katex|math", item)]
        expected = {"plain.md": False, "math.md": True, "diagram.md": True}[name]
        rows.append(
            [
                f"opening {name} loads",
                f"{len(extra)} files"
                + (f": {', '.join(Path(i).name for i in heavy[:3])}" if heavy else ""),
                f"{gzipped_kb(extra):.1f} KB",
                "as expected" if bool(heavy) == expected else "UNEXPECTED",
            ]
        )
    return rows


def run() -> None:
    """Measure the UI in Chromium and print its tables; skip when Chromium or Playwright is
    missing."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        print(f"\n### Web UI\n\nSkipped: {_NO_PLAYWRIGHT}")
        return
    if not CHROMIUM.exists():
        print(
            f"\n### Web UI\n\nSkipped: Debian's Chromium is missing at {CHROMIUM} ({_NO_CHROMIUM})."
        )
        return
    with tempfile.TemporaryDirectory(prefix="quire-bench-ui-") as root:
        figures = anyio.run(measure, Path(root), backend="asyncio")
    print_table(
        "Web UI: latency measured in the page (Chromium, loopback), ratios to a same-run baseline",
        ["path", "p50", "p95 (max for 1 MB)", "ratio (p50)"],
        latency_rows(figures),
    )
    print_table(
        "Web UI: bundle, gzipped (level 9), and what each kind of document loads",
        ["what", "files", "gzipped", "target / check"],
        bundle_rows(figures),
    )
