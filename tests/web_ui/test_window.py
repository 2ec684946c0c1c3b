"""The window around the documents in a real browser: present mode (the person's and an
agent's), tabs, the command palette, the activity drawer, and the dark theme."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import PageFactory, Server

CHROME = (".sidebar", ".tabbar", ".statusbar", ".doc-header")


def expect_chrome(page: Page, *, shown: bool) -> None:
    for part in CHROME:
        if shown:
            expect(page.locator(part)).to_be_visible()
        else:
            expect(page.locator(part)).to_have_count(0)


def test_present_mode_hides_the_chrome_and_escape_leaves_it(page: Page, server: Server) -> None:
    page.locator(".tree-file", has_text="plan").click()
    expect(page.locator(".read-content h1")).to_have_text("The plan")
    size = page.viewport_size
    page.get_by_role("button", name="Present").click()
    expect_chrome(page, shown=False)
    expect(page.locator(".read-content h1")).to_have_text("The plan")
    expect(page.locator(".read-scroller.presenting")).to_be_visible()
    assert page.viewport_size == size
    screenshot(page, "09-present-mode")
    page.keyboard.press("Escape")
    expect_chrome(page, shown=True)
    # The window tells the server after it has shown the chrome again.
    with server.agent() as agent:
        eventually(
            lambda: agent.get("/api/window").json()["present"] is False,
            "the server to hear that present mode ended",
        )


def test_an_agent_presenting_a_document_shows_it_in_present_mode(
    page: Page, server: Server
) -> None:
    with server.agent() as agent:
        agent.post(
            "/api/window/present", json={"path": str(server.workspace / "welcome.md")}
        ).raise_for_status()
    expect_chrome(page, shown=False)
    expect(page.locator(".read-content h1")).to_have_text("Welcome")
    page.keyboard.press("Escape")
    expect_chrome(page, shown=True)
    expect(page.locator(".tab.active")).to_contain_text("welcome")


def test_an_agent_opening_a_document_shows_it_in_a_tab(page: Page, server: Server) -> None:
    with server.agent() as agent:
        agent.post(
            "/api/documents/open",
            json={"path": str(server.workspace / "notes" / "plan.md"), "mode": "edit"},
        ).raise_for_status()
    expect(page.locator(".tab.active")).to_contain_text("plan")
    expect(page.locator(".cm-content")).to_contain_text("Write the summary.")


def test_tabs_switch_and_close(page: Page) -> None:
    page.locator(".tree-file", has_text="welcome").click()
    page.locator(".tree-file", has_text="plan").click()
    expect(page.locator(".tab")).to_have_count(2)
    page.locator(".tab", has_text="welcome").click()
    expect(page.locator(".read-content h1")).to_have_text("Welcome")
    page.locator(".tab", has_text="welcome").get_by_role("button").click()
    expect(page.locator(".tab")).to_have_count(1)
    expect(page.locator(".read-content h1")).to_have_text("The plan")


def test_the_command_palette_opens_files_and_switches_views(page: Page) -> None:
    page.keyboard.press("Control+k")
    palette = page.get_by_role("dialog", name="Command palette")
    expect(palette).to_be_visible()
    page.keyboard.type("pla")
    expect(palette.locator(".palette-item.selected")).to_contain_text("plan")
    screenshot(page, "10-command-palette")
    page.keyboard.press("Enter")
    expect(palette).to_have_count(0)
    expect(page.locator(".tab.active")).to_contain_text("plan")
    page.keyboard.press("Control+k")
    page.keyboard.type(">source")
    page.keyboard.press("Enter")
    expect(page.locator(".doc-body [data-view=source]")).to_be_visible()
    expect(page.locator(".cm-lineNumbers")).to_be_visible()


def test_the_activity_drawer_lists_what_agents_changed_newest_first(
    page: Page, server: Server
) -> None:
    with server.agent() as agent:
        agent.post(
            "/api/documents/open", json={"path": str(server.workspace / "welcome.md")}
        ).raise_for_status()
        agent.post(
            "/api/documents/edit", json={"find": "Closing words", "replace": "Final words"}
        ).raise_for_status()
        agent.post(
            "/api/documents/open", json={"path": str(server.workspace / "notes" / "plan.md")}
        ).raise_for_status()
        agent.post(
            "/api/documents/edit", json={"find": "Read the notes.", "replace": "Read notes."}
        ).raise_for_status()
    expect(page.locator(".tabbar .badge")).to_have_text("2")
    page.keyboard.press("Control+b")
    items = page.locator(".activity-item")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("plan")
    expect(items.nth(1)).to_contain_text("welcome")
    expect(items.nth(0)).to_contain_text("Agent edited")
    expect(page.locator(".read-content pre.mermaid svg")).to_be_visible()
    screenshot(page, "11-activity-drawer")
    items.nth(1).click()
    expect(page.locator(".tab.active")).to_contain_text("welcome")
    page.keyboard.press("Control+b")
    expect(page.locator(".drawer")).to_have_count(0)


def test_the_dark_theme_follows_the_system(open_page: PageFactory) -> None:
    page = open_page(scheme="dark")
    page.locator(".tree-file", has_text="plan").click()
    expect(page.locator(".read-content pre.mermaid svg")).to_be_visible()
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert re.fullmatch(r"rgb\((\d+), (\d+), (\d+)\)", background)
    assert sum(int(part) for part in re.findall(r"\d+", background)) < 150
    screenshot(page, "12-dark-read-view")
    page.locator("[data-view-button=edit]").click()
    expect(page.locator(".cm-content")).to_contain_text("The plan")
    screenshot(page, "13-dark-edit-view")


def test_a_browser_without_a_session_is_asked_to_sign_in(
    open_page: PageFactory, server: Server
) -> None:
    page = open_page()
    page.context.clear_cookies()
    response = page.goto(f"{server.url}/")
    assert response is not None
    assert response.status == 401


def test_a_window_whose_session_ended_says_how_to_sign_in_again(page: Page) -> None:
    # The window settled first (its event socket open and what that fetches in): a request
    # it makes after the session ends signs it out before the click could.
    expect(page.locator(".tree-file", has_text="welcome")).to_be_visible()
    page.wait_for_load_state("networkidle")
    page.context.clear_cookies()
    page.locator(".tree-file", has_text="welcome").click()
    expect(page.get_by_role("heading", name="Log in to Quire")).to_be_visible()
    expect(page.locator(".signed-out")).to_contain_text("?token=")
