"""A private chat on a team server (`quire serve --multi`) in real browsers: alice makes one with
+ New and invites bob; bob sees it and their messages reach each other's windows live; carol,
granted the same workspace but not invited, finds it in neither the file tree, the chat list nor
search, and its address shows her only a refusal; alice removes bob with Members… and bob's open
window says he no longer has access, without a reload."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.web_ui.conftest import WELCOME
from tests.web_ui.support import screenshot
from tests.web_ui.team import TeamServer, add_account, grant, signed_in, team_serve

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

WAIT = 30_000
"""Milliseconds to wait for what another window did to show (a loaded 2-core machine)."""
TITLE = "Zephyr launch"
SLUG = "zephyr-launch"
FROM_ALICE = "Bob, the zephyr countdown starts Monday."
FROM_BOB = "Understood, I will brief the zephyr crew."


@pytest.fixture(scope="module")
def team_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamServer]:
    """One team server: alice, bob and carol, each with write access to all of ``team``."""
    base = tmp_path_factory.mktemp("team-chat")
    workspace = (base / "team").resolve()
    workspace.mkdir()
    (workspace / "welcome.md").write_text(WELCOME, encoding="utf-8")
    (workspace / "zephyr-notes.md").write_text(
        "# Zephyr notes\n\nThe zephyr project, open to everyone.\n", encoding="utf-8"
    )
    state = base / "state"
    for name in ("alice", "bob", "carol"):
        add_account(state, name)
        grant(state, name, "write")
    with team_serve(base, state, workspace) as running:
        yield running


def enter_chats(page: Page) -> None:
    page.locator(".chats-button").click()
    expect(page.locator("[data-chat-mode]")).to_be_visible()


def leave_chats(page: Page) -> None:
    page.locator(".chat-back").click()
    expect(page.locator("[data-chat-mode]")).to_have_count(0)


def chat_row(page: Page) -> Locator:
    return page.locator(".chat-row", has_text=TITLE)


def send(page: Page, text: str) -> None:
    box = page.locator(".chat-input")
    box.fill(text)
    box.press("Enter")


def search(page: Page, words: str) -> None:
    box = page.get_by_label("Search documents")
    box.fill(words)
    box.press("Enter")


def test_a_private_chat_is_seen_by_its_members_only_and_a_removed_member_loses_it(
    browser: Browser, team_server: TeamServer, contexts: list[BrowserContext]
) -> None:
    chat_path = team_server.workspace / f"{SLUG}.md"
    errors: list[str] = []

    # All three are signed in before the chat exists: carol's open window must not learn of
    # it from the live events either.
    alice = signed_in(browser, contexts, team_server, "alice")
    bob = signed_in(browser, contexts, team_server, "bob")
    carol = signed_in(browser, contexts, team_server, "carol")
    for page in (alice, bob, carol):
        page.on("pageerror", lambda error: errors.append(str(error)))
    carol_tree = carol.locator(".tree")
    expect(
        carol_tree.locator(f'[data-path="{team_server.workspace / "welcome.md"}"]')
    ).to_be_visible(timeout=WAIT)

    # alice: + New, a private chat ("Only people I invite", the default) inviting bob.
    enter_chats(alice)
    alice.locator(".chat-new").click()
    dialog = alice.get_by_role("dialog", name="New chat")
    dialog.get_by_label("Name").fill(TITLE)
    dialog.get_by_label("Folder").fill("")
    only_invited = dialog.get_by_label("Only people I invite")
    expect(only_invited).to_be_checked(timeout=WAIT)
    invite = dialog.locator("[data-chat-invite]")
    expect(invite.get_by_label("bob", exact=True)).to_be_visible()
    expect(invite.get_by_label("carol", exact=True)).to_be_visible()
    invite.get_by_label("bob", exact=True).check()
    screenshot(alice, "team-chat-new-private")
    dialog.get_by_role("button", name="Create chat").click()
    expect(alice.locator(".chat-title")).to_have_text(TITLE, timeout=WAIT)
    expect(chat_row(alice).locator(".chat-private")).to_be_visible()

    # bob: the chat is in his list, private; he opens it.
    enter_chats(bob)
    expect(chat_row(bob)).to_be_visible(timeout=WAIT)
    expect(chat_row(bob).locator(".chat-private")).to_be_visible()
    chat_row(bob).click()
    expect(bob.locator(".chat-title")).to_have_text(TITLE, timeout=WAIT)

    # Live both ways.
    send(alice, FROM_ALICE)
    expect(bob.locator(".chat-message", has_text=FROM_ALICE)).to_be_visible(timeout=WAIT)
    send(bob, FROM_BOB)
    expect(alice.locator(".chat-message", has_text=FROM_BOB)).to_be_visible(timeout=WAIT)
    # Each posts under the account's own name (not "Owner (via alice)").
    expect(bob.locator(".chat-message", has_text=FROM_ALICE)).to_have_attribute(
        "data-author", "alice"
    )
    expect(alice.locator(".chat-message", has_text=FROM_BOB)).to_have_attribute(
        "data-author", "bob"
    )
    screenshot(bob, "team-chat-bob-member")

    # alice's search finds the chat (so a miss for carol below means hidden, not unindexed).
    leave_chats(alice)
    tree = alice.locator(".tree")
    expect(tree.locator(f'[data-path="{chat_path}"]')).to_be_visible(timeout=WAIT)
    search(alice, "zephyr")
    results = alice.get_by_role("region", name="Search results")
    expect(results.locator(".search-file", has_text=TITLE)).to_be_visible(timeout=WAIT)
    expect(results.locator(".search-file", has_text="Zephyr notes")).to_be_visible()

    # carol, granted the same workspace: not in her open tree (a note written after the chat
    # shows up live there, so the chat's own tree event would have arrived before it), nor
    # in her chat list or search.
    later = team_server.workspace / "later.md"
    later.write_text("# Later\n\nWritten after the chat.\n", encoding="utf-8")
    expect(carol_tree.locator(f'[data-path="{later}"]')).to_be_visible(timeout=WAIT)
    expect(carol_tree.locator(f'[data-path="{chat_path}"]')).to_have_count(0)
    expect(carol_tree).not_to_contain_text(SLUG)
    search(carol, "zephyr")
    carol_results = carol.get_by_role("region", name="Search results")
    expect(carol_results.locator(".search-file", has_text="Zephyr notes")).to_be_visible(
        timeout=WAIT
    )
    expect(carol_results.locator(".search-file")).to_have_count(1)
    expect(carol_results).not_to_contain_text(TITLE)
    expect(carol_results).not_to_contain_text("countdown")
    enter_chats(carol)
    expect(carol.locator(".chat-list-empty")).to_contain_text("No chats", timeout=WAIT)
    expect(carol.locator(".chat-row")).to_have_count(0)

    # Its address, opened in a new tab, shows carol a refusal and nothing of the chat.
    linked = carol.context.new_page()
    linked.on("pageerror", lambda error: errors.append(str(error)))
    linked.goto(f"{team_server.url}/#chats={quote(str(chat_path), safe='')}")
    linked.locator(".app").wait_for(timeout=WAIT)
    refusal = linked.locator(".chat-deleted")
    expect(refusal).to_contain_text(
        re.compile("access denied|does not exist|not found", re.IGNORECASE), timeout=WAIT
    )
    expect(linked.locator(".chat-message")).to_have_count(0)
    expect(linked.locator("body")).not_to_contain_text("countdown")
    expect(linked.locator("body")).not_to_contain_text("zephyr crew")
    expect(linked.locator(".chat-row")).to_have_count(0)
    screenshot(linked, "team-chat-carol-refused")

    # alice removes bob with Members…; bob's open window says so, without a reload.
    bob.evaluate("window.__sameLoad = true")
    enter_chats(alice)
    chat_row(alice).click(button="right")
    alice.get_by_role("menuitem", name="Members…").click()
    members = alice.get_by_role("dialog", name="Chat members")
    listed = members.locator("[data-chat-members] li")
    expect(listed).to_have_count(2, timeout=WAIT)
    listed.filter(has_text="bob").get_by_role("button", name="Remove").click()
    expect(listed).to_have_count(1, timeout=WAIT)
    expect(listed).to_contain_text("alice")
    screenshot(alice, "team-chat-members-after-removal")

    gone = bob.locator(".chat-deleted")
    expect(gone).to_contain_text("You no longer have access to this chat", timeout=WAIT)
    expect(bob.locator(".chat-input")).to_have_count(0)
    assert bob.evaluate("window.__sameLoad") is True
    expect(chat_row(bob)).to_have_count(0, timeout=WAIT)
    screenshot(bob, "team-chat-bob-removed")
    assert errors == [], f"a page threw: {errors}"
