"""The History panel in a real browser against one real `quire serve` over a real git repository:
an agent's save and the person's save listed newest first with their authors and the agent badge,
a commit's diff against the one before it (inline, side by side, against an older one), a restore
from the panel that a second page with the note open in Edit view takes, as both pages then show,
the Authors view, Load more, the workspace timeline and its filters, and a workspace without
history saying how to turn it on."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.support.git_repo import git_env, log, make_repo
from tests.web_ui.conftest import Server, serve
from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from tests.web_ui.conftest import PageFactory

FIRST = "# Welcome\n\nThe agent wrote this first version.\n"
SECOND = "# Welcome\n\nThe person rewrote it by hand.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `quire serve` whose workspace is a git repository (history on), commits at once."""
    root = tmp_path_factory.mktemp("history")
    make_repo(root / "workspace")
    (root / "state").mkdir()
    (root / "state" / "quire.toml").write_text("[history]\nwindow = 0\n", encoding="utf-8")
    with serve(root, {}) as running:
        yield running


def steps(path: str, content: str) -> list[tuple[str, dict[str, object]]]:
    return [
        ("/api/documents/open", {"path": path}),
        ("/api/documents/set-content", {"path": path, "content": content, "save": True}),
    ]


def save_as_agent(agent: httpx.Client, path: str, content: str, name: str) -> None:
    for url, body in steps(path, content):
        response = agent.post(url, json=body, headers={"X-Quire-Agent": name})
        assert response.status_code == 200, response.text


def save_as_person(page: Page, server: Server, path: str, content: str) -> None:
    """Through the API with the page's own session: the person's save."""
    for url, body in steps(path, content):
        response = page.request.post(server.url + url, data=body)
        assert response.status == 200, response.text()


def history(agent: httpx.Client, path: str) -> list[dict[str, object]]:
    response = agent.get("/api/history", params={"path": path})
    assert response.status_code == 200, response.text
    entries: list[dict[str, object]] = response.json()["entries"]
    return entries


def open_note(page: Page, name: str) -> None:
    page.locator(".tree-file", has_text=name).first.click()
    expect(page.locator(".tab.active")).to_contain_text(name)


def test_the_panel_lists_diffs_and_restores_while_another_page_edits(
    server: Server, open_page: PageFactory
) -> None:
    note = str(server.workspace / "welcome.md")
    editor = open_page()
    with server.agent() as agent:
        save_as_agent(agent, note, FIRST, "claude-code")
        save_as_person(editor, server, note, SECOND)
        # Each save is committed off the answer's path: wait until git holds both.
        eventually(lambda: len(history(agent, note)) >= 2, "both saves in the note's history")
        entries = history(agent, note)
    assert [entry["message"] for entry in entries[:2]] == ["Edit by owner", "Edit by claude-code"]
    older = str(entries[1]["short"])

    open_note(editor, "welcome")
    editor.locator("[data-view-button=edit]").click()
    expect(editor.locator(".cm-content")).to_contain_text("The person rewrote it by hand.")

    page = open_page()
    open_note(page, "welcome")
    page.locator("[data-history-button]").click()
    panel = page.locator(".history-panel")
    items = panel.locator(".history-list > li")
    expect(items.first).to_be_visible()
    expect(items.nth(0).locator(".history-name")).to_have_text("owner")
    expect(items.nth(0).locator(".agent-badge")).to_have_count(0)
    expect(items.nth(1).locator(".history-name")).to_have_text("claude-code")
    expect(items.nth(1).locator(".agent-badge")).to_have_text("agent")
    expect(items.nth(1)).to_contain_text("Edit by claude-code")

    items.nth(0).locator(".history-item").click()
    diff = items.nth(0).locator(".history-diff")
    expect(diff.locator(".diff-del")).to_contain_text("The agent wrote this first version.")
    expect(diff.locator(".diff-add")).to_contain_text("The person rewrote it by hand.")
    screenshot(page, "history-01-diff")
    items.nth(0).get_by_role("button", name="Side by side").click()
    split = items.nth(0).locator(".diff-split")
    changed = split.locator(".split-row", has=page.locator(".diff-del"))
    expect(changed).to_have_count(1)
    expect(changed.locator(".split-old")).to_have_text("The agent wrote this first version.")
    expect(changed.locator(".split-new")).to_have_text("The person rewrote it by hand.")
    expect(split.locator(".split-row").first.locator(".split-old")).to_have_text("# Welcome")
    expect(split.locator(".split-row").first.locator(".split-new")).to_have_text("# Welcome")

    items.nth(1).locator(".history-item").click()
    items.nth(1).locator(".history-restore").click()
    confirm = items.nth(1).locator(".history-confirm")
    expect(confirm).to_contain_text(f"at {older} again")
    confirm.get_by_role("button", name=f"Restore {older}").click()

    expect(editor.locator(".cm-content")).to_contain_text("The agent wrote this first version.")
    expect(editor.locator(".cm-content")).not_to_contain_text("The person rewrote it by hand.")
    expect(page.locator(".doc-body")).to_contain_text("The agent wrote this first version.")
    expect(items.first).to_contain_text(f"Restore to {older}")
    assert (server.workspace / "welcome.md").read_text(encoding="utf-8") == FIRST
    assert log(server.workspace)[0].endswith(f"Restore to {older}")
    screenshot(page, "history-02-restored")

    # The restore against the one before it undoes the person's edit; against the agent's
    # version (two back, chosen in the list) it changes nothing.
    items.first.locator(".history-item").click()
    restored = items.first.locator(".history-detail")
    expect(restored.locator(".diff-add")).to_contain_text("The agent wrote this first version.")
    expect(restored.locator(".diff-del")).to_contain_text("The person rewrote it by hand.")
    restored.get_by_label("Compare with").select_option(str(entries[1]["commit"]))
    expect(restored).to_contain_text("The two versions hold the same text.")
    expect(restored.locator(".diff-add")).to_have_count(0)


