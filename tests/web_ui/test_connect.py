"""Settings → Agents in a real browser against a real `quire serve` whose HOME and PATH are
the test's: Claude Code is a recording stand-in on PATH, Cursor has only its settings folder,
Codex is missing. Buttons work only for the agents found; every command can be copied."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from quire import __version__
from tests.web_ui.support import eventually, screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from tests.web_ui.conftest import PageFactory

CLAUDE_STAND_IN = """#!/bin/sh
printf '%s\\n' "$*" >> "$HOME/claude-calls.log"
if [ "$1 $2" = "mcp get" ]; then
  echo "No MCP server found with name: $3" >&2
  exit 1
fi
exit 0
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".cursor").mkdir(parents=True)
    return folder


@pytest.fixture
def server_env(tmp_path: Path, home: Path) -> dict[str, str]:
    shims = tmp_path / "bin"
    shims.mkdir()
    claude = shims / "claude"
    claude.write_text(CLAUDE_STAND_IN, encoding="utf-8")
    claude.chmod(0o755)
    return {"HOME": str(home), "PATH": f"{shims}:/usr/bin:/bin"}


def open_settings(page: Page) -> Locator:
    page.get_by_role("button", name="Settings").click()
    dialog = page.get_by_role("dialog", name="Settings")
    expect(dialog.locator(".agent-card")).to_have_count(4)
    return dialog


def card(dialog: Locator, agent: str) -> Locator:
    return dialog.locator(f".agent-card[data-agent='{agent}']")


def test_only_agents_found_on_the_machine_can_be_connected(page: Page) -> None:
    dialog = open_settings(page)
    codex = card(dialog, "codex")
    expect(codex.locator(".agent-state")).to_have_text("Not installed")
    expect(codex.get_by_role("button", name="Connect")).to_be_disabled()
    expect(codex.locator(".agent-detail")).to_contain_text("not found")
    for agent in ("claude-code", "cursor"):
        expect(card(dialog, agent).locator(".agent-state")).to_have_text("Not connected")
        expect(card(dialog, agent).get_by_role("button", name="Connect")).to_be_enabled()
    screenshot(page, "17-settings-agents")


def test_connecting_cursor_registers_quire_in_its_settings(page: Page, home: Path) -> None:
    dialog = open_settings(page)
    cursor = card(dialog, "cursor")
    cursor.get_by_role("button", name="Connect").click()
    expect(cursor.locator(".settings-outcome")).to_be_visible()
    expect(cursor.locator(".agent-state")).to_have_text("Connected")
    expect(cursor.get_by_role("button", name="Connected")).to_be_disabled()
    servers = json.loads((home / ".cursor" / "mcp.json").read_text(encoding="utf-8"))
    assert "quire" in servers["mcpServers"]


def test_connecting_claude_code_runs_its_add_command(page: Page, home: Path) -> None:
    dialog = open_settings(page)
    claude = card(dialog, "claude-code")
    command = claude.locator(".command-text").inner_text()
    assert command.startswith("claude mcp add")
    claude.get_by_role("button", name="Connect").click()
    expect(claude.locator(".settings-outcome")).to_be_visible()
    calls = (home / "claude-calls.log").read_text(encoding="utf-8").splitlines()
    assert any(call.startswith("mcp add") for call in calls), calls


def test_the_copy_button_copies_the_exact_command(open_page: PageFactory) -> None:
    page = open_page(permissions=["clipboard-read", "clipboard-write"])
    dialog = open_settings(page)
    codex = card(dialog, "codex")
    command = codex.locator(".command-text").inner_text()
    assert command.startswith("codex mcp add quire")
    codex.get_by_role("button", name="Copy").click()
    expect(codex.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == command


def test_the_hook_installs_and_comes_out_again(page: Page, home: Path) -> None:
    dialog = open_settings(page)
    hook = dialog.locator(".hook-card")
    expect(hook.locator(".agent-state")).to_have_text("Not installed")
    hook.get_by_role("button", name="Install hook").click()
    expect(hook.locator(".agent-state")).to_have_text("Installed")
    settings = home / ".claude" / "settings.json"
    assert "hook post-tool-use" in settings.read_text(encoding="utf-8")
    hook.get_by_role("button", name="Remove").click()
    expect(hook.locator(".agent-state")).to_have_text("Not installed")
    eventually(
        lambda: "hook post-tool-use" not in settings.read_text(encoding="utf-8"),
        "the hook to leave ~/.claude/settings.json",
    )


def test_settings_open_from_the_palette_and_escape_closes_them(page: Page) -> None:
    page.keyboard.press("Control+k")
    page.get_by_label("Command or file name").fill("connect")
    page.get_by_role("option", name=re.compile("Connect an agent")).click()
    expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="Settings")).to_have_count(0)


def test_settings_fit_a_phone_screen(open_page: PageFactory) -> None:
    page = open_page(width=390, height=844)
    dialog = open_settings(page)
    expect(card(dialog, "cursor").get_by_role("button", name="Connect")).to_be_in_viewport()
    screenshot(page, "18-phone-settings")


def test_settings_name_the_version_of_quire_the_server_runs(page: Page) -> None:
    dialog = open_settings(page)
    about = dialog.get_by_role("region", name="About")
    expect(about).to_contain_text(f"Quire {__version__}")
