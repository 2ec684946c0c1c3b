"""The live file tree over a real server: files and folders another program creates, deletes
or renames in a workspace reach ``/ws/events`` as ``tree`` events (the real watcher, a real
socket); a checkout-sized burst comes as a rescan, never a storm; Quire's own operations are
announced once."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import AsyncIterator

import anyio
import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect

from quire.services.app import AppServices
from tests.support.events import parsed_frame
from tests.support.tree_bursts import assert_no_storm, shapes
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


async def test_a_checkout_sized_burst_is_a_rescan_never_a_storm(
    port: int, services: AppServices
) -> None:
    workspace = services.workspaces.folders[0]
    folders = [workspace / "src" / f"d{number}" for number in range(15)]
    async with connect(f"ws://127.0.0.1:{port}/ws/events", additional_headers=AUTH) as socket:
        # The folders first, each level seen by the watcher: what is made in a folder before
        # the watcher has started watching it is never reported (inotify), and on a busy
        # machine that can be most of a checkout.
        for made in ([workspace / "src"], folders):
            for folder in made:
                folder.mkdir()
            seen: set[object] = set()
            with anyio.fail_after(10):
                while not {str(folder) for folder in made} <= seen:
                    seen |= {path for _, path, _ in changes(await first_tree(socket))}

        def checkout() -> None:
            for folder in folders:
                for name in range(100):
                    (folder / f"n{name}.md").write_text("x\n", encoding="utf-8")

        started = time.monotonic()
        await anyio.to_thread.run_sync(checkout)
        frames = await tree_frames(socket, 4.5)
        span = time.monotonic() - started
    listed = {path for data in frames for _, path, _ in changes(data)}
    written = {str(folder / f"n{name}.md") for folder in folders for name in range(100)}
    # Nothing is lost: a rescan, or every file named (a checkout slowed down by a busy machine
    # can stay under the rescan rate).
    assert any(data["rescan"] for data in frames) or written <= listed, shapes(frames)
    assert_no_storm(frames, span)


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
