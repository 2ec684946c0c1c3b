"""The export tools: ``export`` against the real app in process, ``export_markdown_to_pdf``
in the MCP process; the allowed-folder rule and the dialog the window is asked for."""

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server import Server

from mcp import Client
from quire.api.events import Event
from quire.core.views import OWNER
from quire.mcp.export_files import NO_DOCUMENT, UNSAVED
from quire.mcp.server import build_server
from quire.services.export import ExportService
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, error_of, make_harness
from tests.support.export_outputs import REFUSED, Case, lay_out, untouched

pytestmark = pytest.mark.anyio


async def test_export_without_output_path_opens_the_dialog_in_the_window(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        plan = h.mcp.workspace / "plan.md"
        plan.write_text("# Plan\n", encoding="utf-8")
        async with h.app.bus.subscribe(OWNER) as events, Client(h.mcp.server) as client:
            data_of(await client.call_tool("open_file", {"path": "plan.md"}))
            answer = data_of(await client.call_tool("export", {"format": "docx"}))
            seen: list[Event] = []
            with anyio.fail_after(5):
                async for event in events:
                    seen.append(event)
                    if event.kind == "export":
                        break
    assert answer == {
        "ok": True,
        "dialog": True,
        "path": str(plan),
        "format": "docx",
        "browserConnected": True,
    }
    assert seen[-1].dump()["data"]["path"] == str(plan)
    assert seen[-1].dump()["data"]["format"] == "docx"
    assert not plan.with_suffix(".docx").exists()


async def test_export_with_nothing_open_names_the_next_step(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool("export", {"format": "pdf"}))
    assert message == NO_DOCUMENT


async def test_export_refuses_a_format_it_does_not_make_and_a_theme_argument(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        wrong = error_of(await client.call_tool("export", {"format": "md"}))
        themed = error_of(await client.call_tool("export", {"format": "pdf", "theme": "dark"}))
    assert "`format` must be one of" in wrong
    assert "`theme`" in themed


@pytest.mark.parametrize("exists", [True, False])
async def test_an_output_outside_the_allowed_folders_gets_one_refusal_existing_or_not(
    tmp_path: Path, exists: bool
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "plan.pdf"
    if exists:
        target.write_bytes(b"%PDF-1.4 old")
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "plan.md").write_text("# Plan\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            data_of(await client.call_tool("open_file", {"path": "plan.md"}))
            tool = error_of(
                await client.call_tool(
                    "export", {"format": "pdf", "output_path": str(target), "overwrite": True}
                )
            )
            direct = error_of(
                await client.call_tool(
                    "export_markdown_to_pdf",
                    {"input": "plan.md", "output": str(target), "force": True},
                )
            )
    expected = (
        f"Refusing to write '{target}': it is not inside an allowed folder. The allowed "
        f"folders are '{h.mcp.workspace}'; pass a path inside one of them."
    )
    assert tool == expected
    assert direct == expected
    assert target.exists() is exists
    if exists:
        assert target.read_bytes() == b"%PDF-1.4 old"


@pytest.mark.parametrize("exists", [True, False])
async def test_an_input_outside_the_allowed_folders_is_refused_without_a_server(
    tmp_path: Path, exists: bool
) -> None:
    h = make_harness(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    source = outside / "secret.md"
    if exists:
        source.write_text("# Secret\n", encoding="utf-8")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_markdown_to_pdf", {"input": str(source)}))
    assert message == (
        f"Refusing to export '{source}': it is not inside an allowed folder. The allowed "
        f"folders are '{h.workspace}'; pass a path inside one of them."
    )
    assert not source.with_suffix(".pdf").exists()


needs_browser = pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="PDF exports print in Chromium: apt-get install chromium",
)


@asynccontextmanager
async def exporting(tmp_path: Path) -> AsyncIterator[tuple[Path, Server[Any]]]:
    """An MCP server with no Quire server behind it and its own export service."""
    h = make_harness(tmp_path)
    service = ExportService()
    try:
        yield h.workspace, build_server(replace(h.services, exporter=service))
    finally:
        await service.aclose()


@needs_browser
async def test_export_markdown_to_pdf_writes_a_pdf_beside_the_file_with_no_server(
    tmp_path: Path,
) -> None:
    async with exporting(tmp_path) as (workspace, server):
        (workspace / "plan.md").write_text("# Plan\n\nStep one.\n", encoding="utf-8")
        async with Client(server) as client:
            result = data_of(await client.call_tool("export_markdown_to_pdf", {"input": "plan.md"}))
    written = workspace / "plan.pdf"
    assert result["ok"] is True
    assert result["path"] == str(written)
    assert result["format"] == "pdf"
    assert result["bytes"] == written.stat().st_size
    assert result["pages"] == 1
    assert result["engine"] == "chromium"
    assert written.read_bytes().startswith(b"%PDF-")


@pytest.mark.parametrize("case", REFUSED, ids=[case.id for case in REFUSED])
async def test_export_markdown_to_pdf_refuses_every_bad_output(tmp_path: Path, case: Case) -> None:
    async with exporting(tmp_path) as (workspace, server):
        (workspace / "plan.md").write_text("# Plan\n", encoding="utf-8")
        paths = lay_out(workspace, "pdf")
        arguments: dict[str, object] = {"input": "plan.md", "output": str(paths[case.id])}
        if case.id != "existing":
            arguments["force"] = True
        async with Client(server) as client:
            message = error_of(await client.call_tool("export_markdown_to_pdf", arguments))
    assert case.says in message
    assert untouched(workspace, "pdf")


@needs_browser
async def test_export_with_output_path_writes_the_open_document(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        plan = h.mcp.workspace / "plan.md"
        plan.write_text("# Plan\n\nStep one.\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            data_of(await client.call_tool("open_file", {"path": "plan.md"}))
            await h.person.set_content("# Plan\n\nStep two.\n", save=False)
            result = data_of(
                await client.call_tool("export", {"format": "html", "output_path": "out.html"})
            )
            again = error_of(
                await client.call_tool("export", {"format": "html", "output_path": "out.html"})
            )
    written = h.mcp.workspace / "out.html"
    assert result["path"] == str(written)
    assert result["warnings"] == [UNSAVED]
    assert "Step one." in written.read_text(encoding="utf-8")
    assert "already exists" in again
