"""Fuzz the document WebSocket (the Yjs sync protocol) of the whole app on a real socket with
seeded hostile frames: each is applied or the socket is closed (1007), the server logs no
error or traceback, and an editor that connects afterwards still syncs."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import httpx
import pytest
from pycrdt import Doc, Text, create_sync_message, create_update_message
from starlette.applications import Starlette
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.fuzz import SCALE, SEED, Hostile, report
from tests.web.conftest import AUTH, TOKEN
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

FRAMES = 60 * SCALE


def frames(hostile: Hostile) -> list[bytes | str]:
    """Valid sync, update and awareness messages, cut, flipped and padded; random bytes;
    text frames."""
    doc: Doc[Text] = Doc()
    doc["content"] = text = Text()
    text += "hello"
    valid = [
        create_sync_message(doc),
        create_update_message(doc.get_update()),
        b"\x01\x00",
        b"\x03",
    ]
    out: list[bytes | str] = []
    for _ in range(FRAMES):
        pick = hostile.random.random()
        base = hostile.random.choice(valid)
        if pick < 0.2:
            out.append(base)
        elif pick < 0.4:
            out.append(base[: hostile.random.randint(0, len(base))])
        elif pick < 0.6:
            flipped = bytearray(base)
            for _ in range(hostile.random.randint(1, 4)):
                flipped[hostile.random.randrange(len(flipped))] = hostile.random.getrandbits(8)
            out.append(bytes(flipped))
        elif pick < 0.8:
            head = bytes([hostile.random.choice((0, 1, 2, 3, 4, 255))])
            out.append(head + hostile.bytes_(hostile.random.randint(0, 64)))
        elif pick < 0.9:
            out.append(bytes([0, 0]) + b"\xff" * hostile.random.randint(1, 12))  # huge varints
        else:
            out.append(str(hostile.value())[:200].encode("utf-8", "replace").decode())
    return out


async def test_hostile_sync_frames_close_the_socket_at_worst(
    app: Starlette, client: httpx.AsyncClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    note = tmp_path / "workspace" / "plan.md"
    note.write_text("# Plan\n", encoding="utf-8")
    opened = await client.post("/api/documents/open", json={"path": str(note)}, headers=AUTH)
    doc_id = opened.json()["docId"]
    caplog.set_level(logging.WARNING)
    closes: dict[int | None, int] = {}
    sent = 0
    async with live_server(app) as port:
        url = f"ws://127.0.0.1:{port}/ws/documents/{doc_id}"
        headers = {"Authorization": f"Bearer {TOKEN}"}
        pending = frames(Hostile(SEED))
        while pending:
            async with connect(url, additional_headers=headers, max_size=None) as socket:
                with anyio.fail_after(10):
                    await socket.recv()  # the server's first sync step
                try:
                    while pending:
                        frame = pending.pop()
                        sent += 1
                        await socket.send(frame)
                        with anyio.move_on_after(0.05):
                            await socket.recv()
                except ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd else None
                    closes[code] = closes.get(code, 0) + 1
        # The document still serves a new editor, and answers over HTTP.
        async with connect(url, additional_headers=headers) as socket:
            with anyio.fail_after(10):
                assert await socket.recv()
    current = await client.get("/api/documents/current", headers=AUTH)
    assert current.status_code == 200, current.text
    report(f"fuzzed {sent} sync frames (seed {SEED}); closes by code: {closes}")
    assert set(closes) <= {1007, 1000}, closes
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors[:5]]
