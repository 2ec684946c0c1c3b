"""The Export dialog in a real browser against a real `quire serve`: opened from the command
palette, the document's toolbar, an `/export` link and an agent's request; an HTML export
downloaded in the browser and a PDF saved beside the document."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.web_ui.support import screenshot

pytest.importorskip("playwright.sync_api", reason="the UI tests need Playwright for Python")

from playwright.sync_api import expect

if TYPE_CHECKING:
    from tests.web_ui.conftest import PageFactory, Server


def _open(server: Server, name: str) -> Path:
    path = server.workspace / name
    with server.agent() as agent:
        agent.post("/api/documents/open", json={"path": str(path), "mode": "read"})
    return path


def test_the_palette_opens_the_dialog_and_an_html_export_downloads(
    open_page: PageFactory, server: Server, tmp_path: Path
) -> None:
    _open(server, "welcome.md")
    page = open_page(accept_downloads=True)
    expect(page.locator(".read-content")).to_contain_text("This paragraph is here to be read.")
    page.keyboard.press("Control+k")
    page.keyboard.type(">Export")
    palette = page.get_by_role("dialog", name="Command palette")
    expect(palette.locator(".palette-item.selected")).to_contain_text("Export…")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Export")
    expect(dialog).to_be_visible()
    dialog.locator("select[name=format]").select_option("html")
    expect(dialog.locator("input[name=output]")).to_have_value(
        str(server.workspace / "welcome.html")
    )
    dialog.get_by_label("Download in this browser").check()
    screenshot(page, "30-export-dialog")
    with page.expect_download() as waiting:
        dialog.get_by_role("button", name="Download").click()
    download = waiting.value
    assert download.suggested_filename == "welcome.html"
    saved = tmp_path / "downloaded.html"
    download.save_as(saved)
    html = saved.read_text(encoding="utf-8")
    assert "This paragraph is here to be read." in html
    assert "<script" not in html.lower()
    expect(dialog).to_be_hidden()
    assert not (server.workspace / "welcome.html").exists()


def test_an_export_link_opens_the_dialog_with_its_format_and_saves_beside_the_file(
    open_page: PageFactory, server: Server
) -> None:
    page = open_page()
    target = server.workspace / "welcome.md"
    page.goto(f"{server.url}/export?path={quote(str(target))}&format=html")
    dialog = page.get_by_role("dialog", name="Export")
    expect(dialog).to_be_visible()
    expect(dialog.locator("select[name=format]")).to_have_value("html")
    dialog.get_by_role("button", name="Export", exact=True).click()
    expect(page.locator(".toast").last).to_contain_text("welcome.html")
    assert (server.workspace / "welcome.html").read_text(encoding="utf-8").count("<h1") == 1


def test_an_agents_request_and_the_toolbar_open_the_dialog(
    open_page: PageFactory, server: Server
) -> None:
    _open(server, "welcome.md")
    page = open_page()
    expect(page.locator(".read-content")).to_contain_text("This paragraph is here to be read.")
    with server.agent() as agent:
        answer = agent.post("/api/export/dialog", json={"format": "epub"}).json()
    assert answer["browserConnected"] is True
    dialog = page.get_by_role("dialog", name="Export")
    expect(dialog.locator("select[name=format]")).to_have_value("epub")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Export", exact=True).click()
    expect(dialog.locator("select[name=format]")).to_have_value("pdf")
