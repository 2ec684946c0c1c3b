"""Programs a test (or a benchmark) starts: reading the first line one prints, and stopping one
the way a service manager does (SIGTERM, then SIGKILL if it lingers)."""

from __future__ import annotations

import subprocess
import sys

import anyio
from anyio.abc import Process

START_TIMEOUT_S = 60
"""How long a program may take to print its first line."""
STOP_TIMEOUT_S = 30
"""How long a program may take to stop after SIGTERM before it is killed."""


async def first_line(process: Process) -> str:
    """The first line ``process`` prints on its stdout (what it printed, if it ends before)."""
    assert process.stdout is not None
    buffer = b""
    with anyio.fail_after(START_TIMEOUT_S):
        while b"\n" not in buffer:
            try:
                buffer += await process.stdout.receive()
            except anyio.EndOfStream:
                break
    return buffer.split(b"\n", 1)[0].decode(errors="replace")


async def stop_process(process: Process) -> None:
    """Stop ``process``: SIGTERM, SIGKILL after ``STOP_TIMEOUT_S``; shielded from cancellation."""
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            process.terminate()
            with anyio.move_on_after(STOP_TIMEOUT_S):
                await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
        await process.aclose()


def python_prints(code: str) -> str:
    """What a fresh Python process (this interpreter) running ``code`` prints on stdout; a
    failure raises with its stderr. A fresh process sees imports and settings as a program
    starting does, untouched by what this test process has loaded."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout
