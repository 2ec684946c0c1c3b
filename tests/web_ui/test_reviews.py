"""The review panel in a real browser: an agent's waiting review call returns the person's
answer (Approve, Request changes with comments, Dismiss), on a desktop and a phone screen."""

from __future__ import annotations

import concurrent.futures
from typing import TYPE_CHECKING, Any

import pytest

from tests.web_ui.support import screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import PageFactory, Server


def request_review(server: Server, **body: Any) -> str:
    with server.agent() as agent:
        response = agent.post("/api/reviews", json={"timeout_ms": 120_000, **body})
        response.raise_for_status()
        review_id: str = response.json()["reviewId"]
        return review_id


def wait_for_verdict(server: Server, review_id: str) -> dict[str, Any]:
    with server.agent(timeout=60) as agent:
        response = agent.get(f"/api/reviews/{review_id}/wait", params={"wait_ms": 45_000})
        response.raise_for_status()
        outcome: dict[str, Any] = response.json()
        return outcome


def test_approve_returns_the_agents_waiting_call_with_approved(page: Page, server: Server) -> None:
    path = server.workspace / "notes" / "plan.md"
    review_id = request_review(server, path=str(path), requested_by="claude")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(wait_for_verdict, server, review_id)
        panel = page.locator(".review-panel")
        expect(panel).to_contain_text("claude")
        expect(panel).to_contain_text("plan")
        expect(panel.locator(".countdown-text")).to_contain_text("left")
        expect(page.locator(".tab.active")).to_contain_text("plan")
        expect(page.locator(".read-content pre.mermaid svg")).to_be_visible()
        screenshot(page, "06-review-panel")
        assert not waiting.done()
        panel.get_by_role("button", name="Approve", exact=True).click()
        outcome = waiting.result(timeout=30)
    assert outcome["verdict"] == "approved"
    assert outcome["reviewId"] == review_id
    expect(page.locator(".review-outcome")).to_contain_text("Approved")


def test_request_changes_carries_the_comment_and_inline_content_shows_as_text(
    page: Page, server: Server
) -> None:
    content = "# Release notes\n\n- Faster saves\n- A **bold** claim\n"
    review_id = request_review(server, content=content, requested_by="codex")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(wait_for_verdict, server, review_id)
        panel = page.locator(".review-panel")
        expect(panel.locator(".review-text")).to_have_text(content)
        panel.get_by_label("Review comments").fill("Say which saves got faster.")
        panel.get_by_role("button", name="Request changes", exact=True).click()
        outcome = waiting.result(timeout=30)
    assert outcome["verdict"] == "changes_requested"
    assert outcome["comments"] == "Say which saves got faster."


def test_dismiss_answers_dismissed(page: Page, server: Server) -> None:
    review_id = request_review(server, content="A short note to look at.")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(wait_for_verdict, server, review_id)
        page.locator(".review-panel").get_by_role("button", name="Dismiss", exact=True).click()
        outcome = waiting.result(timeout=30)
    assert outcome["verdict"] == "dismissed"


def test_the_panel_has_exactly_the_three_answers(page: Page, server: Server) -> None:
    request_review(server, content="Three buttons, no more.")
    buttons = page.locator(".review-actions button")
    expect(buttons).to_have_text(["Approve", "Request changes", "Dismiss"])


def test_a_newer_review_supersedes_the_shown_one_and_the_panel_says_so(
    page: Page, server: Server
) -> None:
    first = request_review(server, content="First version.", requested_by="claude")
    expect(page.locator(".review-text")).to_have_text("First version.")
    request_review(server, content="Second version.", requested_by="claude")
    expect(page.locator(".review-text")).to_have_text("Second version.")
    expect(page.locator(".review-panel")).to_contain_text("superseded")
    outcome = wait_for_verdict(server, first)
    assert outcome["verdict"] == "superseded"


def test_review_and_reading_work_on_a_phone_screen(open_page: PageFactory, server: Server) -> None:
    page = open_page(width=390, height=844, is_mobile=True, has_touch=True)
    expect(page.locator(".sidebar")).not_to_be_in_viewport()
    page.get_by_role("button", name="Toggle sidebar").click()
    page.locator(".tree-file", has_text="welcome").click()
    expect(page.locator(".read-content h1")).to_have_text("Welcome")
    expect(page.locator(".sidebar")).not_to_be_in_viewport()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    screenshot(page, "07-phone-read")
    review_id = request_review(server, path=str(server.workspace / "welcome.md"))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(wait_for_verdict, server, review_id)
        panel = page.locator(".review-panel")
        approve = panel.get_by_role("button", name="Approve", exact=True)
        expect(approve).to_be_in_viewport()
        screenshot(page, "08-phone-review")
        panel.locator(".review-head h2").click()
        expect(approve).to_be_hidden()
        expect(page.locator(".read-content h2", has_text="Agent target")).to_be_in_viewport()
        panel.locator(".review-head h2").click()
        approve.click()
        assert waiting.result(timeout=30)["verdict"] == "approved"


def test_a_decision_after_the_time_ran_out_is_recorded_as_late(page: Page, server: Server) -> None:
    review_id = request_review(server, content="Quick look, please.", timeout_ms=5_000)
    panel = page.locator(".review-panel")
    expect(panel.locator(".review-text")).to_have_text("Quick look, please.")
    outcome = wait_for_verdict(server, review_id)
    assert outcome["verdict"] == "timeout"
    expect(panel.locator(".countdown-text")).to_have_text("Time is up")
    expect(panel).to_contain_text("recorded as a late decision")
    panel.get_by_role("button", name="Approve", exact=True).click()
    expect(page.locator(".review-outcome")).to_contain_text("late decision")
    with server.agent() as agent:
        record = agent.get(f"/api/reviews/{review_id}").json()
    assert record["verdict"] == "approved"
    assert record["late"] is True
