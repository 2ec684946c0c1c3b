"""The person's document views in a real browser against a real `quire serve`: opening from
the tree, live editing beside an agent, task boxes, diagrams and math, `/open` links, the
conflict banner and keeping the place across views."""

from __future__ import annotations

import concurrent.futures
import re
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import PageFactory, Server


def current_text(server: Server) -> str:
    with server.agent() as agent:
        response = agent.get("/api/documents/current")
        response.raise_for_status()
        content: str = response.json()["content"]
        return content


def open_from_tree(page: Page, name: str) -> None:
    page.locator(".tree-file", has_text=name).first.click()
    expect(page.locator(".tab.active")).to_contain_text(name)


def switch_view(page: Page, view: str) -> None:
    page.locator(f"[data-view-button={view}]").click()
    expect(page.locator(f".doc-body [data-view={view}]")).to_be_visible()


def editor_text(page: Page) -> str:
    return page.locator(".cm-content").inner_text()


def test_a_document_opens_from_the_file_tree_in_read_view(page: Page) -> None:
    expect(page.locator(".welcome")).to_contain_text("No document open")
    screenshot(page, "01-empty-window")
    open_from_tree(page, "welcome")
    body = page.locator(".read-content")
    expect(body.locator("h1")).to_have_text("Welcome")
    expect(body.locator("input.task-list-item-checkbox")).to_have_count(3)
    expect(page.locator(".tree-file.active")).to_contain_text("welcome")
    screenshot(page, "02-read-view")


def test_typing_and_an_agents_edits_both_land_in_the_browser_and_the_live_text(
    page: Page, server: Server
) -> None:
    open_from_tree(page, "welcome")
    switch_view(page, "edit")
    expect(page.locator(".cm-content")).to_contain_text("Closing words")
    page.locator(".cm-line", has_text="Closing words").click()
    page.keyboard.press("End")

    def agent_edits() -> list[int]:
        statuses = []
        with server.agent() as agent:
            for find, replace in [
                ("The agent will change this line.", "The agent changed this line."),
                ("This paragraph is here to be read.", "This paragraph was edited by an agent."),
                ("First task", "First task, renamed by the agent"),
            ]:
                response = agent.post(
                    "/api/documents/edit", json={"find": find, "replace": replace}
                )
                statuses.append(response.status_code)
        return statuses

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        edits = pool.submit(agent_edits)
        page.keyboard.type(" The person typed this while the agent worked.", delay=15)
        assert edits.result(timeout=30) == [200, 200, 200]

    wanted = [
        "The agent changed this line.",
        "This paragraph was edited by an agent.",
        "First task, renamed by the agent",
        "Closing words of the welcome note. The person typed this while the agent worked.",
    ]
    for text in wanted:
        expect(page.locator(".cm-content")).to_contain_text(text)
    eventually(
        lambda: all(text in current_text(server) for text in wanted),
        "the server's live text to hold both the typing and the agent's edits",
    )
    expect(page.locator(".tab.active")).to_have_class(re.compile(r"\bunsaved\b"))

    with server.agent() as agent:
        agent.post(
            "/api/documents/edit",
            json={"find": "## Agent target", "replace": "## Agent target, flashed"},
        ).raise_for_status()
    flashed = page.locator(".cm-line", has_text="Agent target, flashed")
    expect(flashed.locator(".cm-agent-label")).to_have_attribute("data-name", "Agent")
    expect(flashed.locator(".cm-agent-flash")).to_contain_text("flashed")
    screenshot(page, "03-edit-view-agent-flash", settled=False)

    page.keyboard.press("Control+s")
    expect(page.locator(".tab.active")).not_to_have_class(re.compile(r"\bunsaved\b"))
    saved = (server.workspace / "welcome.md").read_text(encoding="utf-8")
    assert "The person typed this while the agent worked." in saved
    assert "The agent changed this line." in saved


