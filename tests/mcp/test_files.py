"""The file tools through the SDK's in-memory client, against the real app in process:
what they change, the allowed-folder bound, and errors that name the next call."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp import Client
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, error_of

pytestmark = pytest.mark.anyio


async def test_create_move_and_delete_a_document(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        ws = h.mcp.workspace.resolve()
        made = data_of(
            await client.call_tool("create_document", {"path": "Notes/Plan", "content": "# P\n"})
        )
        assert made == {"path": f"{ws}/Notes/Plan.md", "kind": "note"}
        assert (ws / "Notes/Plan.md").read_text(encoding="utf-8") == "# P\n"
        copy = data_of(
            await client.call_tool(
                "create_document", {"path": "Copy.md", "template": "Notes/Plan.md"}
            )
        )
        assert copy["path"] == f"{ws}/Copy.md"
        assert (ws / "Copy.md").read_text(encoding="utf-8") == "# P\n"

        taken = error_of(await client.call_tool("create_document", {"path": "Copy.md"}))
        assert "Nothing was replaced" in taken and "open_file" in taken

        moved = data_of(
            await client.call_tool("move_document", {"path": "Copy.md", "to": "Notes/Copy.md"})
        )
        assert moved == {
            "path": f"{ws}/Copy.md",
            "to": f"{ws}/Notes/Copy.md",
            "isFolder": False,
            "documentsFollowed": 0,
            "linksUpdated": [],
        }
        over = error_of(
            await client.call_tool(
                "move_document", {"path": "Notes/Copy.md", "to": "Notes/Plan.md"}
            )
        )
        assert "move_document again" in over
        assert (ws / "Notes/Copy.md").read_text(encoding="utf-8") == "# P\n"

        deleted = data_of(await client.call_tool("delete_document", {"path": "Notes/Copy.md"}))
        assert deleted["path"] == f"{ws}/Notes/Copy.md" and deleted["tabsClosed"] == 0
        assert deleted["restore"] == f"quire trash restore {deleted['trashId']}"
        assert not (ws / "Notes/Copy.md").exists()
        assert h.app.files is not None
        trash = await h.app.files.trash_list()
        assert [item.id for item in trash.items] == [deleted["trashId"]]

        gone = error_of(await client.call_tool("delete_document", {"path": "Notes/Copy.md"}))
        assert "search_vault" in gone


async def test_paths_outside_the_allowed_folders_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.md").write_text("mine\n", encoding="utf-8")
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        ws = h.mcp.workspace.resolve()
        (ws / "note.md").write_text("n\n", encoding="utf-8")
        (ws / "out.md").symlink_to(outside / "keep.md")
        calls = [
            ("create_document", {"path": str(outside / "new.md")}),
            ("create_document", {"path": "../outside/new.md"}),
            ("move_document", {"path": "note.md", "to": str(outside / "note.md")}),
            ("move_document", {"path": str(outside / "keep.md"), "to": "keep.md"}),
            ("delete_document", {"path": str(outside / "keep.md")}),
            ("delete_document", {"path": "out.md"}),
        ]
        for name, args in calls:
            message = error_of(await client.call_tool(name, args))
            assert "Refusing" in message, (name, args, message)
    assert sorted(p.name for p in outside.iterdir()) == ["keep.md"]
    assert (outside / "keep.md").read_text(encoding="utf-8") == "mine\n"
    assert (ws / "note.md").exists() and (ws / "out.md").is_symlink()
