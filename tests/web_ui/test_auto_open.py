"""The auto-open hook end to end: an agent writes a new note, Claude Code runs
`quire hook post-tool-use` with its PostToolUse payload, and the note opens in the window the
person has open in a real browser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.web_ui.support import screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web_ui.conftest import Server

NOTE = "# Release notes\n\nWritten by the agent a moment ago.\n\n- [ ] Check the dates\n"


def run_hook(server: Server, payload: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
    """Run the hook as Claude Code does: the payload on stdin, the person's environment."""
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "BROWSER")}
    env["QUIRE_HOME"] = str(server.state)
    return subprocess.run(
        [str(Path(sys.executable).with_name("quire")), "hook", "post-tool-use"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=server.workspace,
        timeout=120,
        check=False,
    )


def test_a_note_the_agent_writes_opens_in_the_persons_window(page: Page, server: Server) -> None:
    expect(page.locator(".welcome")).to_contain_text("No document open")
    note = server.workspace / "notes" / "release-notes.md"
    note.write_text(NOTE, encoding="utf-8")
    result = run_hook(
        server,
        {
            "session_id": "e2e",
            "transcript_path": str(server.state / "transcript.jsonl"),
            "cwd": str(server.workspace),
            "permission_mode": "acceptEdits",
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": "notes/release-notes.md", "content": NOTE},
            "tool_response": {"type": "create", "filePath": str(note), "success": True},
            "tool_use_id": "toolu_e2e",
        },
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    expect(page.locator(".tab.active")).to_contain_text("release-notes")
    body = page.locator(".read-content")
    expect(body.locator("h1")).to_have_text("Release notes")
    expect(body).to_contain_text("Written by the agent a moment ago.")
    expect(page.locator("[data-view-button=read]")).to_have_attribute("aria-checked", "true")
    screenshot(page, "auto-open-hook")


def test_a_note_read_by_the_agent_stays_closed(page: Page, server: Server) -> None:
    note = server.workspace / "welcome.md"
    result = run_hook(
        server,
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(note)},
            "tool_response": {"type": "text"},
        },
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    with server.agent() as agent:
        assert agent.get("/api/window").json()["tabs"] == []
    expect(page.locator(".welcome")).to_contain_text("No document open")