def test_an_agents_edit_shows_in_read_view_and_flashes_with_its_name(
    page: Page, server: Server
) -> None:
    open_from_tree(page, "welcome")
    # Once the window is live on the document: an edit that comes before is in the text it
    # first receives, shown without a name.
    expect(page.locator(".sync-synced")).to_have_text("Live")
    with server.agent() as agent:
        agent.post(
            "/api/documents/edit",
            json={"find": "Closing words", "replace": "Freshly written closing words"},
        ).raise_for_status()
    changed = page.locator(".read-content p", has_text="Freshly written closing words")
    expect(changed).to_be_visible()
    expect(changed).to_have_attribute("data-agent", "Agent")


def test_clicking_a_task_checkbox_changes_the_document(page: Page, server: Server) -> None:
    open_from_tree(page, "welcome")
    box = page.locator(".task-list-item", has_text="Second task").locator("input")
    box.click()
    eventually(
        lambda: "- [x] Second task" in current_text(server), "the task to be ticked in the text"
    )
    expect(box).to_be_checked()
    page.locator(".task-list-item", has_text="Third task").locator("input").click()
    eventually(lambda: "- [ ] Third task" in current_text(server), "the third task cleared")
    expect(page.locator(".tab.active")).to_have_class(re.compile(r"\bunsaved\b"))


def test_a_mermaid_fence_renders_an_svg_and_math_is_typeset(page: Page) -> None:
    open_from_tree(page, "plan")
    expect(page.locator(".read-content pre.mermaid svg")).to_be_visible()
    expect(page.locator(".read-content .math-inline .katex")).to_be_visible()
    expect(page.locator(".read-content .math-display .katex-display")).to_be_visible()
    screenshot(page, "04-read-view-mermaid-math")


def test_a_document_without_diagrams_or_math_loads_neither(page: Page) -> None:
    loaded: list[str] = []
    page.on("request", lambda request: loaded.append(request.url))
    open_from_tree(page, "welcome")
    expect(page.locator(".read-content h1")).to_have_text("Welcome")
    assert not [url for url in loaded if "mermaid" in url or "katex" in url]


def test_the_open_link_opens_the_file_in_the_asked_view(page: Page, server: Server) -> None:
    target = server.workspace / "notes" / "plan.md"
    page.goto(f"{server.url}/open?path={quote(str(target))}&mode=edit")
    expect(page).to_have_url(f"{server.url}/")
    expect(page.locator(".tab.active")).to_contain_text("plan")
    expect(page.locator(".cm-content")).to_contain_text("Write the summary.")


@pytest.mark.parametrize(
    ("name", "query", "says"),
    [
        ("a text file", "path={folder}/notes.txt", "Markdown"),
        ("a dotfile", "path={folder}/.hidden.md", "Markdown"),
        ("a missing file", "path={folder}/missing.md", "missing.md"),
        ("no path", "mode=read", "names no file"),
        ("a view links cannot ask for", "path={folder}/welcome.md&mode=source", "read or edit"),
        ("a relative path", "path=welcome.md", "absolute"),
    ],
)
def test_a_refused_open_link_opens_nothing_and_says_why(
    page: Page, server: Server, name: str, query: str, says: str
) -> None:
    (server.workspace / "notes.txt").write_text("not markdown\n", encoding="utf-8")
    (server.workspace / ".hidden.md").write_text("# hidden\n", encoding="utf-8")
    page.goto(f"{server.url}/open?{query.format(folder=quote(str(server.workspace)))}")
    expect(page.locator(".toast-error")).to_contain_text(says)
    expect(page.locator(".tab")).to_have_count(0)


def test_of_a_parameter_given_twice_the_first_counts(page: Page, server: Server) -> None:
    first = quote(str(server.workspace / "welcome.md"))
    second = quote(str(server.workspace / "notes" / "plan.md"))
    page.goto(f"{server.url}/open?path={first}&path={second}&mode=read&mode=edit&x=1")
    expect(page.locator(".tab.active")).to_contain_text("welcome")
    expect(page.locator(".tab")).to_have_count(1)
    expect(page.locator(".read-content h1")).to_have_text("Welcome")


