"""The headless browser exports print and draw with: found, started once, kept warm, closed
when idle.

Owns the browser process (Chrome, Chromium or Edge, over ``--remote-debugging-pipe``, in a
throwaway profile) and its lifetime: one process for repeated exports, closed after
``idle_seconds`` with no export running, and always on ``aclose``. Pages are ``tab.Tab``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from quire.core.errors import EngineMissing, ExportFailed
from quire.export.cdp import MAX_MESSAGE, Connection

BROWSER_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "microsoft-edge",
    "microsoft-edge-stable",
    "msedge",
    "brave-browser",
)
"""Programs looked for on PATH, in order, when no browser is configured."""

APP_PATHS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
    r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe",
)

INSTALL_HINT = (
    "Install a browser (`apt-get install chromium` on Debian and Ubuntu, or Google Chrome), "
    "or point the `export.browser` setting (QUIRE_BROWSER) at one."
)

_ARGUMENTS = (
    "--headless",
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--hide-scrollbars",
    "--font-render-hinting=none",
    # Nothing runs in the background of an export's browser, and nothing throttles its page.
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-features=Translate,MediaRouter,OptimizationHints,BackForwardCache",
    "--metrics-recording-only",
    "--no-service-autorun",
    "--password-store=basic",
    "about:blank",
)

# Puts the pipe's two ends on fd 3 and 4, where the browser looks for them, then runs it.
_ON_FD_3_AND_4 = (
    "import os,sys\n"
    "a,b=int(sys.argv[1]),int(sys.argv[2])\n"
    "c,d=os.dup(a),os.dup(b)\n"
    "os.dup2(c,3);os.dup2(d,4);os.set_inheritable(3,True);os.set_inheritable(4,True)\n"
    "[os.close(x) for x in {a,b,c,d}-{3,4}]\n"
    "os.execv(sys.argv[3],sys.argv[3:])\n"
)

LAUNCH_SECONDS = 30.0


def find_browser(
    configured: Path | None, *, environ: Mapping[str, str] | None = None
) -> Path | None:
    """The browser to use: ``configured`` when given (None if it is not a program), else the
    first of BROWSER_NAMES on PATH, else a usual install location."""
    if configured is not None:
        return configured if _is_program(configured) else None
    path = (environ if environ is not None else os.environ).get("PATH")
    for name in BROWSER_NAMES:
        found = shutil.which(name, path=path)
        if found is not None:
            return Path(found)
    for candidate in APP_PATHS:
        if _is_program(Path(candidate)):
            return Path(candidate)
    return None


def _is_program(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


class Browser:
    """One headless browser, started on first use and kept for ``idle_seconds`` after."""

    def __init__(self, executable: Path, *, idle_seconds: float = 60.0) -> None:
        self.executable = executable
        self.idle_seconds = idle_seconds
        self._process: asyncio.subprocess.Process | None = None
        self._connection: Connection | None = None
        self._profile: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._busy = 0
        self._idle: asyncio.TimerHandle | None = None
        self._stopping: asyncio.Task[None] | None = None
        self.launches = 0
        """How many times a process was started (a warm export starts none)."""

    @property
    def pid(self) -> int | None:
        """The process id of the browser started last, while this object holds it."""
        return self._process.pid if self._process is not None else None

    @property
    def is_running(self) -> bool:
        """Whether a browser process is up and its pipe open."""
        return self._connection is not None and not self._connection.is_closed

    async def acquire(self) -> Connection:
        """The pipe of a running browser (starting one if needed), held until ``release``."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._kill_now()
            self._loop, self._lock = loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            if self._idle is not None:
                self._idle.cancel()
                self._idle = None
            if not self.is_running:
                await self._finish_idle_close()
                await self._stop()
                await self._start()
            self._busy += 1
        assert self._connection is not None
        return self._connection

    def release(self) -> None:
        """End one ``acquire``; the browser closes ``idle_seconds`` after the last one."""
        self._busy -= 1
        if self._busy == 0 and self._loop is not None:
            self._idle = self._loop.call_later(self.idle_seconds, self._close_if_idle)

    async def aclose(self) -> None:
        """Close the browser now (exports running get ExportFailed)."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if self._loop is asyncio.get_running_loop():
            await self._finish_idle_close()
            await self._stop()
        else:
            self._kill_now()

    def _close_if_idle(self) -> None:
        self._idle = None
        if self._busy == 0 and self._loop is not None:
            task = self._loop.create_task(self._stop())
            task.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._stopping = task

    async def _finish_idle_close(self) -> None:
        """Wait for an idle close still under way, so its process is reaped on this loop
        (a loop that ends first leaves the browser running, unreaped)."""
        task, self._stopping = self._stopping, None
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await task

    async def _start(self) -> None:
        self._profile = tempfile.mkdtemp(prefix="quire-browser-")
        to_browser_read, to_browser_write = os.pipe()
        from_browser_read, from_browser_write = os.pipe()
        arguments: Sequence[str] = (
            f"--user-data-dir={self._profile}",
            *(("--no-sandbox",) if _is_root() else ()),
            *_ARGUMENTS,
        )
        try:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                _ON_FD_3_AND_4,
                str(to_browser_read),
                str(from_browser_write),
                str(self.executable),
                *arguments,
                pass_fds=(to_browser_read, from_browser_write),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            for fd in (to_browser_read, to_browser_write, from_browser_read, from_browser_write):
                os.close(fd)
            raise EngineMissing(
                f"Cannot start the browser '{self.executable}': {exc.strerror}. {INSTALL_HINT}"
            ) from None
        finally:
            with contextlib.suppress(OSError):
                os.close(to_browser_read)
                os.close(from_browser_write)
        self.launches += 1
        self._connection = await self._connect(from_browser_read, to_browser_write)

    async def _connect(self, read_fd: int, write_fd: int) -> Connection:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_MESSAGE)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
        )
        transport, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(write_fd, "wb", buffering=0)
        )
        connection = Connection(reader, transport)
        try:
            async with asyncio.timeout(LAUNCH_SECONDS):
                await connection.call("Browser.getVersion")
        except (TimeoutError, ExportFailed):
            await connection.close()
            await self._stop()
            raise ExportFailed(
                f"The browser '{self.executable}' did not start within {LAUNCH_SECONDS:.0f} "
                f"seconds, or exited at once. Check that it runs (`{self.executable} --version`)"
                f", or set `export.browser` to another one."
            ) from None
        return connection

    async def _stop(self) -> None:
        connection, process = self._connection, self._process
        self._connection = self._process = None
        if connection is not None:
            with contextlib.suppress(ExportFailed):
                async with asyncio.timeout(5):
                    await connection.call("Browser.close")
            await connection.close()
        if process is not None:
            try:
                async with asyncio.timeout(5):
                    await process.wait()
            except TimeoutError:
                _kill_group(process.pid)
                await process.wait()
        self._remove_profile()

    def _kill_now(self) -> None:
        """Stop a browser started on another (finished) event loop, without awaiting it."""
        if self._process is not None and self._process.returncode is None:
            _kill_group(self._process.pid)
        self._process = None
        self._connection = None
        self._remove_profile()

    def _remove_profile(self) -> None:
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
