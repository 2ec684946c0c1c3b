"""A real ``quire serve``: editors and event listeners that leave abruptly (no close frame,
the TCP connection just gone) end quietly, with no traceback in the server's log."""

from __future__ import annotations

import socket
from pathlib import Path

import anyio
import httpx
import pytest
from pycrdt import Doc, create_sync_message
from websockets.asyncio.client import connect

from bench.server import RunningServer, quire_serve

pytestmark = pytest.mark.anyio


def ws_url(server: RunningServer, path: str) -> str:
    return server.url.replace("http://", "ws://", 1) + path


def cut(websocket: object) -> None:
    """Drop the TCP connection under a websockets client, with no close frame."""
    transport = websocket.transport  # type: ignore[attr-defined]
    raw: socket.socket = transport.get_extra_info("socket")
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    transport.abort()


async def test_an_editor_that_leaves_abruptly_logs_no_traceback(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    note = workspace / "plan.md"
    note.write_text("# Plan\n", encoding="utf-8")
    log = tmp_path / "server.log"
    async with quire_serve(workspace, tmp_path / "state", log) as server:
        headers = {"Authorization": f"Bearer {server.token}"}
        # The log is read after the server stopped, so every connection's end is in it.
        async with httpx.AsyncClient(base_url=server.url, headers=headers) as client:
            opened = await client.post("/api/documents/open", json={"path": str(note)})
            doc_id = opened.json()["docId"]
            for round_ in range(20):
                sync = ws_url(server, f"/ws/documents/{doc_id}")
                socket_ = await connect(sync, additional_headers=headers)
                with anyio.fail_after(10):
                    await socket_.recv()  # the server's first sync message: it is serving
                if round_ % 2:
                    await socket_.send(create_sync_message(Doc()))
                else:
                    # Closed by the server for a malformed message, after the editor left.
                    await socket_.send("not a binary Yjs message")
                cut(socket_)
                events = await connect(ws_url(server, "/ws/events"), additional_headers=headers)
                cut(events)
            # The server answers after them all: none of the cut connections broke it.
            assert (await client.get("/api/documents/current")).status_code == 200
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert "Exception in ASGI application" not in text
