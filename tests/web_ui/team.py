"""A team server (`quire serve --multi`) for the browser tests: accounts made with `quire user`
before it starts, one workspace folder named ``team``, and people signing in through the form
in browser contexts of their own."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.web_ui.conftest import running

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

PASSWORD = "correct horse battery staple"
QUIRE = Path(sys.executable).with_name("quire")
_RUNNING = re.compile(r"Quire is running at (http://\S+?)/login")


@dataclass(frozen=True)
class TeamServer:
    """A running `quire serve --multi` over a workspace named ``team``."""

    url: str
    workspace: Path


def _user(state: Path, *args: str, stdin: str | None = None) -> None:
    subprocess.run(
        [str(QUIRE), "user", *args, "--state-dir", str(state)],
        input=stdin,
        text=True,
        check=True,
        capture_output=True,
        env={**os.environ, "QUIRE_HOME": str(state)},
    )


def add_account(state: Path, name: str, role: str = "collaborator") -> None:
    _user(state, "add", name, "--role", role, "--password-stdin", stdin=PASSWORD + "\n")


def grant(state: Path, name: str, access: str = "write") -> None:
    """Give ``name`` ``access`` to the whole workspace ``team``."""
    _user(state, "grant", name, "team", "--access", access)


@contextlib.contextmanager
def team_serve(base: Path, state: Path, workspace: Path) -> Iterator[TeamServer]:
    """Run `quire serve WORKSPACE --multi` with the accounts in ``state``; SIGINT afterwards."""
    command = [
        str(QUIRE),
        "serve",
        str(workspace),
        "--multi",
        "--port",
        "0",
        "--no-browser",
        "--state-dir",
        str(state),
    ]
    env = {**os.environ, "QUIRE_HOME": str(state)}
    with running(command, env=env, cwd=base, ready=_RUNNING) as match:
        yield TeamServer(match.group(1), workspace)


def person(browser: Browser, contexts: list[BrowserContext], server: TeamServer) -> Page:
    """A fresh browser profile (one person) at the server's front page."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    contexts.append(context)
    page = context.new_page()
    page.goto(server.url + "/")
    return page


def sign_in(page: Page, username: str, password: str = PASSWORD) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name=re.compile("sign in", re.IGNORECASE)).click()


def signed_in(
    browser: Browser, contexts: list[BrowserContext], server: TeamServer, username: str
) -> Page:
    """A person's browser signed in as ``username``, the app loaded."""
    page = person(browser, contexts, server)
    sign_in(page, username)
    page.locator(".app").wait_for(timeout=30_000)
    return page
