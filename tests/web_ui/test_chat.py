"""Chat mode in a real browser against a real `quire serve`: two people (two browser profiles
with different names) and a CLI agent in one chat, mention completion, unread counts, the
status line, the "new messages" pill, inert reaction pictures, and Back to where you were."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

    from tests.web_ui.conftest import PageFactory, Server

QUIRE = str(Path(sys.executable).with_name("quire"))
HARNESS_VARIABLES = (
    "QUIRE_AS",
    "QUIRE_USER",
    "QUIRE_KEEPALIVE",
    "QUIRE_SESSION",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
)
EVIL_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"
  onload="console.log('ran onload')">
<script>console.log('ran script'); window.top.__ranScript = 1; document.title = 'ran';</script>
<circle cx="32" cy="32" r="28" fill="#d33"/>
</svg>
"""


def cli_environ(server: Server) -> dict[str, str]:
    """The CLI's environment: the server's state folder (so it finds that server), and no
    agent harness session of whoever runs the tests."""
    base = {key: value for key, value in os.environ.items() if key not in HARNESS_VARIABLES}
    return {**base, "QUIRE_HOME": str(server.state)}


def cli(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [QUIRE, "chat", *args],
        env=cli_environ(server),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def make_chat(server: Server, name: str = "team", title: str = "Team") -> Path:
    path = server.workspace / "Chats" / f"{name}.md"
    with server.agent() as agent:
        agent.post("/api/chats", json={"path": str(path), "title": title}).raise_for_status()
    return path


def post(server: Server, chat: Path, name: str, body: str) -> None:
    with server.agent() as agent:
        agent.post(
            "/api/chats/post", json={"path": str(chat), "as": name, "body": body}
        ).raise_for_status()


def enter_chats(page: Page) -> None:
    page.locator(".chats-button").click()
    expect(page.locator("[data-chat-mode]")).to_be_visible()


def open_chat(page: Page, title: str) -> None:
    page.locator(".chat-row", has_text=title).click()
    expect(page.locator(".chat-title")).to_have_text(title)


@contextmanager
def first_read_held(page: Page, title: str) -> Iterator[list[Route]]:
    """Open the chat ``title`` with its first read held back: the held routes, to let through
    (or answer) when the test says."""
    held: list[Route] = []
    # A lambda: Playwright does not take a builtin (held.append) as a handler.
    page.route("**/api/chats/read?*", lambda route: held.append(route))
    try:
        enter_chats(page)
        with page.expect_request("**/api/chats/read?*"):
            page.locator(".chat-row", has_text=title).click()
        yield held
    finally:
        page.unroute("**/api/chats/read?*")


def set_name(page: Page, name: str) -> None:
    page.locator(".chat-as input").fill(name)


def send(page: Page, text: str) -> None:
    box = page.locator(".chat-input")
    box.fill(text)
    box.press("Enter")


def at_bottom(page: Page) -> bool:
    at: bool = page.locator(".chat-scroller").evaluate(
        "(e) => e.scrollHeight - e.scrollTop - e.clientHeight < 4"
    )
    return at


def test_two_people_and_a_cli_agent_talk_live(open_page: PageFactory, server: Server) -> None:
    chat = make_chat(server)
    ada = open_page()
    bob = open_page(scheme="dark")
    for page, name in ((ada, "ada"), (bob, "bob")):
        enter_chats(page)
        open_chat(page, "Team")
        set_name(page, name)
        page.evaluate("window.__sameLoad = true")
    waiting = subprocess.Popen(
        [QUIRE, "chat", "wait", str(chat), "--as", "bot", "--timeout", "60"],
        env=cli_environ(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for page in (ada, bob):
            expect(
                page.locator(".chat-presence [data-presence=waiting][data-name=bot]")
            ).to_be_visible()
        expect(ada.locator(".chat-presence")).to_contain_text("is waiting")
        send(ada, "Hello @bot, is the build green?")
        stdout, stderr = waiting.communicate(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.communicate()
    assert waiting.returncode == 0, stderr
    assert "ada" in stdout
    assert "Hello @bot, is the build green?" in stdout
    expect(bob.locator(".chat-message[data-author=ada]")).to_contain_text("is the build green")

    replied = cli(server, "post", str(chat), "Green on every platform, @ada.", "--as", "bot")
    assert replied.returncode == 0, replied.stderr
    for page in (ada, bob):
        expect(page.locator(".chat-message[data-author=bot]")).to_contain_text("Green on every")
        assert page.evaluate("window.__sameLoad") is True
    expect(ada.locator(".chat-message.for-me[data-author=bot]")).to_be_visible()
    expect(ada.locator(".chat-message[data-author=bot] .mention-me")).to_have_text("@ada")
    expect(bob.locator(".chat-message.for-me")).to_have_count(0)

    status = cli(server, "post", str(chat), "/status checking the release notes", "--as", "bot")
    assert status.returncode == 0, status.stderr
    context = cli(server, "post", str(chat), "/context 87k/100k", "--as", "bot")
    assert context.returncode == 0, context.stderr
    working = bob.locator(".chat-presence .state-working")
    expect(working).to_contain_text("bot")
    expect(working).to_contain_text("checking the release notes")
    expect(working.locator(".chat-context.high")).to_have_text("87%")
    screenshot(ada, "chat-01-conversation")
    screenshot(bob, "chat-02-conversation-dark")
    send(bob, "Thanks!")
    expect(ada.locator(".chat-message[data-author=bob]")).to_contain_text("Thanks!")


def test_at_offers_the_names_in_the_chat_and_tab_completes(page: Page, server: Server) -> None:
    chat = make_chat(server)
    post(server, chat, "carol-qa", "Ready when you are.")
    post(server, chat, "dave", "Same here.")
    enter_chats(page)
    open_chat(page, "Team")
    box = page.locator(".chat-input")
    box.fill("Over to you @ca")
    box.press("End")
    completions = page.locator(".chat-completions [role=option]")
    expect(completions).to_have_text(["@carol-qa"])
    screenshot(page, "chat-03-mention-completion")
    box.press("Tab")
    expect(box).to_have_value("Over to you @carol-qa ")
    box.press_sequentially("and @")
    expect(completions).to_contain_text(["@carol-qa", "@dave", "@all", "@everyone"])
    box.press("ArrowDown")
    box.press("Tab")
    expect(box).to_have_value("Over to you @carol-qa and @dave ")
    box.press("Enter")
    sent = page.locator(".chat-message", has_text="Over to you")
    expect(sent.locator(".mention")).to_have_text(["@carol-qa", "@dave"])
    expect(box).to_have_value("")
    with server.agent() as agent:
        messages = agent.get("/api/chats/read", params={"path": str(chat)}).json()["messages"]
    assert messages[-1]["body"] == "Over to you @carol-qa and @dave"
    assert messages[-1]["mentions"] == ["carol-qa", "dave"]


def test_an_at_typed_before_the_chat_has_loaded_is_offered_the_names(
    page: Page, server: Server
) -> None:
    """The chat's first read is held back until `@ca` is in the box: the names it brings are
    offered then, without another key."""
    chat = make_chat(server, "held", "Held")
    post(server, chat, "carol-qa", "Ready when you are.")
    with first_read_held(page, "Held") as held:
        expect(page.locator(".chat-title")).to_have_text("Held")
        assert held, "the chat's first read was not held back"
        box = page.locator(".chat-input")
        box.fill("Over to you @ca")
        completions = page.locator(".chat-completions [role=option]")
        expect(completions).to_have_count(0)
        for route in held:
            route.continue_()
        expect(completions).to_have_text(["@carol-qa"])
        expect(box).to_have_value("Over to you @ca")


def test_shift_enter_adds_a_line_and_enter_sends(page: Page, server: Server) -> None:
    chat = make_chat(server)
    enter_chats(page)
    open_chat(page, "Team")
    box = page.locator(".chat-input")
    box.press_sequentially("first line")
    box.press("Shift+Enter")
    box.press_sequentially("second line")
    expect(box).to_have_value("first line\nsecond line")
    box.press("Enter")
    expect(page.locator(".chat-message")).to_have_count(1)
    with server.agent() as agent:
        messages = agent.get("/api/chats/read", params={"path": str(chat)}).json()["messages"]
    assert [(m["author"], m["body"]) for m in messages] == [("Owner", "first line\nsecond line")]


def test_the_reaction_button_posts_a_picture_in_one_click(page: Page, server: Server) -> None:
    chat = make_chat(server)
    enter_chats(page)
    open_chat(page, "Team")
    page.get_by_role("button", name="Reactions").click()
    picker = page.get_by_role("dialog", name="Reactions")
    expect(picker.locator("[data-gif-name=thumbs-up] img")).to_be_visible()
    picker.locator("[data-gif-name=thumbs-up]").click()
    expect(picker).to_have_count(0)
    shown = page.locator(".chat-message .chat-body img[data-gif=thumbs-up]")
    expect(shown).to_be_visible()
    assert page.locator(".chat-message svg image, .chat-message svg script").count() == 0
    with server.agent() as agent:
        messages = agent.get("/api/chats/read", params={"path": str(chat)}).json()["messages"]
    assert [m["body"] for m in messages] == ["![thumbs-up](gif:thumbs-up)"]


def test_the_list_counts_unread_messages_live(page: Page, server: Server) -> None:
    team = make_chat(server)
    other = make_chat(server, "other", "Other")
    # An empty chat is as recent as its file; a message's time has whole seconds only.
    hour_ago = other.stat().st_mtime - 3600
    os.utime(other, (hour_ago, hour_ago))
    expect(page.locator(".chats-button")).to_have_accessible_name("Chats")
    post(server, team, "bot", "One.")
    post(server, team, "bot", "Two.")
    expect(page.locator(".chats-button .chats-badge")).to_have_text("2")
    enter_chats(page)
    row = page.locator(".chat-row", has_text="Team")
    expect(row.locator(".chat-unread")).to_have_text("2")
    expect(page.locator(".chat-row").first).to_contain_text("Team")
    post(server, team, "bot", "Three.")
    expect(row.locator(".chat-unread")).to_have_text("3")
    screenshot(page, "chat-04-list-unread")
    open_chat(page, "Team")
    expect(row.locator(".chat-unread")).to_have_count(0)
    post(server, team, "bot", "Four, while you look.")
    expect(page.locator(".chat-message", has_text="Four")).to_be_visible()
    expect(row.locator(".chat-unread")).to_have_count(0)
    page.locator(".chat-row", has_text="Other").click()
    post(server, team, "bot", "Five.")
    expect(row.locator(".chat-unread")).to_have_text("1")


def test_new_messages_from_others_never_scroll_but_show_a_pill(page: Page, server: Server) -> None:
    chat = make_chat(server)
    for number in range(40):
        post(server, chat, "bot", f"Earlier message {number}.")
    enter_chats(page)
    open_chat(page, "Team")
    expect(page.locator(".chat-message", has_text="Earlier message 39.")).to_be_in_viewport()
    eventually(lambda: at_bottom(page), "the chat to open at its bottom")
    scroller = page.locator(".chat-scroller")
    top = scroller.evaluate("(e) => e.scrollTop")
    for number in range(3):
        post(server, chat, "ann", f"Fresh news {number}.")
    pill = page.locator(".chat-new-pill")
    expect(pill).to_have_text("3 new messages")
    assert scroller.evaluate("(e) => e.scrollTop") == top
    expect(page.locator(".chat-message", has_text="Fresh news 2.")).not_to_be_in_viewport()
    screenshot(page, "chat-05-new-messages-pill")
    pill.click()
    expect(pill).to_have_count(0)
    expect(page.locator(".chat-message", has_text="Fresh news 2.")).to_be_in_viewport()
    scroller.evaluate("(e) => e.scrollTo(0, 0)")
    send(page, "My own post comes into view.")
    expect(page.locator(".chat-message", has_text="My own post")).to_be_in_viewport()
    eventually(lambda: at_bottom(page), "the person's own post to bring the view down")
    expect(pill).to_have_count(0)


def test_a_reaction_with_a_script_stays_inert(open_page: PageFactory, server: Server) -> None:
    gifs = server.workspace / "ChatGifs"
    gifs.mkdir()
    (gifs / "sneaky.svg").write_text(EVIL_SVG, encoding="utf-8")
    chat = make_chat(server)
    post(server, chat, "bot", "Look: ![sneaky](gif:sneaky) and ![nod](gif:nod)")
    logs: list[str] = []

    def listen(page: Page) -> None:
        page.on("console", lambda message: logs.append(message.text))

    page = open_page(before=listen)
    enter_chats(page)
    open_chat(page, "Team")
    picture = page.locator(".chat-body img[data-gif=sneaky]")
    expect(picture).to_be_visible()
    eventually(lambda: picture.evaluate("(img) => img.complete && img.naturalWidth > 0"), "load")
    source = picture.get_attribute("src")
    assert source is not None
    assert source.startswith("/api/chats/gif?")
    assert "name=sneaky" in source
    assert page.locator("svg script").count() == 0
    assert page.evaluate("window.__ranScript") is None
    expect(page.locator(".chat-body img[data-gif=nod]")).to_be_visible()

    direct = open_page(before=listen)
    response = direct.goto(server.url + source)
    assert response is not None
    assert response.status == 200
    assert "sandbox" in response.headers["content-security-policy"]
    assert direct.evaluate("document.title") != "ran"
    assert direct.evaluate("window.__ranScript") is None
    assert not [line for line in logs if line.startswith("ran ")]


def test_back_returns_to_the_document_and_view_you_came_from(page: Page, server: Server) -> None:
    make_chat(server)
    page.locator(".tree-file", has_text="plan").click()
    page.locator("[data-view-button=edit]").click()
    expect(page.locator(".cm-content")).to_contain_text("Write the summary.")
    enter_chats(page)
    expect(page.locator(".sidebar")).to_have_count(0)
    expect(page.locator(".tabbar")).to_have_count(0)
    expect(page.locator(".doc-header")).to_have_count(0)
    back = page.locator(".chat-back")
    expect(back).to_have_text("Back to plan")
    open_chat(page, "Team")
    with server.agent() as agent:
        # An agent opening another document meanwhile does not change where Back returns.
        agent.post(
            "/api/documents/open", json={"path": str(server.workspace / "welcome.md")}
        ).raise_for_status()
    screenshot(page, "chat-06-chat-mode")
    back.click()
    expect(page.locator("[data-chat-mode]")).to_have_count(0)
    expect(page.locator(".tab.active")).to_contain_text("plan")
    expect(page.locator("[data-view-button=edit]")).to_have_attribute("aria-checked", "true")
    expect(page.locator(".cm-content")).to_contain_text("Write the summary.")

    def server_shows_plan_in_edit() -> bool:
        # The window shows its choice at once and tells the server after: ask until it knows.
        with server.agent() as agent:
            window = agent.get("/api/window").json()
        active = next(tab for tab in window["tabs"] if tab["docId"] == window["active"])
        return bool(active["path"].endswith("plan.md") and active["view"] == "edit")

    eventually(server_shows_plan_in_edit, "the server's window to have plan active, in Edit")


def test_the_path_under_the_title_opens_the_note_in_the_editor(page: Page, server: Server) -> None:
    make_chat(server)
    enter_chats(page)
    open_chat(page, "Team")
    page.locator(".chat-path").click()
    expect(page.locator("[data-chat-mode]")).to_have_count(0)
    expect(page.locator(".tab.active")).to_contain_text("team")
    expect(page.locator(".cm-content")).to_contain_text("quire-chat: true")


def test_a_chat_deleted_while_open_says_so_and_takes_no_posts(page: Page, server: Server) -> None:
    chat = make_chat(server)
    post(server, chat, "bot", "Soon gone.")
    enter_chats(page)
    open_chat(page, "Team")
    with server.agent() as agent:
        agent.post("/api/chats/delete", json={"path": str(chat)}).raise_for_status()
    expect(page.locator(".chat-deleted")).to_contain_text("This chat was deleted")
    expect(page.locator(".chat-input")).to_have_count(0)
    expect(page.locator(".chat-row", has_text="Team")).to_have_count(0)
    screenshot(page, "chat-07-deleted")
    page.locator(".chat-deleted").get_by_role("button", name="Back to the list").click()
    expect(page.locator(".chat-none")).to_be_visible()


def test_a_chat_deleted_while_its_first_read_is_on_the_way_stays_deleted(
    page: Page, server: Server
) -> None:
    """The read that opens the chat answers after the chat was deleted: what it brings is
    shown, and the chat still says it was deleted."""
    chat = make_chat(server, "late", "Late")
    post(server, chat, "bot", "Soon gone.")
    with first_read_held(page, "Late") as held:
        answer = held[0].fetch()
        with server.agent() as agent:
            agent.post("/api/chats/delete", json={"path": str(chat)}).raise_for_status()
        expect(page.locator(".chat-deleted")).to_contain_text("This chat was deleted")
        held[0].fulfill(response=answer)
        expect(page.locator(".chat-message")).to_contain_text("Soon gone.")
        expect(page.locator(".chat-deleted")).to_contain_text("This chat was deleted")
        expect(page.locator(".chat-input")).to_have_count(0)


def test_new_pin_collapse_and_delete_from_the_list(page: Page, server: Server) -> None:
    enter_chats(page)
    page.locator(".chat-new").click()
    dialog = page.get_by_role("dialog", name="New chat")
    dialog.get_by_label("Name").fill("Release coordination")
    expect(dialog).to_contain_text("Chats/release-coordination.md")
    screenshot(page, "chat-08-new-chat")
    dialog.get_by_role("button", name="Create chat").click()
    expect(page.locator(".chat-title")).to_have_text("Release coordination")
    created = server.workspace / "Chats" / "release-coordination.md"
    assert created.read_text(encoding="utf-8").startswith("---\n")
    row = page.locator(".chat-row", has_text="Release coordination")
    page.get_by_role("tab", name="Pinned").click()
    expect(page.locator(".chat-row")).to_have_count(0)
    page.get_by_role("tab", name="All").click()
    row.hover()
    row.get_by_role("button", name="Pin Release coordination").click()
    page.get_by_role("tab", name="Pinned").click()
    expect(page.locator(".chat-row")).to_have_count(1)
    page.get_by_role("button", name="Collapse the chat list").click()
    expect(page.locator(".chat-strip-item")).to_have_text(["R"])
    page.reload()
    expect(page.locator(".chat-strip-item")).to_have_count(1)
    page.get_by_role("button", name="Show the chat list").click()
    page.locator(".chat-row", has_text="Release coordination").click(button="right")
    menu = page.get_by_role("menu")
    expect(menu.get_by_role("menuitem")).to_have_text(
        ["Unpin", "Open as note", "Copy path", "Connect an agent…", "Delete chat"]
    )
    screenshot(page, "chat-09-context-menu")
    menu.get_by_role("menuitem", name="Delete chat").click()
    page.get_by_role("dialog", name="Delete chat").get_by_role("button", name="Delete chat").click()
    expect(page.locator(".chat-row")).to_have_count(0)
    assert not created.exists()


@pytest.mark.parametrize(
    ("name", "folder", "shown"),
    [
        ("Ünïcode — Plan!!", "Chats/", "Chats/unicode-plan.md"),
        ("  Release   coordination  ", "team//chats", "team/chats/release-coordination.md"),
        ("rm -rf / ; $(reboot)", "/Chats\\", "Chats/rm-rf-reboot.md"),
        ("Notes", "", "notes.md"),
    ],
)
def test_a_new_chat_gets_a_shell_safe_file_name(
    page: Page, server: Server, name: str, folder: str, shown: str
) -> None:
    enter_chats(page)
    page.locator(".chat-new").click()
    dialog = page.get_by_role("dialog", name="New chat")
    dialog.get_by_label("Name").fill(name)
    dialog.get_by_label("Folder").fill(folder)
    expect(dialog.locator(".chat-field-note code")).to_have_text(shown)
    dialog.get_by_role("button", name="Create chat").click()
    expect(page.locator(".chat-title")).to_have_text(name.strip())
    assert (server.workspace / shown).is_file()


@pytest.mark.parametrize(
    ("name", "folder", "problem"),
    [
        ("!!!", "Chats/", "letters or digits"),
        ("日本語", "Chats/", "letters or digits"),
        ("Plan", "../outside", "inside the workspace"),
        ("Plan", "Chats/.hidden", "inside the workspace"),
    ],
)
def test_a_new_chat_name_or_folder_that_cannot_be_used_is_refused_in_the_form(
    page: Page, server: Server, name: str, folder: str, problem: str
) -> None:
    enter_chats(page)
    page.locator(".chat-new").click()
    dialog = page.get_by_role("dialog", name="New chat")
    dialog.get_by_label("Name").fill(name)
    dialog.get_by_label("Folder").fill(folder)
    expect(dialog.locator(".chat-field-note.problem")).to_contain_text(problem)
    expect(dialog.get_by_role("button", name="Create chat")).to_be_disabled()
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)
    assert not (server.workspace / "Chats").exists()


def test_connect_an_agent_builds_the_prompt_and_saves_the_role(
    open_page: PageFactory, server: Server
) -> None:
    chat = make_chat(server)
    page = open_page(permissions=["clipboard-read", "clipboard-write"])
    enter_chats(page)
    open_chat(page, "Team")
    page.locator(".chat-connect").click()
    dialog = page.get_by_role("dialog", name="Connect an agent")
    dialog.get_by_role("button", name="QA", exact=True).click()
    expect(dialog.get_by_label("Name")).to_have_value("qa-1")
    prompt = dialog.locator(".chat-prompt-text")
    expect(prompt).to_contain_text(f"quire chat read {chat} --as qa-1")
    expect(prompt).to_contain_text(f"quire chat avatar {server.workspace} --as qa-1 --pick auto")
    expect(prompt).to_contain_text(f"quire chat wait {chat} --as qa-1")
    expect(prompt).to_contain_text(f"quire chat leave {chat} --as qa-1")
    expect(prompt).to_contain_text("/context 42%")
    expect(prompt).to_contain_text("exits 3")
    screenshot(page, "chat-10-connect-an-agent")
    dialog.get_by_role("button", name="Copy prompt").click()
    expect(dialog.locator(".chat-roles li")).to_have_count(1)
    expect(dialog.locator(".chat-roles")).to_contain_text("qa-1")
    assert page.evaluate("navigator.clipboard.readText()") == prompt.inner_text()
    with server.agent() as agent:
        roles = agent.get("/api/chats/read", params={"path": str(chat)}).json()["roles"]
    assert set(roles) == {"qa-1"}
    dialog.get_by_role("button", name="QA", exact=True).click()
    expect(dialog.get_by_label("Name")).to_have_value("")
    dialog.get_by_role("button", name="Remove qa-1's role").click()
    expect(dialog.locator(".chat-roles")).to_have_count(0)
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    with server.agent() as agent:
        roles = agent.get("/api/chats/read", params={"path": str(chat)}).json()["roles"]
    assert roles == {}


def test_a_phone_shows_the_list_and_the_conversation_as_two_screens(
    open_page: PageFactory, server: Server
) -> None:
    chat = make_chat(server)
    post(server, chat, "bot", "Hello from the phone test. ![wave](gif:wave)")
    page = open_page(width=390, height=780, is_mobile=True, has_touch=True)
    enter_chats(page)
    expect(page.locator(".chat-back")).to_be_visible()
    screenshot(page, "chat-11-phone-list")
    page.locator(".chat-row", has_text="Team").click()
    expect(page.locator(".chat-list")).to_be_hidden()
    expect(page.locator(".chat-message", has_text="Hello from the phone")).to_be_visible()
    screenshot(page, "chat-12-phone-conversation")
    page.get_by_role("button", name="Back to the chat list").click()
    expect(page.locator(".chat-row", has_text="Team")).to_be_visible()
    page.locator(".chat-back").click()
    expect(page.locator("[data-chat-mode]")).to_have_count(0)
