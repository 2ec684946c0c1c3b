"""The window's search in a real browser against a real `quire serve` and its index: typing shows
each file with a snippet around its match (the match marked), the Text/Words/Meaning toggle, "More
results" for the next page, a click opening the document at the match's line; the Backlinks
section under a document in Read view; quick open in the command palette (titles and paths from
the index, recent documents first)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from quire.search import semantic
from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import PageFactory, Server

SECTIONS = "\n".join(f"## Part {n}\n\nFiller text {n}.\n" for n in range(1, 80))
DEEP = f"# Deep\n\n{SECTIONS}\nThe needle sits here, near the end.\n"
NEEDLE_LINE = DEEP.splitlines().index("The needle sits here, near the end.") + 1
PAGE = 50
"""How many files the sidebar asks for at a time (the server's default page)."""


def searchable(server: Server, query: str, files: int, mode: str = "grep") -> None:
    """Wait (bounded) until the index finds ``query`` in ``files`` files: the files were
    written after the server started, and its watcher takes them in within a second."""

    def found() -> bool:
        with server.agent() as agent:
            answer = agent.get("/api/search", params={"q": query, "mode": mode, "limit": 200})
        answer.raise_for_status()
        return len(answer.json()["hits"]) == files

    eventually(found, f"the index to find {query!r} in {files} files")


@pytest.fixture
def deep(server: Server) -> str:
    path = server.workspace / "deep.md"
    path.write_text(DEEP, encoding="utf-8")
    (server.workspace / "notes" / "other.md").write_text(
        "# Other\n\nA needle here.\nAnd a NEEDLE there.\n", encoding="utf-8"
    )
    searchable(server, "needle", 2)
    return str(path)


def search(page: Page, words: str) -> None:
    box = page.get_by_label("Search documents")
    box.fill(words)
    box.press("Enter")


def test_typing_a_search_shows_each_file_with_its_snippet_marked(
    open_page: PageFactory, deep: str
) -> None:
    page = open_page()
    page.get_by_label("Search documents").press_sequentially("needle", delay=20)
    results = page.get_by_role("region", name="Search results")
    expect(results.locator(".side-heading span").first).to_have_text("2 files")
    expect(results.locator(".search-file")).to_have_count(2)
    other = results.locator(".search-file", has_text="Other")
    expect(other.locator(".search-hit")).to_contain_text("A needle here.")
    expect(other.locator(".search-hit mark").first).to_have_text("needle")
    expect(other.locator(".hit-more")).to_have_text("and 1 more match")
    hit = results.locator(".search-file", has_text="Deep").locator(".search-hit")
    expect(hit).to_have_attribute("data-line", str(NEEDLE_LINE))
    expect(hit.locator(".hit-line")).to_have_text(str(NEEDLE_LINE))
    expect(hit.locator("mark")).to_have_text("needle")
    screenshot(page, "14-search-results")


def test_a_snippet_is_text_even_when_the_note_holds_html(page: Page, server: Server) -> None:
    (server.workspace / "html.md").write_text(
        "# Html\n\nSee <b>bold needle</b> & <script>x</script>.\n", encoding="utf-8"
    )
    searchable(server, "bold needle", 1)
    search(page, "bold needle")
    hit = page.locator(".search-file", has_text="Html").locator(".hit-snippet")
    expect(hit).to_contain_text("<b>")
    expect(hit.locator("mark")).to_have_text("bold needle")
    expect(hit.locator("b")).to_have_count(0)


def test_the_words_mode_finds_the_words_in_any_order(page: Page, deep: str) -> None:
    search(page, "sits needle")
    expect(page.locator(".search-results")).to_contain_text("No document holds “sits needle”.")
    page.get_by_role("button", name="Words").click()
    expect(page.get_by_role("button", name="Words")).to_have_attribute("aria-pressed", "true")
    deep_file = page.locator(".search-file", has_text="Deep")
    expect(deep_file).to_be_visible()
    expect(deep_file.locator(".search-hit mark").first).to_be_visible()
    page.reload()
    expect(page.get_by_role("button", name="Words")).to_have_attribute("aria-pressed", "true")


@pytest.mark.skipif(not semantic.installed(), reason="pip install -e '.[semantic]'")
def test_the_meaning_mode_finds_a_note_by_what_it_means(page: Page, server: Server) -> None:
    (server.workspace / "pets.md").write_text(
        "# Our pets\n\nThe dog barks at the mailman and the puppy chews shoes.\n", encoding="utf-8"
    )
    (server.workspace / "money.md").write_text(
        "# Budget\n\nQuarterly revenue grew; invest the savings.\n", encoding="utf-8"
    )
    searchable(server, "puppy", 1)
    search(page, "canine companion")
    expect(page.locator(".search-results")).to_contain_text("No document holds")
    page.get_by_role("button", name="Meaning").click()
    expect(page.get_by_role("button", name="Meaning")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".search-file").first).to_contain_text("Our pets")
    expect(page.locator(".search-note")).to_have_count(0)
    screenshot(page, "14-search-meaning")


