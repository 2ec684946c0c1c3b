"""Fixtures of the browser tests: a real `quire serve` subprocess on a free port, Debian's
Chromium driven by Playwright, an agent's HTTP client, and screenshots for people to look at."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx
import pytest

PLAYWRIGHT_MISSING = (
    "the UI tests need Playwright for Python (pip install playwright; the browser comes "
    "from Debian: apt-get install chromium)"
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTUP_S = 60
_RUNNING = re.compile(r"Quire is running at (http://\S+?)/\?token=(\S+)")

WELCOME = """# Welcome

Quire keeps notes as plain Markdown. This paragraph is here to be read.

## Tasks

- [ ] First task
- [ ] Second task
- [x] Third task

## Agent target

The agent will change this line.

Closing words of the welcome note.
"""

PLAN = """# The plan

1. Read the notes.
2. Write the summary.

```mermaid
graph LR
  Draft --> Review --> Publish
```

The cost grows as $O(n \\log n)$, and in display form:

$$
\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}
$$
"""


@dataclass(frozen=True)
class Server:
    """A running `quire serve`: its address, token, workspace and an agent's client."""

    url: str
    token: str
    workspace: Path
    state: Path

    def agent(self, timeout: float = 30.0) -> httpx.Client:
        """An HTTP client that talks to the API the way an agent does (bearer token)."""
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=timeout,
        )

    def login_url(self) -> str:
        return f"{self.url}/?token={self.token}"


def _read_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


@pytest.fixture
def server_env() -> dict[str, str]:
    """Environment variables the server runs with on top of this process's (a test module
    overrides this fixture to give it, say, its own HOME and PATH)."""
    return {}


@pytest.fixture
def server(tmp_path: Path, server_env: dict[str, str]) -> Iterator[Server]:
    """`quire serve` on a free port over a small workspace, stopped with SIGINT afterwards."""
    with serve(tmp_path, server_env) as running:
        yield running


@contextlib.contextmanager
def serve(tmp_path: Path, server_env: dict[str, str]) -> Iterator[Server]:
    """Run `quire serve` over a small workspace in ``tmp_path`` (a module's one server)."""
    workspace = (tmp_path / "workspace").resolve()
    (workspace / "notes").mkdir(parents=True)
    (workspace / "welcome.md").write_text(WELCOME, encoding="utf-8")
    (workspace / "notes" / "plan.md").write_text(PLAN, encoding="utf-8")
    state = tmp_path / "state"
    command = [
        str(Path(sys.executable).with_name("quire")),
        "serve",
        str(workspace),
        "--port",
        "0",
        "--no-browser",
        "--state-dir",
        str(state),
    ]
    env = {**os.environ, "QUIRE_HOME": str(state), **server_env}
    with running(command, env=env, cwd=tmp_path, ready=_RUNNING) as match:
        yield Server(match.group(1), match.group(2), workspace, state)


@contextlib.contextmanager
def running(
    command: list[str], *, env: dict[str, str], cwd: Path, ready: re.Pattern[str]
) -> Iterator[re.Match[str]]:
    """Run ``command`` (a `quire serve`, its stderr in ``cwd/serve.log``) until the block ends,
    then stop it with SIGINT; yields the match of ``ready`` on the first stdout line it fits."""
    log_path = cwd / "serve.log"
    log = log_path.open("w", encoding="utf-8")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=cwd
    )
    assert process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    try:
        match = None
        deadline = time.monotonic() + STARTUP_S
        while match is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or process.poll() is not None:
                log.flush()
                pytest.fail(
                    f"quire {command[1]} did not start:\n" + log_path.read_text(encoding="utf-8")
                )
            with contextlib.suppress(queue.Empty):
                match = ready.search(lines.get(timeout=remaining))
        yield match
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=15)
        process.stdout.close()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless; the tests skip when it is not installed.

    Per module, not per session: Playwright's sync API holds an event loop in this thread
    while it runs, which the async tests of other modules could not start beside."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"The UI tests drive Debian's Chromium at {CHROMIUM}, which is missing: "
            "apt-get install chromium"
        )
    sync_api = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING)
    # Shared CI machines are slow and uneven: judge by outcome, allow time to get there.
    sync_api.expect.set_options(timeout=15_000)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


PageFactory = Callable[..., "Page"]


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    """Browser contexts a test opens (each a separate person), closed after it."""
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


@pytest.fixture
def open_page(browser: Browser, server: Server) -> Iterator[PageFactory]:
    """Makes signed-in pages (a fresh browser profile each); fails the test on page errors."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def make(
        width: int = 1280,
        height: int = 800,
        scheme: str = "light",
        before: Callable[[Page], None] | None = None,
        **options: Any,
    ) -> Page:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            color_scheme=scheme,  # type: ignore[arg-type]
            **options,
        )
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        if before is not None:
            before(page)
        page.goto(server.login_url())
        page.locator(".app").wait_for()
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == [], f"the page threw: {errors}"


@pytest.fixture
def page(open_page: PageFactory) -> Page:
    """A signed-in page at 1280x800 in the light theme."""
    return open_page()
