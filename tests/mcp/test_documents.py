"""The window tools against the real app in process."""

import json
from pathlib import Path

import pytest

from mcp import Client
from tests.mcp.app_harness import URL, app_harness
from tests.mcp.harness import data_of, error_of, text_of

pytestmark = pytest.mark.anyio


async def test_open_file_opens_a_document_the_other_tools_then_read(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        plan = h.mcp.workspace / "plan.md"
        plan.write_text("# Plan\n\nStep one.\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            opened = data_of(
                await client.call_tool("open_file", {"path": "plan.md", "mode": "edit"})
            )
            current = data_of(await client.call_tool("get_current_content", {}))
    assert opened["opened"] is True
    assert opened["path"] == str(plan)
    assert opened["view"] == "edit"
    assert opened["url"] == URL
    assert "note" not in opened
    assert current["path"] == str(plan)
    assert current["content"] == "# Plan\n\nStep one.\n"


async def test_get_current_content_with_nothing_open_says_to_open_one(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool("get_current_content", {}))
    assert message == "No document is open in Quire. Open one first (open_file)."


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("notes.txt", b"x", "Refusing to open"),
        (".secret.md", b"x", "Refusing to open"),
        ("missing.md", None, "does not exist"),
        ("latin.md", b"caf\xe9", "not UTF-8"),
    ],
)
async def test_open_file_refuses_what_may_not_be_shown(
    tmp_path: Path, name: str, content: bytes | None, fragment: str
) -> None:
    async with app_harness(tmp_path) as h:
        if content is not None:
            (h.mcp.workspace / name).write_bytes(content)
        async with Client(h.mcp.server) as client:
            message = error_of(await client.call_tool("open_file", {"path": name}))
            current = await client.call_tool("get_current_content", {})
    assert fragment in message
    assert current.is_error


async def test_list_recent_lists_newest_first_as_a_list(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        for name in ("a.md", "b.md"):
            (h.mcp.workspace / name).write_text(f"# {name}\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "a.md"})
            await client.call_tool("open_file", {"path": "b.md"})
            result = await client.call_tool("list_recent", {"limit": 1})
    items = json.loads(text_of(result))
    assert [item["fileName"] for item in items] == ["b.md"]
    assert set(items[0]) == {"path", "fileName", "openedAt"}
    assert data_of(result) == {"recent": items}


async def test_present_document_without_anything_open_names_the_next_step(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool("present_document", {}))
    assert message.startswith("No document is open to present. Pass path to present_document")


async def test_present_document_with_a_path_presents_it(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "done.md").write_text("# Done\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            data = data_of(await client.call_tool("present_document", {"path": "done.md"}))
        window = await h.person.call("GET", "/api/window")
    assert data == {"ok": True, "path": str(h.mcp.workspace / "done.md")}
    assert window["present"] is True


async def test_a_missing_file_is_refused_before_the_server_is_asked(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool("present_document", {"path": "gone.md"}))
    assert "does not exist" in message
