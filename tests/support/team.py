"""A team server for tests: real multi-mode services over SQLite (or PostgreSQL), the app, and
clients signed in as accounts with the grants a test gives them.

    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=[("team", "", "write")])
        reply = await alice.api.get("/api/workspaces")          # an API token
        browser = await world.browser("alice")                  # signed in through /login

Accounts get a password (``PASSWORD``) and an API token; ``world.owner`` is a client with the
server's own token (server.json's, which multi mode still takes, as the owner).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from starlette.applications import Starlette

from quire.services.app import AppServices, open_services
from quire.services.users.team import Team
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.support.contract import check_answer_hook
from tests.support.machines import machine_under

TOKEN = "fedcba9876543210" * 4
PORT = 4747
BASE_URL = f"http://127.0.0.1:{PORT}"
PASSWORD = "correct horse battery staple"
WORKSPACE = "team"
"""The served folder's name, as grants name it."""


@dataclass
class Member:
    """An account of the test team, and a client signed in with its API token."""

    username: str
    token: str
    api: httpx.AsyncClient


@dataclass
class TeamWorld:
    """A running multi-mode app and what a test needs to sign people in."""

    workspace: Path
    services: AppServices
    app: Starlette
    owner: httpx.AsyncClient
    stack: AsyncExitStack
    members: dict[str, Member] = field(default_factory=dict)

    @property
    def team(self) -> Team:
        assert self.services.team is not None
        return self.services.team

    def client(self, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
        """A client of the app (contract-checked answers), closed with the world."""
        transport = httpx.ASGITransport(app=self.app)
        client = httpx.AsyncClient(
            transport=transport,
            base_url=BASE_URL,
            headers=headers or {},
            event_hooks={"response": [check_answer_hook]},
        )
        self.stack.push_async_callback(client.aclose)
        return client

    async def account(
        self,
        username: str,
        *,
        role: str = "collaborator",
        grants: Sequence[tuple[str, str, str]] = (),
    ) -> Member:
        """A new account with ``grants`` (workspace, prefix, access) and an API token."""
        await self.team.accounts.add(username, role=role, password=PASSWORD)  # type: ignore[arg-type]
        for workspace, prefix, access in grants:
            await self.team.grants.grant(username, workspace, prefix, access=access)
        issued = await self.team.tokens.issue(username, name="tests")
        member = Member(
            username,
            issued.token,
            self.client({"Authorization": f"Bearer {issued.token}"}),
        )
        self.members[username] = member
        return member

    async def browser(self, username: str, password: str = PASSWORD) -> httpx.AsyncClient:
        """A client signed in as ``username`` through the sign-in form, as a browser is (its
        session cookie kept in the client)."""
        client = self.client()
        form = await client.get("/login")
        assert form.status_code == 200, form.text
        match = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert match is not None
        answer = await client.post(
            "/login",
            data={"username": username, "password": password, "csrf": match.group(1)},
        )
        assert answer.status_code == 303, answer.text
        return client


@asynccontextmanager
async def team_world(
    tmp_path: Path,
    *,
    db_url: str | None = None,
    notes: dict[str, str] | None = None,
    history: bool = False,
) -> AsyncIterator[TeamWorld]:
    """A team server over a workspace named ``team`` holding ``notes`` (path: text; by
    default a welcome note, ``open/plan.md`` and ``secret/keys.md``); with ``history``, the
    workspace keeps its history in git, each save committed at once."""
    workspace = tmp_path / WORKSPACE
    workspace.mkdir()
    written = notes or {
        "welcome.md": "# Welcome\n",
        "open/plan.md": "# Plan\n\nShip it.\n",
        "secret/keys.md": "# Keys\n\nhunter2\n",
    }
    for relative, text in written.items():
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(text, encoding="utf-8")
    settings = Settings(
        workspaces=(workspace,),
        state_dir=tmp_path / "state",
        port=PORT,
        mode="multi",
        approvals_enabled=True,
        db_url=db_url,
    )
    if history:
        settings = settings.model_copy(update={"history": True, "history_window_s": 0.0})
    async with AsyncExitStack() as stack:
        services = await stack.enter_async_context(
            open_services(
                settings,
                token=TOKEN,
                clock=lambda: 1_700_000_000_000,
                machine=machine_under(tmp_path),
            )
        )
        app = create_app(services)
        await stack.enter_async_context(_lifespan(app))
        world = TeamWorld(workspace.resolve(), services, app, None, stack)  # type: ignore[arg-type]
        world.owner = world.client({"Authorization": f"Bearer {TOKEN}"})
        yield world


@asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    async with app.router.lifespan_context(app):
        yield