def test_the_conflict_banner_appears_when_the_file_changes_under_unsaved_edits(
    page: Page, server: Server
) -> None:
    open_from_tree(page, "welcome")
    switch_view(page, "edit")
    page.locator(".cm-line", has_text="Closing words").click()
    page.keyboard.press("End")
    page.keyboard.type(" Unsaved words.")
    eventually(lambda: "Unsaved words." in current_text(server), "the typing to reach the server")
    disk = "# Welcome\n\nSomeone rewrote this file in another editor.\n"
    (server.workspace / "welcome.md").write_text(disk, encoding="utf-8")
    banner = page.locator(".conflict-banner")
    expect(banner).to_contain_text("changed on disk")
    expect(banner.get_by_role("button", name="Keep mine")).to_be_visible()
    banner.get_by_role("button", name="Show diff").click()
    expect(banner.locator(".diff-add")).to_contain_text(["Unsaved words."])
    expect(banner.locator(".diff-del").first).to_be_visible()
    screenshot(page, "05-conflict-banner")
    banner.get_by_role("button", name="Take disk version").click()
    expect(page.locator(".conflict-banner")).to_have_count(0)
    expect(page.locator(".cm-content")).to_contain_text("Someone rewrote this file")
    eventually(lambda: current_text(server) == disk, "the live text to become the disk version")


def test_keep_mine_keeps_the_persons_text_after_a_conflict(page: Page, server: Server) -> None:
    open_from_tree(page, "welcome")
    switch_view(page, "source")
    page.locator(".cm-line", has_text="Closing words").click()
    page.keyboard.press("End")
    page.keyboard.type(" Mine to keep.")
    eventually(lambda: "Mine to keep." in current_text(server), "the typing to reach the server")
    (server.workspace / "welcome.md").write_text("# Welcome\n\nDisk text.\n", encoding="utf-8")
    banner = page.locator(".conflict-banner")
    banner.get_by_role("button", name="Keep mine").click()
    expect(page.locator(".conflict-banner")).to_have_count(0)
    assert "Mine to keep." in current_text(server)
    expect(page.locator(".tab.active")).to_have_class(re.compile(r"\bunsaved\b"))


def test_switching_views_keeps_the_place_in_the_document(
    open_page: PageFactory, server: Server
) -> None:
    sections = "\n".join(
        f"## Section {n}\n\nParagraph {n} says something worth reading.\n" for n in range(1, 61)
    )
    (server.workspace / "long.md").write_text(f"# Long\n\n{sections}", encoding="utf-8")
    page = open_page()
    page.locator("input[aria-label='Filter files']").fill("long")
    open_from_tree(page, "long")
    heading = page.locator(".read-content h2", has_text=re.compile(r"^Section 40$"))
    heading.evaluate("element => element.scrollIntoView({block: 'start'})")
    page.locator(".read-scroller").dispatch_event("scroll")
    switch_view(page, "source")
    line = page.locator(".cm-line", has_text=re.compile(r"^## Section 40$"))
    expect(line).to_be_in_viewport()
    switch_view(page, "read")
    expect(heading).to_be_in_viewport()


def test_another_editors_cursor_shows_with_their_name(
    open_page: PageFactory, server: Server
) -> None:
    first = open_page()
    open_from_tree(first, "welcome")
    switch_view(first, "edit")
    second = open_page(before=lambda page: page.add_init_script(NAMED_SAM))
    expect(second.locator(".tab.active")).to_contain_text("welcome")
    expect(second.locator(".cm-content")).to_contain_text("Closing words")
    second.locator(".cm-line", has_text="Closing words").click()
    second.keyboard.press("End")
    second.keyboard.type(" Sam was here.")
    expect(first.locator(".cm-content")).to_contain_text("Closing words of the welcome note. Sam")
    expect(first.locator(".cm-ySelectionInfo")).to_have_text("Sam")
    expect(first.locator(".presence .avatar")).to_have_text("S")
    expect(first.locator(".tab.active")).to_have_class(re.compile(r"\bunsaved\b"))
    screenshot(first, "15-remote-cursor")


