"""A note renamed through the API while a browser types in it over the real Yjs WebSocket: no
keystroke is lost, the editor stays connected, and the renamed file gets every character."""

from __future__ import annotations

from pathlib import Path

import anyio
import anyio.lowlevel
import httpx
import pytest
from pycrdt import Doc, Provider, Text
from starlette.applications import Starlette
from websockets.asyncio.client import connect

from bench.yjs_client import WebSocketChannel
from quire.services.app import AppServices
from quire.services.live.document import CONTENT
from tests.support.ytext import until
from tests.web.conftest import AUTH
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

KEYSTROKES = 300
RENAME_AT = 100
"""The rename is asked for once the server has this many keystrokes; the browser goes on
typing while the request runs."""
AFTER_RENAME = 200
"""The keystrokes from this one on are typed after the rename was answered."""


async def test_a_rename_while_a_browser_types_loses_no_keystroke(
    app: Starlette, client: httpx.AsyncClient, services: AppServices, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    note = workspace / "draft.md"
    note.write_text("# Draft\n", encoding="utf-8")
    renamed = workspace / "Final" / "Draft v2.md"
    (workspace / "Final").mkdir()
    opened = await client.post("/api/documents/open", json={"path": str(note)}, headers=AUTH)
    doc_id = opened.json()["docId"]
    live = services.documents.get(doc_id)
    assert live is not None
    typed = "".join(f"{i % 10}" if i % 7 else "\n" for i in range(KEYSTROKES))
    moved = anyio.Event()

    async with live_server(app) as port:
        url = f"ws://127.0.0.1:{port}/ws/documents/{doc_id}"
        ydoc: Doc[Text] = Doc()
        async with (
            connect(url, additional_headers=AUTH, max_size=None) as websocket,
            Provider(ydoc, WebSocketChannel(websocket, url)) as provider,
        ):
            with anyio.fail_after(10):
                await provider.synced.wait()
            text = ydoc.get(CONTENT, type=Text)

            async def type_keys() -> None:
                for index, key in enumerate(typed):
                    if index == AFTER_RENAME:
                        await moved.wait()  # the last keys surely land after the rename
                    text.insert(len(text), key)
                    await anyio.lowlevel.checkpoint()

            async def rename() -> None:
                await until(
                    live.ydoc, lambda now: len(now) >= len("# Draft\n") + RENAME_AT, seconds=30
                )
                answer = await client.post(
                    "/api/files/move", json={"path": str(note), "to": str(renamed)}, headers=AUTH
                )
                assert answer.status_code == 200, answer.text
                assert answer.json()["documentsFollowed"] == 1
                moved.set()

            async with anyio.create_task_group() as group:
                group.start_soon(rename)
                group.start_soon(type_keys)
            assert moved.is_set()
            everything = "# Draft\n" + typed
            await until(live.ydoc, lambda now: now == everything, seconds=30)
            assert str(text) == everything
            assert websocket.close_code is None  # the editor was never dropped

    assert live.path == renamed
    saved = await client.post("/api/documents/save", json={"path": str(renamed)}, headers=AUTH)
    assert saved.status_code == 200, saved.text
    assert renamed.read_text(encoding="utf-8") == everything
    assert not note.exists()
