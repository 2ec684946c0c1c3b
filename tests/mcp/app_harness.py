"""The real server app in process (httpx ASGITransport) behind an MCP harness.

Tools reach the app through the same client code as over a socket; the test plays the person
through ``person`` (an API client with the token).
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from quire.client.api import QuireApi
from quire.core.server_info import ServerInfo
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.mcp.harness import Harness, make_harness
from tests.support.machines import machine_under

TOKEN = "0123456789abcdef" * 4
PORT = 4747
URL = f"http://127.0.0.1:{PORT}"


@dataclass
class AppHarness:
    """An MCP harness whose server link reaches a real app, and the person's API client."""

    mcp: Harness
    app: AppServices
    person: QuireApi


def _clock() -> int:
    return time.time_ns() // 1_000_000


@asynccontextmanager
async def app_harness(tmp_path: Path, **options: object) -> AsyncIterator[AppHarness]:
    """Open the app's services over a workspace and yield the harness; close all after."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    settings = Settings(workspaces=(workspace,), state_dir=tmp_path / "state", port=PORT)
    async with open_services(
        settings, token=TOKEN, clock=_clock, machine=machine_under(tmp_path)
    ) as services:
        transport = httpx.ASGITransport(app=create_app(services))
        info = ServerInfo(url=URL, token=TOKEN, pid=os.getpid())
        harness = make_harness(tmp_path, fixed=info, transport=transport, **options)  # type: ignore[arg-type]
        person = QuireApi(info, server_file=tmp_path / "state" / "server.json", transport=transport)
        try:
            yield AppHarness(harness, services, person)
        finally:
            await person.aclose()
            await harness.services.link.aclose()
