"""A team server (`quire serve --multi`) in a real browser: the sign-in page (a wrong password
shows the error, the right one lands in the app), and the admin page granting a workspace to an
account, which then sees the workspace's files in a second browser context."""

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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

import pytest

from tests.web_ui.conftest import STARTUP_S, WELCOME
from tests.web_ui.support import screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

PASSWORD = "correct horse battery staple"
_RUNNING = re.compile(r"Quire is running at (http://\S+?)/login")
QUIRE = Path(sys.executable).with_name("quire")


@dataclass(frozen=True)
class TeamServer:
    """A running `quire serve --multi` over a workspace named ``team``."""

    url: str
    workspace: Path


def _read_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def _add_account(state: Path, name: str, role: str) -> None:
    subprocess.run(
        [
            str(QUIRE),
            "user",
            "add",
            name,
            "--role",
            role,
            "--password-stdin",
            "--state-dir",
            str(state),
        ],
        input=PASSWORD + "\n",
        text=True,
        check=True,
        capture_output=True,
        env={**os.environ, "QUIRE_HOME": str(state)},
    )


@pytest.fixture(scope="module")
def team_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamServer]:
    """One team server for the module: boss (superadmin) and alice (no grants yet)."""
    base = tmp_path_factory.mktemp("team")
    workspace = (base / "team").resolve()
    (workspace / "notes").mkdir(parents=True)
    (workspace / "welcome.md").write_text(WELCOME, encoding="utf-8")
    (workspace / "shared-plan.md").write_text("# Shared plan\n", encoding="utf-8")
    state = base / "state"
    _add_account(state, "boss", "superadmin")
    _add_account(state, "alice", "collaborator")
    log = (base / "serve.log").open("w", encoding="utf-8")
    process = subprocess.Popen(
        [
            str(QUIRE),
            "serve",
            str(workspace),
            "--multi",
            "--port",
            "0",
            "--no-browser",
            "--state-dir",
            str(state),
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, "QUIRE_HOME": str(state)},
        cwd=base,
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
                    "quire serve --multi did not start:\n" + (base / "serve.log").read_text()
                )
            with contextlib.suppress(queue.Empty):
                match = _RUNNING.search(lines.get(timeout=remaining))
        yield TeamServer(match.group(1), workspace)
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


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    """Browser contexts a test opens (each a separate person), closed after it."""
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def _person(browser: Browser, contexts: list[BrowserContext], server: TeamServer) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    contexts.append(context)
    page = context.new_page()
    page.goto(server.url + "/")
    return page


def _sign_in(page: Page, username: str, password: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name=re.compile("sign in", re.IGNORECASE)).click()


def test_the_sign_in_page_shows_a_wrong_password_and_lets_the_right_one_in(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    page = _person(browser, contexts, team_server)
    expect(page).to_have_url(re.compile(r"/login\?next="))
    _sign_in(page, "boss", "not the password at all")
    expect(page.get_by_text("The username or password is wrong")).to_be_visible()
    screenshot(page, "team-sign-in-refused")
    _sign_in(page, "boss", PASSWORD)
    page.locator(".app").wait_for()
    expect(page.locator(".team-menu")).to_contain_text("boss")


def test_the_admin_page_grants_a_workspace_and_the_account_then_sees_its_files(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    admin = _person(browser, contexts, team_server)
    _sign_in(admin, "boss", PASSWORD)
    admin.locator(".app").wait_for()
    admin.locator(".team-menu").get_by_role("button", name="Admin").click()
    expect(admin.get_by_role("heading", name="Admin", level=1)).to_be_visible()
    grants = admin.get_by_role("form", name="Grant access")
    grants.locator('select[name="username"]').select_option("alice")
    grants.locator('select[name="workspace"]').select_option("team")
    grants.locator('select[name="access"]').select_option("write")
    grants.get_by_role("button", name="Grant").click()
    expect(grants.get_by_role("status")).to_have_text("Granted.")
    table = admin.get_by_role("table", name="Grants")
    expect(
        table.get_by_role("row", name=re.compile(r"alice\s+team\s+\(all of it\)\s+write"))
    ).to_be_visible()
    screenshot(admin, "team-admin-granted")

    refused = admin.get_by_role("form", name="Grant access")
    refused.get_by_label("Folder or file").fill("../outside")
    refused.get_by_role("button", name="Grant").click()
    expect(refused.get_by_role("alert")).to_contain_text("prefix")

    alice = _person(browser, contexts, team_server)
    _sign_in(alice, "alice", PASSWORD)
    alice.locator(".app").wait_for()
    expect(alice.locator(".tree").get_by_text("shared-plan", exact=False)).to_be_visible()
    screenshot(alice, "team-alice-sees-files")


def test_the_account_page_makes_a_token_shown_once_and_revokes_it(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    page = _person(browser, contexts, team_server)
    _sign_in(page, "alice", PASSWORD)
    page.locator(".app").wait_for()
    page.locator(".team-menu").get_by_role("button", name="alice").click()
    expect(page.get_by_test_id("account-username")).to_have_text("alice")
    made = page.get_by_role("form", name="Make an API token")
    made.get_by_label("Name").fill("laptop agent")
    made.get_by_label("Expires after").fill("soon")
    made.get_by_role("button", name="Make token").click()
    expect(made.get_by_role("alert")).to_contain_text("The expiry 'soon'")
    made.get_by_label("Expires after").fill("30d")
    made.get_by_role("button", name="Make token").click()
    expect(page.get_by_test_id("new-token")).to_have_text(re.compile(r"^qt_[0-9a-f]{12}_"))
    screenshot(page, "team-account-token")
    page.get_by_role("button", name="Revoke the token laptop agent").click()
    table = page.get_by_role("table", name="Your API tokens")
    expect(table.get_by_role("row", name=re.compile("laptop agent.*revoked"))).to_be_visible()
    page.get_by_role("button", name="Back to notes").click()
    page.locator(".tree").wait_for()
