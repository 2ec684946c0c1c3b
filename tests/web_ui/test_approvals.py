"""Agent approvals in Debian's Chromium against a real `quire serve`: a waiting hook's card
shows in the approvals list (and in the chat its agent waits in), the bidi character of its
command shown as an escape, and each click returns the right JSON to the waiting hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.web_ui.conftest import Server

if TYPE_CHECKING:
    from playwright.sync_api import Page, WebSocketRoute

expect = pytest.importorskip("playwright.sync_api").expect

QUIRE = Path(sys.executable).with_name("quire")
POLICY = "SERVER=local\nMACHINE_LABEL=build-box\nTOOLS=Bash\nQUESTIONS=yes\n"
PREFIX = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'


@pytest.fixture
def server_env(tmp_path: Path) -> dict[str, str]:
    """Approvals on in the server's quire.toml, and the machine's policy, before it starts."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / "quire.toml").write_text("[approvals]\nenabled = true\n", encoding="utf-8")
    (state / "approvals.conf").write_text(POLICY, encoding="utf-8")
    return {}


def start_hook(
    server: Server,
    tool: str,
    tool_input: dict[str, Any],
    session: str,
    suggestions: list[dict[str, Any]] | None = None,
) -> subprocess.Popen[bytes]:
    asked: dict[str, Any] = {
        "session_id": session,
        "cwd": str(server.workspace),
        "hook_event_name": "PermissionRequest",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if suggestions is not None:
        asked["permission_suggestions"] = suggestions
    process = subprocess.Popen(
        [str(QUIRE), "approval", "request", "--agent", "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "QUIRE_HOME": str(server.state)},
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(asked).encode())
    process.stdin.close()
    return process


def asked(server: Server, session: str) -> None:
    """Wait until the hook's request of ``session`` waits on the server, so a page loaded now
    lists it (a page's first load does not see what comes before its event socket opens)."""
    deadline = time.monotonic() + 60
    with server.agent() as agent:
        while time.monotonic() < deadline:
            listed = agent.get("/api/approvals").json()["approvals"]
            if any(card["sessionId"] == session and card["status"] == "pending" for card in listed):
                return
            time.sleep(0.05)
    raise AssertionError(f"the hook of {session} never reached the server")


def printed(process: subprocess.Popen[bytes]) -> str:
    assert process.stdout is not None and process.stderr is not None
    with process.stdout, process.stderr:
        out = process.stdout.read()
        err = process.stderr.read()
    assert process.wait(timeout=60) == 0, err
    return out.decode()


def builder_waits_in_a_chat(server: Server) -> None:
    chat = server.workspace / "Chats" / "build.md"
    with server.agent() as agent:
        agent.post("/api/chats", json={"path": str(chat), "title": "Build"}).raise_for_status()
        agent.post(
            "/api/chats/wait",
            json={
                "path": str(chat),
                "as": "Builder",
                "after": 0,
                "timeoutMs": 1000,
                "session": "s-chat",
            },
        ).raise_for_status()


def test_cards_in_the_list_and_the_chat_and_clicks_answer_the_waiting_hooks(
    page: Page, server: Server
) -> None:
    builder_waits_in_a_chat(server)
    bidi = start_hook(
        server, "Bash", {"command": "echo \u202eabc", "description": "Say hi"}, "s-chat"
    )
    badge = page.locator(".approvals-badge")
    expect(badge).to_have_text("1 waiting")
    expect(page).to_have_title("(1) Quire")
    badge.click()
    dialog = page.get_by_role("dialog", name="Agent approvals")
    card = dialog.locator(".approval-card.approval-pending")
    expect(card.locator(".approval-head")).to_contain_text("Builder (Claude Code on build-box)")
    expect(card.get_by_test_id("approval-command")).to_have_text("echo \\u{202E}abc")
    expect(card.locator(".approval-description")).to_have_text("The agent says: Say hi")
    dialog.get_by_role("button", name="Close").click()

    page.locator(".chats-button").click()
    page.locator(".chat-row", has_text="Build").click()
    in_chat = page.locator(".chat-approvals .approval-card")
    expect(in_chat.get_by_test_id("approval-command")).to_have_text("echo \\u{202E}abc")
    in_chat.get_by_role("button", name="Allow", exact=True).click()
    assert printed(bidi) == PREFIX + '{"behavior":"allow"}}}'
    # The ended card stays in the chat, says how it ended, and has no buttons left.
    expect(in_chat.locator(".approval-ended")).to_contain_text("Decided: allowed by you at")
    expect(in_chat.get_by_role("button")).to_have_count(0)
    page.go_back()

    question = {
        "questions": [
            {
                "question": "Ship it?",
                "header": "Release",
                "multiSelect": False,
                "options": [{"label": "Yes"}, {"label": "Not yet"}],
            }
        ]
    }
    asking = start_hook(server, "AskUserQuestion", question, "s-2")
    asked(server, "s-2")
    page.goto(server.url + "/")
    page.locator(".approvals-badge").click()
    dialog = page.get_by_role("dialog", name="Agent approvals")
    dialog.locator(".approval-pending").get_by_role("button", name="Not yet").click()
    answered = {**question, "answers": {"Ship it?": "Not yet"}}
    expected = (
        PREFIX
        + json.dumps({"behavior": "allow", "updatedInput": answered}, separators=(",", ":"))
        + "}}"
    )
    assert printed(asking) == expected
    ended = dialog.locator(".approval-decided", has_text="Ship it?")
    expect(ended.locator(".approval-answer")).to_have_text("Answered: Not yet")
    expect(ended.locator(".approval-ended")).to_contain_text("Decided: answered by you at")
    expect(ended.get_by_role("button")).to_have_count(0)
    expect(ended.get_by_role("textbox")).to_have_count(0)

    denied = start_hook(server, "Bash", {"command": "git push --force"}, "s-3")
    pending = dialog.locator(".approval-pending")
    expect(pending.get_by_test_id("approval-command")).to_have_text("git push --force")
    pending.get_by_role("button", name="Deny with reason").click()
    pending.get_by_label("Reason the agent reads").fill("Open a pull request instead")
    pending.get_by_role("button", name="Send denial").click()
    assert (
        printed(denied) == PREFIX + '{"behavior":"deny","message":"Open a pull request instead"}}}'
    )
    expect(dialog.locator(".approval-decided")).to_have_count(3)
    expect(page.locator(".approvals-badge")).to_have_count(0)


def test_at_phone_width_the_card_keeps_its_buttons(open_page: Any, server: Server) -> None:
    page = open_page(width=390, height=800)
    hook = start_hook(server, "Bash", {"command": "make deploy"}, "s-phone")
    page.locator(".approvals-badge").click()
    pending = page.locator(".approval-pending")
    for name in ("Allow", "Deny", "Deny with reason"):
        expect(pending.get_by_role("button", name=name, exact=True)).to_be_visible()
    pending.get_by_role("button", name="Deny", exact=True).click()
    assert (
        printed(hook)
        == PREFIX + '{"behavior":"deny","message":"The person denied this in Quire."}}}'
    )


def test_allow_for_this_session_hands_the_offered_rule_to_the_waiting_hook(
    page: Page, server: Server
) -> None:
    rule = {
        "type": "addRules",
        "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
        "behavior": "allow",
        "destination": "session",
    }
    hook = start_hook(server, "Bash", {"command": "npm test"}, "s-session", [rule])
    page.locator(".approvals-badge").click()
    pending = page.locator(".approval-pending")
    pending.get_by_role("button", name="Allow for this session (Bash(npm test))").click()
    expected = {"behavior": "allow", "updatedPermissions": [rule]}
    assert printed(hook) == PREFIX + json.dumps(expected, separators=(",", ":")) + "}}"
    decided = page.locator(".approval-decided")
    expect(decided.locator(".approval-ended")).to_contain_text("allowed for this session")


def test_an_approval_asked_while_the_page_loads_shows_once_its_events_connect(
    page: Page, server: Server
) -> None:
    """The request reaches the server after the page's first fetch of approvals and before its
    event socket opens, so no event tells the page: its first connect fetches them again."""
    hooks: list[subprocess.Popen[bytes]] = []

    def ask_then_connect(route: WebSocketRoute) -> None:
        time.sleep(1.5)  # the page's first fetches answer meanwhile (they never wait on this)
        hooks.append(start_hook(server, "Bash", {"command": "make", "description": "Build"}, "s-l"))
        asked(server, "s-l")
        route.connect_to_server()

    page.route_web_socket("**/ws/events", ask_then_connect)
    try:
        page.reload()
        badge = page.locator(".approvals-badge")
        expect(badge).to_have_text("1 waiting")
        badge.click()
        dialog = page.get_by_role("dialog", name="Agent approvals")
        dialog.locator(".approval-card.approval-pending").get_by_role(
            "button", name="Deny", exact=True
        ).click()
        assert '"behavior":"deny"' in printed(hooks[0])
    finally:
        for hook in hooks:
            if hook.poll() is None:
                hook.kill()
                hook.wait(timeout=30)
