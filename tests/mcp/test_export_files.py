"""The export tools: ``export`` against the real app in process, ``export_markdown_to_pdf``
in the MCP process; the allowed-folder rule and the dialog the window is asked for."""

from pathlib import Path

import anyio
import pytest

from mcp import Client
from quire.core.views import OWNER
from quire.mcp.export_files import NO_DOCUMENT
from quire.services.events import Event
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, error_of, make_harness

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
    assert seen[-1].data["path"] == str(plan)
    assert seen[-1].data["format"] == "docx"
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
        themed = error_of(
            await client.call_tool("export", {"format": "pdf", "theme": "dark"})
        )
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
        message = error_of(
            await client.call_tool("export_markdown_to_pdf", {"input": str(source)})
        )
    assert message == (
        f"Refusing to export '{source}': it is not inside an allowed folder. The allowed "
        f"folders are '{h.workspace}'; pass a path inside one of them."
    )
    assert not source.with_suffix(".pdf").exists()