def test_the_authors_view_names_each_lines_last_author(
    server: Server, open_page: PageFactory
) -> None:
    note = str(server.workspace / "notes" / "plan.md")
    page = open_page()
    with server.agent() as agent:
        save_as_agent(agent, note, "# Plan\n\nThe agent's line.\n", "codex")
        save_as_person(page, server, note, "# Plan\n\nThe agent's line.\nThe person's line.\n")
        eventually(lambda: len(history(agent, note)) >= 2, "both saves in the note's history")
    open_note(page, "plan")
    page.keyboard.press("Control+k")  # the command palette opens the panel too
    page.keyboard.type(">show history")
    page.keyboard.press("Enter")
    expect(page.locator("[data-history-button]")).to_have_attribute("aria-pressed", "true")
    page.locator("[data-history-pane=authors]").click()
    blame = page.locator(".history-panel .blame")
    expect(blame.locator(".blame-row")).to_have_count(4)
    expect(blame.locator('[data-line="3"]')).to_have_attribute("data-author", "codex")
    expect(blame.locator('[data-line="1"] .agent-badge')).to_have_text("agent")
    expect(blame.locator('[data-line="3"] .blame-text')).to_have_text("The agent's line.")
    expect(blame.locator('[data-line="4"]')).to_have_attribute("data-author", "owner")
    expect(blame.locator('[data-line="4"] .blame-who')).to_contain_text("owner")
    expect(blame.locator('[data-line="4"] .agent-badge')).to_have_count(0)
    screenshot(page, "history-03-authors")
    page.keyboard.press("Control+b")  # the activity drawer takes the right edge from the panel
    expect(page.locator(".drawer", has_text="Activity")).to_be_visible()
    expect(page.locator(".history-panel")).to_have_count(0)


def test_the_timeline_lists_commits_everywhere_and_filters_by_agent(
    server: Server, open_page: PageFactory
) -> None:
    note = str(server.workspace / "welcome.md")
    page = open_page()
    with server.agent() as agent:
        save_as_agent(agent, note, "# Welcome\n\nGemini was here.\n", "gemini")
        eventually(
            lambda: [entry["message"] for entry in history(agent, note)][:1] == ["Edit by gemini"],
            "gemini's save in the note's history",
        )
    page.keyboard.press("Control+b")
    page.locator("[data-drawer-pane=timeline]").click()
    timeline = page.locator(".drawer .timeline")
    rows = timeline.locator(".history-list > li")
    expect(rows.first).to_contain_text("Edit by gemini")
    expect(rows.first.locator(".agent-badge")).to_have_text("agent")
    expect(timeline).to_contain_text("Edit by owner")
    everyone = rows.count()
    assert everyone >= 2
    timeline.get_by_label("Filter the timeline").select_option("agent:gemini")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Edit by gemini")
    # A person's filter keeps their own commits and their agents': here every one is owner's.
    timeline.get_by_label("Filter the timeline").select_option("author:owner")
    expect(rows).to_have_count(everyone)
    expect(timeline).to_contain_text("Edit by owner")
    screenshot(page, "history-04-timeline")


def committed(repo: Path, ending: str) -> bool:
    """Whether the newest commit's notes/plan.md ends with ``ending`` (False before any)."""
    done = subprocess.run(
        ["git", "show", "HEAD:notes/plan.md"],
        cwd=repo,
        env=git_env(),
        capture_output=True,
        check=False,
    )
    return done.returncode == 0 and done.stdout.decode().endswith(ending)


def test_load_more_pages_back_through_the_cursor(server: Server, open_page: PageFactory) -> None:
    note = str(server.workspace / "notes" / "plan.md")
    with server.agent() as agent:
        for n in range(21):
            save_as_agent(agent, note, f"# Plan\n\nStep {n}.\n", "codex")
            # Each save committed before the next: saves that arrive while a commit runs are
            # committed together, and this test needs more than one page of commits.
            step = f"Step {n}.\n"
            eventually(lambda: committed(server.workspace, step), f"save {n} committed")  # noqa: B023
        first_page = agent.get("/api/history", params={"path": note}).json()
    assert len(log(server.workspace, "--", "notes/plan.md")) > 20
    page = open_page()
    open_note(page, "plan")
    page.locator("[data-history-button]").click()
    rows = page.locator(".history-panel .history-list > li")
    expect(rows).to_have_count(20)
    assert first_page["nextCursor"]
    page.locator(".history-panel .history-more").click()
    expect(rows.nth(20)).to_be_visible()
    shown = rows.count()
    assert shown > 20
    commits = [rows.nth(i).get_attribute("data-commit") for i in range(shown)]
    assert len(set(commits)) == shown  # the second page follows the first, no repeats
    assert commits[:20] == [entry["commit"] for entry in first_page["entries"]]


def test_a_workspace_without_history_says_how_to_turn_it_on(
    browser: Browser, tmp_path: Path
) -> None:
    """Its own server over a folder that is no git repository: the panel explains, not breaks."""
    with serve(tmp_path, {}) as plain:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        try:
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(plain.login_url())
            open_note(page, "welcome")
            page.locator("[data-history-button]").click()
            panel = page.locator(".history-panel")
            expect(panel).to_contain_text("No history is kept for")
            expect(panel).to_contain_text("history.enabled = true")
            expect(panel.locator(".history-list > li")).to_have_count(0)
            page.keyboard.press("Escape")
            expect(panel).to_have_count(0)
        finally:
            context.close()
        assert errors == []