def test_more_results_brings_the_next_page_each_file_once(page: Page, server: Server) -> None:
    folder = server.workspace / "many"
    folder.mkdir()
    for number in range(PAGE + 12):
        (folder / f"many {number:02}.md").write_text(
            f"# Many {number}\n\nThe word pagedword is here.\n", encoding="utf-8"
        )
    searchable(server, "pagedword", PAGE + 12)
    search(page, "pagedword")
    results = page.get_by_role("region", name="Search results")
    expect(results.locator(".search-file")).to_have_count(PAGE)
    expect(results.locator(".side-heading span").first).to_have_text(f"{PAGE} files and more")
    results.get_by_role("button", name="More results").click()
    expect(results.locator(".search-file")).to_have_count(PAGE + 12)
    expect(results.get_by_role("button", name="More results")).to_have_count(0)
    paths = results.locator(".search-file").evaluate_all(
        "items => items.map(item => item.dataset.path)"
    )
    assert len(set(paths)) == PAGE + 12


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
    # The editor's bundle loads on first use; a loaded machine (a 16 MiB note in the other
    # worker) took longer than the default wait once.
    expect(page.locator(".cm-content")).to_contain_text("Part 1", timeout=60_000)
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
    searchable(server, "needle", 1)

    def named() -> bool:
        with server.agent() as agent:
            answer = agent.get("/api/search", params={"q": "needle"}).json()
        return any(item["path"].endswith("latin.md") for item in answer["unreadable"])

    eventually(named, "the index to name latin.md as unreadable")
    search(page, "needle")
    results = page.get_by_role("region", name="Search results")
    expect(results.locator(".search-file")).to_have_count(1)
    expect(results.locator(".search-note")).to_contain_text("latin.md (")


def test_backlinks_under_a_document_list_the_notes_linking_to_it(
    page: Page, server: Server
) -> None:
    target = server.workspace / "target.md"
    target.write_text("# Target\n\nThe note others point at.\n", encoding="utf-8")
    (server.workspace / "notes" / "from wiki.md").write_text(
        "# From wiki\n\nIntro.\n\nSee [[target]] for more.\n", encoding="utf-8"
    )
    (server.workspace / "notes" / "from link.md").write_text(
        "# From link\n\n[the target](../target.md)\n", encoding="utf-8"
    )

    def linked() -> bool:
        with server.agent() as agent:
            answer = agent.get("/api/backlinks", params={"path": str(target)})
        answer.raise_for_status()
        return len(answer.json()["links"]) == 2

    eventually(linked, "the index to hold both links to target.md")
    with server.agent() as agent:
        agent.post("/api/documents/open", json={"path": str(target)}).raise_for_status()
    section = page.get_by_role("region", name="Backlinks")
    expect(section.locator("h2")).to_have_text("Backlinks · 2")
    wiki = section.get_by_role("button", name=re.compile("From wiki"))
    expect(wiki).to_contain_text("notes · line 5")
    expect(section.get_by_role("button", name=re.compile("From link"))).to_contain_text("line 3")
    screenshot(page, "15-backlinks")
    wiki.click()
    expect(page.locator(".tab.active")).to_contain_text("from wiki")
    expect(page.get_by_role("region", name="Backlinks")).to_contain_text("No note links here yet.")


def test_quick_open_finds_titles_and_paths_through_the_index(page: Page, server: Server) -> None:
    (server.workspace / "notes" / "zebra crossing.md").write_text(
        "# Zebra crossing\n\nStripes.\n", encoding="utf-8"
    )
    (server.workspace / "zoo.md").write_text("# Zoo\n\nAnimals.\n", encoding="utf-8")

    def titled() -> bool:
        with server.agent() as agent:
            answer = agent.get("/api/titles", params={"q": "zebra", "limit": 10})
        answer.raise_for_status()
        data = answer.json()
        hits = data if isinstance(data, list) else data["hits"]
        return any(hit["path"].endswith("zebra crossing.md") for hit in hits)

    eventually(titled, "quick open to know zebra crossing.md")
    page.keyboard.press("Control+k")
    page.get_by_label("Command or file name").press_sequentially("zebra", delay=20)
    first = page.get_by_role("option").first
    expect(first).to_contain_text("zebra crossing")
    expect(first).to_contain_text("notes/zebra crossing.md")
    page.keyboard.press("Enter")
    expect(page.locator(".tab.active")).to_contain_text("zebra crossing")


def test_quick_open_shows_the_recent_documents_first_when_empty(page: Page, server: Server) -> None:
    with server.agent() as agent:
        for name in ("welcome.md", "notes/plan.md"):
            path = str(server.workspace / name)
            agent.post("/api/documents/open", json={"path": path}).raise_for_status()
    expect(page.locator(".tab.active")).to_contain_text("plan")
    page.keyboard.press("Control+k")
    options = page.get_by_role("option")
    expect(options.nth(0)).to_contain_text("plan")
    expect(options.nth(0)).to_contain_text("recent")
    expect(options.nth(1)).to_contain_text("welcome")
    screenshot(page, "17-quick-open-recent")


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