NAMED_SAM = "localStorage.setItem('quire.name', 'Sam')"


def test_an_agent_opening_at_a_line_scrolls_there(page: Page, server: Server) -> None:
    sections = "\n".join(f"## Part {n}\n\nFiller text {n}.\n" for n in range(1, 80))
    (server.workspace / "deep.md").write_text(f"# Deep\n\n{sections}", encoding="utf-8")
    line = 3 + 60 * 4
    with server.agent() as agent:
        agent.post(
            "/api/documents/open", json={"path": str(server.workspace / "deep.md"), "line": line}
        ).raise_for_status()
    expect(page.locator(".read-content h2", has_text=re.compile(r"^Part 61$"))).to_be_in_viewport()
    expect(
        page.locator(".read-content h2", has_text=re.compile(r"^Part 1$"))
    ).not_to_be_in_viewport()


def test_resolving_a_conflict_clears_the_banner_in_every_window(
    open_page: PageFactory, server: Server
) -> None:
    first = open_page()
    open_from_tree(first, "welcome")
    switch_view(first, "edit")
    second = open_page()
    expect(second.locator(".tab.active")).to_contain_text("welcome")
    first.locator(".cm-line", has_text="Closing words").click()
    first.keyboard.press("End")
    first.keyboard.type(" Unsaved words.")
    eventually(lambda: "Unsaved words." in current_text(server), "the typing to reach the server")
    (server.workspace / "welcome.md").write_text(
        "# Welcome\n\nChanged on disk.\n", encoding="utf-8"
    )
    for page in (first, second):
        expect(page.locator(".conflict-banner")).to_contain_text("changed on disk")
    first.locator(".conflict-banner").get_by_role("button", name="Keep mine").click()
    for page in (first, second):
        expect(page.locator(".conflict-banner")).to_have_count(0)
        expect(page.locator(".tab.active")).to_have_class(re.compile(r"\bunsaved\b"))
    assert "Unsaved words." in current_text(server)


def test_a_conflict_taken_from_disk_elsewhere_leaves_this_window_clean(
    open_page: PageFactory, server: Server
) -> None:
    first = open_page()
    open_from_tree(first, "welcome")
    switch_view(first, "source")
    second = open_page()
    first.locator(".cm-line", has_text="Closing words").click()
    first.keyboard.press("End")
    first.keyboard.type(" Mine.")
    eventually(lambda: "Mine." in current_text(server), "the typing to reach the server")
    (server.workspace / "welcome.md").write_text("# Welcome\n\nDisk wins.\n", encoding="utf-8")
    expect(second.locator(".conflict-banner")).to_be_visible()
    second.locator(".conflict-banner").get_by_role("button", name="Take disk version").click()
    for page in (first, second):
        expect(page.locator(".conflict-banner")).to_have_count(0)
        expect(page.locator(".tab.active")).not_to_have_class(re.compile(r"\bunsaved\b"))
    expect(first.locator(".cm-content")).to_contain_text("Disk wins.")


