import json
import stat
from pathlib import Path
from typing import Any

import pytest

from mcp import Client
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio

CANVAS = json.dumps(
    {
        "nodes": [
            {"id": "n1", "type": "text", "text": "a", "x": 0, "y": 0, "width": 10, "height": 10},
            {"id": "n3", "type": "text", "text": "b", "x": 0, "y": 0, "width": 10, "height": 10},
        ],
        "edges": [{"id": "e1", "fromNode": "n1", "toNode": "n3"}],
        "extra": {"kept": True},
    }
)
MOVE = {"type": "move_node", "id": "n1", "x": 5.0, "y": 7}


def write_canvas(folder: Path, name: str = "board.canvas") -> Path:
    path = folder / name
    path.write_text(CANVAS, encoding="utf-8")
    path.chmod(0o640)
    return path


async def test_ops_are_applied_and_the_canvas_written_in_place(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = write_canvas(h.workspace)
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool(
                "edit_canvas",
                {"path": "board.canvas", "ops": [MOVE, {"type": "delete_node", "id": "n3"}]},
            )
        )
    assert data["ok"] is True
    assert data["saved"] is True
    assert data["content"] is None
    assert data["node_ids"] == ["n1"]
    assert data["removed_edge_ids"] == ["e1"]
    assert data["ops_applied"] == 2
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["nodes"][0]["x"] == 5
    assert written["extra"] == {"kept": True}
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


async def test_save_false_returns_the_canvas_and_writes_nothing(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = write_canvas(h.workspace, "Board.CANVAS")
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool(
                "edit_canvas", {"path": "Board.CANVAS", "ops": [MOVE], "save": False}
            )
        )
    assert data["saved"] is False
    assert json.loads(data["content"])["nodes"][0]["x"] == 5
    assert path.read_text(encoding="utf-8") == CANVAS


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (
            {"path": "notes.md", "ops": [MOVE]},
            "`path` must point to a .canvas file, got `notes.md`",
        ),
        ({"path": "board.canvas", "ops": []}, "`ops` must not be empty"),
        ({"path": "board.canvas"}, "`ops` is required"),
        ({"path": "board.canvas", "ops": [{"type": "move"}]}, "move"),
        ({"path": "board.canvas", "ops": [{**MOVE, "width": 3}]}, "width"),
        ({"path": "board.canvas", "ops": [{**MOVE, "id": " "}]}, "`id` must not be empty"),
        ({"path": "board.canvas", "ops": [{**MOVE, "x": "1"}]}, "ops[0].x"),
        ({"path": "board.canvas", "ops": [{**MOVE, "id": "n2"}]}, "n1, n3"),
        (
            {
                "path": "board.canvas",
                "ops": [{"type": "set_node_color", "id": "n1", "color": "red"}],
            },
            "color",
        ),
        ({"path": "board.canvas", "ops": [MOVE], "save": "true"}, "`save` must be a boolean"),
        ({"path": " ", "ops": [MOVE]}, "`path` must not be empty"),
    ],
)
async def test_a_bad_edit_is_refused_and_the_file_left_unchanged(
    tmp_path: Path, arguments: dict[str, Any], fragment: str
) -> None:
    h = make_harness(tmp_path)
    path = write_canvas(h.workspace)
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("edit_canvas", arguments))
    assert fragment in message
    assert path.read_text(encoding="utf-8") == CANVAS


async def test_a_canvas_link_to_another_kind_of_file_is_refused(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    target = h.workspace / "secret.txt"
    target.write_text(CANVAS, encoding="utf-8")
    (h.workspace / "board.canvas").symlink_to(target)
    async with Client(h.server) as client:
        message = error_of(
            await client.call_tool("edit_canvas", {"path": "board.canvas", "ops": [MOVE]})
        )
    assert "only .canvas files" in message
    assert target.read_text(encoding="utf-8") == CANVAS


async def test_a_broken_canvas_is_refused_and_left_untouched(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = h.workspace / "board.canvas"
    path.write_text('{"nodes": 3}', encoding="utf-8")
    async with Client(h.server) as client:
        message = error_of(
            await client.call_tool("edit_canvas", {"path": "board.canvas", "ops": [MOVE]})
        )
    assert "nodes" in message
    assert path.read_text(encoding="utf-8") == '{"nodes": 3}'


async def test_a_missing_canvas_is_refused(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        message = error_of(
            await client.call_tool("edit_canvas", {"path": "none.canvas", "ops": [MOVE]})
        )
    assert "does not exist" in message


async def test_a_canvas_outside_the_allowed_folders_is_refused(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = write_canvas(tmp_path)
    async with Client(h.server) as client:
        message = error_of(
            await client.call_tool("edit_canvas", {"path": str(path), "ops": [MOVE]})
        )
    assert "not inside an allowed folder" in message
    assert path.read_text(encoding="utf-8") == CANVAS
