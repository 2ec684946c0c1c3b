"""Fixtures of the web tests: real services over SQLite in tmp_path, the app, an ASGI client.

The client checks every answer, and the services every event they publish, against the
contract in ``quire.api``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from quire.services.agents.machine import MachineFacts
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.support.contract import check_answer_hook
from tests.support.events import check_published
from tests.support.machines import machine_under

TOKEN = "0123456789abcdef" * 4
PORT = 4747
BASE_URL = f"http://127.0.0.1:{PORT}"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "welcome.md").write_text("# Welcome\n", encoding="utf-8")
    # Agent approvals on, so every route answers (tests of the turned-off server make their own).
    return Settings(
        workspaces=(workspace,), state_dir=tmp_path / "state", port=PORT, approvals_enabled=True
    )


@pytest.fixture
def machine(tmp_path: Path) -> MachineFacts:
    """The server's machine: a temporary home folder and PATH, never the real ones."""
    return machine_under(tmp_path)


@pytest.fixture
async def services(
    settings: Settings, machine: MachineFacts, anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[AppServices]:
    async with open_services(
        settings, token=TOKEN, clock=lambda: 1_700_000_000_000, machine=machine
    ) as opened:
        # Every event the services publish in a web test is checked against the contract.
        monkeypatch.setattr(opened.bus, "publish", check_published(opened.bus))
        yield opened


@pytest.fixture
def app(services: AppServices) -> Starlette:
    return create_app(services)


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    hooks = {"response": [check_answer_hook]}
    async with httpx.AsyncClient(
        transport=transport, base_url=BASE_URL, event_hooks=hooks
    ) as opened:
        yield opened
