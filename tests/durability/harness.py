"""A real ``quire serve`` for durability tests: started, killed with SIGKILL, restarted, called."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

PYTHON = sys.executable


class Server:
    """One ``quire serve`` process over ``workspace`` with its state in ``state``."""

    def __init__(self, workspace: Path, state: Path) -> None:
        self.workspace = workspace
        self.state = state
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.token = ""
        self.log = state.parent / f"{state.name}-serve.log"

    def start(self) -> None:
        env = {**os.environ, "QUIRE_HOME": str(self.state), "QUIRE_PORT": "0"}
        with contextlib.suppress(FileNotFoundError):
            (self.state / "server.json").unlink()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "quire.cli.main",
                    "serve",
                    "--port",
                    "0",
                    "--no-browser",
                    str(self.workspace),
                ],
                env=env,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"quire serve exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(FileNotFoundError, json.JSONDecodeError, KeyError):
                info = json.loads((self.state / "server.json").read_text())
                self.url, self.token = info["url"], info["token"]
                if self.ready():
                    return
            time.sleep(0.05)
        raise AssertionError("quire serve did not start within 30 s")

    def ready(self) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, no flush."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=30
        )


def call(client: httpx.Client, path: str, body: dict[str, Any]) -> httpx.Response:
    return client.post(path, json=body)


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """``folder`` as a tmpfs of ``size``; skips (with the reason) where it cannot be mounted."""
    folder.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): {result.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Fill ``folder``'s file system to the last byte with one file; remove it to free space."""
    filler = folder / "filler.bin"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 65536, 4096, 1):
            block = b"\0" * size
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, block)
    finally:
        os.close(fd)
    return filler