def test_a_rewrite_by_the_agent_keeps_what_the_person_typed_meanwhile(
    page: Page, server: Server
) -> None:
    note = server.workspace / "merge.md"
    note.write_text(
        "# Merge\n\nThis paragraph is the agent's.\n\nClosing words here.\n", encoding="utf-8"
    )
    expect(page.locator(".welcome, .tab").first).to_be_visible()
    with server.agent() as agent:
        agent.post(
            "/api/documents/open", json={"path": str(note), "mode": "edit"}
        ).raise_for_status()
        expect(page.locator(".cm-content")).to_contain_text("Closing words here.")
        read = agent.get("/api/documents/current").json()
    lines = read["content"].split("\n")
    other = lines.index("This paragraph is the agent's.")
    closing = lines.index("Closing words here.")

    # The person types at the end of the closing line after the agent read the document.
    page.locator(".cm-line", has_text=CLOSING).click()
    page.keyboard.press("End")
    page.keyboard.type(" Typed by the person.", delay=10)
    eventually(
        lambda: "Typed by the person." in current_text(server), "the keystrokes to reach the server"
    )
    # The agent rewrites the whole text from what it read: another section changed.
    rewrite = list(lines)
    rewrite[other] = "This paragraph was rewritten whole by the agent."
    with server.agent() as agent:
        done = agent.post(
            "/api/documents/set-content",
            json={"content": "\n".join(rewrite), "base": read["version"]},
        ).json()
    assert done["conflicts"] == []
    for text in ("This paragraph was rewritten whole by the agent.", "Typed by the person."):
        expect(page.locator(".cm-content")).to_contain_text(text)

    # Now both change the closing line: the person's stays, the agent hears of the conflict.
    with server.agent() as agent:
        read = agent.get("/api/documents/current").json()
    page.locator(".cm-line", has_text=CLOSING).click()
    page.keyboard.press("End")
    page.keyboard.type(" And more.", delay=10)
    eventually(lambda: "And more." in current_text(server), "the keystrokes to reach the server")
    again = read["content"].split("\n")
    again[closing] = "Closing words, as the agent would have them."
    with server.agent() as agent:
        clash = agent.post(
            "/api/documents/set-content",
            json={"content": "\n".join(again), "base": read["version"]},
        ).json()
    assert [conflict["agentText"] for conflict in clash["conflicts"]] == [
        "Closing words, as the agent would have them.\n"
    ]
    expect(page.locator(".cm-content")).to_contain_text("Typed by the person. And more.")
    assert "as the agent would have them" not in current_text(server)


CLOSING = re.compile("closing words", re.IGNORECASE)


FRONT_MATTER_NOTE = (
    "---\ntitle: Launch plan\ntags: [launch, q3]\nstatus: draft\n---\n\n# Launch\n\n"
    "The plan itself.\n"
)


def _largest_font_px(page: Page, text: str) -> float:
    """The largest font size (px) inside the editor line holding ``text``."""
    line = page.locator(".cm-line", has_text=text).first
    size: float = line.evaluate(
        "line => Math.max(...[line, ...line.querySelectorAll('*')].map("
        "e => parseFloat(getComputedStyle(e).fontSize)))"
    )
    return size


def test_front_matter_reads_as_yaml_in_edit_view_and_folds(page: Page, server: Server) -> None:
    note = server.workspace / "launch.md"
    note.write_text(FRONT_MATTER_NOTE, encoding="utf-8")
    page.goto(f"{server.url}/open?path={quote(str(note))}&mode=edit")
    expect(page.locator(".cm-content")).to_contain_text("status: draft")
    body = _largest_font_px(page, "The plan itself.")
    # Read as Markdown, the closing `---` would make `status: draft` a setext heading.
    assert _largest_font_px(page, "status: draft") == body
    assert _largest_font_px(page, "Launch plan") == body
    assert _largest_font_px(page, "# Launch") > body
    key_color = (
        page.locator(".cm-line", has_text="status: draft")
        .locator("span")
        .first.evaluate("span => [span.textContent, getComputedStyle(span).color]")
    )
    line_color = page.locator(".cm-line", has_text="The plan itself.").evaluate(
        "line => getComputedStyle(line).color"
    )
    assert key_color[0] == "status" and key_color[1] != line_color
    screenshot(page, "edit-front-matter")
    page.locator(".cm-line", has_text="---").first.click()
    page.keyboard.press("Control+Shift+BracketLeft")
    expect(page.locator(".cm-foldPlaceholder")).to_be_visible()
    expect(page.locator(".cm-content")).not_to_contain_text("status: draft")
    screenshot(page, "edit-front-matter-folded")
    page.keyboard.press("Control+Shift+BracketRight")
    expect(page.locator(".cm-content")).to_contain_text("status: draft")
