"""A team server (`quire serve --multi`) in a real browser: the sign-in page (a wrong password
shows the error, the right one lands in the app), and the admin page granting a workspace to an
account, which then sees the workspace's files in a second browser context."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.web_ui.conftest import WELCOME
from tests.web_ui.support import screenshot
from tests.web_ui.team import (
    PASSWORD,
    TeamServer,
    add_account,
    person,
    sign_in,
    signed_in,
    team_serve,
)

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext


@pytest.fixture(scope="module")
def team_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamServer]:
    """One team server for the module: boss (superadmin) and alice (no grants yet)."""
    base = tmp_path_factory.mktemp("team")
    workspace = (base / "team").resolve()
    (workspace / "notes").mkdir(parents=True)
    (workspace / "welcome.md").write_text(WELCOME, encoding="utf-8")
    (workspace / "shared-plan.md").write_text("# Shared plan\n", encoding="utf-8")
    (workspace / "notes" / "minutes.md").write_text("# Minutes\n", encoding="utf-8")
    state = base / "state"
    add_account(state, "boss", "superadmin")
    add_account(state, "alice", "collaborator")
    with team_serve(base, state, workspace) as running:
        yield running


def test_the_sign_in_page_shows_a_wrong_password_and_lets_the_right_one_in(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    page = person(browser, contexts, team_server)
    expect(page).to_have_url(re.compile(r"/login\?next="))
    sign_in(page, "boss", "not the password at all")
    expect(page.get_by_text("The username or password is wrong")).to_be_visible()
    screenshot(page, "team-sign-in-refused")
    sign_in(page, "boss", PASSWORD)
    page.locator(".app").wait_for()
    expect(page.locator(".team-menu")).to_contain_text("boss")


def test_the_admin_page_grants_a_workspace_and_the_account_then_sees_its_files(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    """alice, signed in before the grant, sees none of the workspace's files; the admin page's
    grant brings them into her open window (no reload)."""
    alice = signed_in(browser, contexts, team_server, "alice")
    tree = alice.locator(".tree")
    expect(tree.locator(".side-empty")).to_have_text(
        re.compile("No Markdown files"), timeout=30_000
    )
    expect(tree.locator('[role="treeitem"]')).to_have_count(0)
    for name in ("welcome", "shared-plan", "notes", "minutes"):
        expect(tree).not_to_contain_text(name)
    screenshot(alice, "team-alice-before-the-grant")

    admin = signed_in(browser, contexts, team_server, "boss")
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

    workspace = team_server.workspace
    for path in (workspace / "welcome.md", workspace / "shared-plan.md", workspace / "notes"):
        expect(tree.locator(f'[role="treeitem"][data-path="{path}"]')).to_be_visible(timeout=30_000)
    expect(tree.locator(".side-empty")).to_have_count(0)
    screenshot(alice, "team-alice-sees-files")


def test_the_account_page_makes_a_token_shown_once_and_revokes_it(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    page = person(browser, contexts, team_server)
    sign_in(page, "alice", PASSWORD)
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
