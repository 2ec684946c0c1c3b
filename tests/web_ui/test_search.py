"""The window's search in a real browser against a real `quire serve`: typing shows each file
with its matching lines, a click opens the document at that line (in Read and in Edit view),
the command palette searches too, and unreadable files are named."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.web_ui.support import screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import PageFactory, Server

SECTIONS = "\n".join(f"## Part {n}\n\nFiller text {n}.\n" for n in range(1, 80))
DEEP = f"# Deep\n\n{SECTIONS}\nThe needle sits here, near the end.\n"
NEEDLE_LINE = DEEP.splitlines().index("The needle sits here, near the end.") + 1


@pytest.fixture
def deep(server: Server) -> str:
    path = server.workspace / "deep.md"
    path.write_text(DEEP, encoding="utf-8")
    (server.workspace / "notes" / "other.md").write_text(
        "# Other\n\nA needle here.\nAnd a NEEDLE there.\n", encoding="utf-8"
    )
    return str(path)


def search(page: Page, words: str) -> None:
    box = page.get_by_label("Search documents")
    box.fill(words)
    box.press("Enter")


def test_typing_a_search_shows_each_file_with_its_matching_lines(
    open_page: PageFactory, deep: str
) -> None:
    page = open_page()
    page.get_by_label("Search documents").press_sequentially("needle", delay=20)
    results = page.get_by_role("region", name="Search results")
    expect(results.locator(".side-heading")).to_have_text("2 files · 3 lines")
    other = results.locator(".search-file", has_text="Other")
    expect(other.locator(".search-hit")).to_have_count(2)
    expect(other.locator(".search-hit").first).to_contain_text("A needle here.")
    expect(other.locator(".search-hit mark").nth(1)).to_have_text("NEEDLE")
    hit = results.locator(".search-file", has_text="Deep").locator(".search-hit")
    expect(hit).to_have_attribute("data-line", str(NEEDLE_LINE))
    expect(hit.locator(".hit-line")).to_have_text(str(NEEDLE_LINE))
    expect(hit.locator("mark")).to_have_text("needle")
    screenshot(page, "14-search-results")


def test_clicking_a_result_opens_the_document_at_its_line(page: Page, deep: str) -> None:
    search(page, "needle")
    page.locator(f".search-hit[data-line='{NEEDLE_LINE}']").click()
    expect(page.locator(".tab.active")).to_contain_text("deep")
    target = page.locator(".read-content p", has_text="The needle sits here")
    expect(target).to_be_in_viewport()
    expect(
        page.locator(".read-content h2", has_text=re.compile(r"^Part 1$"))
    ).not_to_be_in_viewport()


def test_a_result_opens_in_edit_view_with_the_cursor_on_its_line(
    page: Page, server: Server, deep: str
) -> None:
    with server.agent() as agent:
        agent.post("/api/documents/open", json={"path": deep, "mode": "edit"}).raise_for_status()
    expect(page.locator(".cm-content")).to_contain_text("Part 1")
    page.locator(".tab.active").click()
    search(page, "needle sits")
    page.locator(f".search-hit[data-line='{NEEDLE_LINE}']").click()
    line = page.locator(".cm-line", has_text="The needle sits here")
    expect(line).to_be_in_viewport()
    expect(page.locator(".cm-activeLine")).to_contain_text("The needle sits here")


def test_the_keyboard_moves_through_the_results(page: Page, deep: str) -> None:
    search(page, "needle")
    expect(page.locator(".search-file")).to_have_count(2)
    box = page.get_by_label("Search documents")
    box.press("ArrowDown")
    expect(page.locator(".search-file-row").first).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator(".tab.active")).to_be_visible()
    box.press("Escape")
    expect(box).to_have_value("")
    expect(page.get_by_role("region", name="Search results")).to_have_count(0)


def test_a_search_that_finds_nothing_says_so(page: Page, deep: str) -> None:
    search(page, "a.*b [no] such (text)")
    expect(page.locator(".search-results")).to_contain_text(
        "No document holds “a.*b [no] such (text)”."
    )


def test_a_file_that_is_not_utf8_is_skipped_and_named(page: Page, server: Server) -> None:
    (server.workspace / "latin.md").write_bytes(b"# Caf\xe9\n\nneedle\n")
    (server.workspace / "good.md").write_text("# Good\n\nneedle\n", encoding="utf-8")
    search(page, "needle")
    results = page.get_by_role("region", name="Search results")
    expect(results.locator(".search-file")).to_have_count(1)
    expect(results.locator(".search-note")).to_contain_text("latin.md (not UTF-8 text")


def test_the_command_palette_searches_the_documents(page: Page, deep: str) -> None:
    page.keyboard.press("Control+k")
    page.get_by_label("Command or file name").fill("needle sits")
    option = page.get_by_role("option", name=re.compile("Search documents for"))
    expect(option).to_contain_text("Search documents for “needle sits”")
    option.click()
    hit = page.get_by_role("option", name=re.compile(f"line {NEEDLE_LINE}"))
    expect(hit).to_contain_text("The needle sits here")
    page.keyboard.press("Enter")
    expect(page.locator(".tab.active")).to_contain_text("deep")
    expect(page.locator(".read-content p", has_text="The needle sits here")).to_be_in_viewport()


def test_ctrl_shift_f_puts_the_cursor_in_the_search_box(open_page: PageFactory) -> None:
    page = open_page(width=390, height=844)
    page.keyboard.press("Control+Shift+F")
    expect(page.get_by_label("Search documents")).to_be_focused()
    page.get_by_label("Search documents").press_sequentially("task", delay=10)
    expect(page.locator(".search-file", has_text="Welcome")).to_be_visible()
    screenshot(page, "16-phone-search")
