"""The live file tree over a real server: files and folders another program creates, deletes
or renames in a workspace reach ``/ws/events`` as ``tree`` events (the real watcher, a real
socket); a checkout-sized burst comes as a rescan, never a storm; Quire's own operations are
announced once."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator

import anyio
import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect

from quire.services.app import AppServices
from tests.support.events import parsed_frame
from tests.web.conftest import AUTH
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio


@pytest.fixture
async def port(app: Starlette) -> AsyncIterator[int]:
    async with live_server(app) as bound:
        yield bound


async def tree_frames(socket: ClientConnection, seconds: float) -> list[dict[str, object]]:
    """Every ``tree`` event's data received within ``seconds``."""
    found: list[dict[str, object]] = []
    with anyio.move_on_after(seconds):
        while True:
            frame = json.loads(await socket.recv())
            parsed_frame(frame)
            if frame["kind"] == "tree":
                found.append(frame["data"])
    return found


async def first_tree(socket: ClientConnection, seconds: float = 5) -> dict[str, object]:
    with anyio.fail_after(seconds):
        while True:
            frame = json.loads(await socket.recv())
            if frame["kind"] == "tree":
                parsed_frame(frame)
                data = frame["data"]
                assert isinstance(data, dict)
                return data


def changes(data: dict[str, object]) -> list[tuple[object, ...]]:
    listed = data["changes"]
    assert isinstance(listed, list)
    return sorted((c["action"], c["path"], c["isFolder"]) for c in listed)


async def test_a_file_written_by_another_program_reaches_the_window(
    port: int, services: AppServices
) -> None:
    workspace = services.workspaces.folders[0]
    async with connect(f"ws://127.0.0.1:{port}/ws/events", additional_headers=AUTH) as socket:
        await anyio.to_thread.run_sync(
            lambda: (workspace / "outside.md").write_text("# hi\n", encoding="utf-8")
        )
        created = await first_tree(socket)
        assert created == {
            "workspace": str(workspace),
            "changes": [{"action": "created", "path": str(workspace / "outside.md"),
                         "isFolder": False}],
            "rescan": False,
        }  # fmt: skip

        (workspace / "Folder").mkdir()
        assert changes(await first_tree(socket)) == [("created", str(workspace / "Folder"), True)]
        (workspace / "outside.md").rename(workspace / "Folder" / "renamed.md")
        assert changes(await first_tree(socket)) == [
            ("created", str(workspace / "Folder" / "renamed.md"), False),
            ("deleted", str(workspace / "outside.md"), False),
        ]
        (workspace / "Folder" / "renamed.md").write_text("# changed\n", encoding="utf-8")
        (workspace / ".hidden.md").write_text("x\n", encoding="utf-8")
        shutil.rmtree(workspace / "Folder")
        later = await tree_frames(socket, 1.5)
        assert [changes(data) for data in later] == [
            [
                ("deleted", str(workspace / "Folder"), False),
                ("deleted", str(workspace / "Folder" / "renamed.md"), False),
            ]
        ]


async def test_a_checkout_sized_burst_is_one_rescan(port: int, services: AppServices) -> None:
    workspace = services.workspaces.folders[0]
    async with connect(f"ws://127.0.0.1:{port}/ws/events", additional_headers=AUTH) as socket:

        def checkout() -> None:
            for folder in range(15):
                base = workspace / "src" / f"d{folder}"
                base.mkdir(parents=True)
                for name in range(100):
                    (base / f"n{name}.md").write_text("x\n", encoding="utf-8")

        await anyio.to_thread.run_sync(checkout)
        frames = await tree_frames(socket, 4.5)
    rescans = [data for data in frames if data["rescan"]]
    assert rescans and all(data["changes"] == [] for data in rescans)
    assert len(frames) <= 3, [(d["rescan"], len(d["changes"])) for d in frames]  # type: ignore[arg-type]


async def test_quires_own_operations_are_announced_once(port: int, services: AppServices) -> None:
    workspace = services.workspaces.folders[0]
    async with connect(f"ws://127.0.0.1:{port}/ws/events", additional_headers=AUTH) as socket:
        files = services.files
        assert files is not None
        await files.create_note("someone", workspace / "Made")
        await files.move("someone", workspace / "Made.md", workspace / "Moved.md")
        frames = await tree_frames(socket, 2.0)
    assert [changes(data) for data in frames] == [
        [("created", str(workspace / "Made.md"), False)],
        [("moved", str(workspace / "Made.md"), False)],
    ]
