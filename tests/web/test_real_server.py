"""A real ``quire serve`` subprocess on a free port, on SQLite and on PostgreSQL: its server file,
who it answers, and unsaved edits and pending reviews that outlive a restart."""

from __future__ import annotations

import json
import signal
import stat
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from bench.server import RunningServer, quire_serve
from bench.yjs_client import yjs_browser
from quire import __version__
from quire.core.server_info import ServerInfo, loads
from quire.services.live.versions import version_of

pytestmark = pytest.mark.anyio

STOP_TIMEOUT_S = 30
NOTE = "# Plan\n\nFirst step: write the draft.\nSecond step: ask for a review.\n"
EDITED = NOTE.replace("write the draft", "write the draft, then trim it")
FOREIGN_ORIGIN = "http://evil.example"


@dataclass(frozen=True)
class Layout:
    """Where one test's server keeps everything: its workspace, note, state, log and database."""

    workspace: Path
    note: Path
    state: Path
    log: Path
    db_url: str

    def serve(self) -> AbstractAsyncContextManager[RunningServer]:
        return quire_serve(self.workspace, self.state, self.log, db_url=self.db_url)

    def server_log(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def layout(tmp_path: Path, database_url: str) -> Layout:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    note = (workspace / "plan.md").resolve()
    note.write_text(NOTE, encoding="utf-8")
    return Layout(workspace, note, tmp_path / "state", tmp_path / "server.log", database_url)


async def stop(server: RunningServer, sig: signal.Signals = signal.SIGTERM) -> int:
    server.process.send_signal(sig)
    with anyio.fail_after(STOP_TIMEOUT_S):
        return await server.process.wait()


def ws_url(server: RunningServer, path: str) -> str:
    return server.url.replace("http://", "ws://", 1) + path


async def close_code(url: str, headers: Mapping[str, str]) -> int | None:
    """The code a WebSocket the server accepted is closed with, before any message."""
    async with connect(url, additional_headers=dict(headers)) as socket:
        with anyio.fail_after(10), pytest.raises(ConnectionClosed) as caught:
            await socket.recv()
    return None if caught.value.rcvd is None else caught.value.rcvd.code


# The server file and the doors.


async def test_the_server_file_is_private_and_names_the_running_server(layout: Layout) -> None:
    async with layout.serve() as server:
        server_json = layout.state / "server.json"
        assert stat.S_IMODE(server_json.stat().st_mode) == 0o600
        info = loads(server_json.read_text(encoding="utf-8"))
        assert info == ServerInfo(url=server.url, token=server.token, pid=server.process.pid)
        assert set(json.loads(server_json.read_text(encoding="utf-8"))) == {"url", "token", "pid"}
        assert await stop(server) == 0
        assert not server_json.exists()
    assert server.token not in layout.server_log()


WITHOUT_THE_TOKEN: list[tuple[str, dict[str, str]]] = [
    ("no header", {}),
    ("a wrong token", {"Authorization": "Bearer " + "0" * 64}),
    ("a bearer without a token", {"Authorization": "Bearer"}),
    ("another scheme", {"Authorization": "Basic cXVpcmU6cXVpcmU="}),
    ("a cookie no login gave", {"Cookie": "quire_session=made-up"}),
]


async def test_health_is_open_and_everything_else_needs_the_token(layout: Layout) -> None:
    async with layout.serve() as server, httpx.AsyncClient(base_url=server.url) as client:
        health = await client.get("/health")
        assert health.status_code == 200
        assert health.json() == {
            "ok": True,
            "version": __version__,
            "replica": health.json()["replica"],
            "database": "ok",
            "fanout": "alone",
        }
        for case, headers in WITHOUT_THE_TOKEN:
            window = await client.get("/api/window", headers=headers)
            assert window.status_code == 401, case
            assert window.json()["error"]["type"] == "Unauthorized", case
            assert server.token not in window.text, case
            opened = await client.post(
                "/api/documents/open", json={"path": str(layout.note)}, headers=headers
            )
            assert opened.status_code == 401, case
            assert await close_code(ws_url(server, "/ws/events"), headers) == 4401, case
        # The same requests with the token go through, and nothing was opened before.
        window = await client.get("/api/window", headers=server.auth)
        assert (window.status_code, window.json()["tabs"]) == (200, [])
        async with connect(ws_url(server, "/ws/events"), additional_headers=server.auth):
            pass


def refused_requests(port: int) -> list[tuple[str, dict[str, str]]]:
    return [
        ("a rebound host name", {"Host": "evil.example"}),
        ("a rebound host name with the port", {"Host": f"evil.example:{port}"}),
        ("this address on another port", {"Host": "127.0.0.1:1"}),
        ("a foreign page", {"Origin": FOREIGN_ORIGIN}),
        ("a foreign page on this port", {"Origin": f"http://evil.example:{port}"}),
        ("a sandboxed page", {"Origin": "null"}),
        ("this server over https", {"Origin": f"https://127.0.0.1:{port}"}),
    ]


async def test_a_foreign_host_or_origin_is_refused_even_with_the_token(layout: Layout) -> None:
    async with layout.serve() as server, httpx.AsyncClient(base_url=server.url) as client:
        port = int(server.url.rsplit(":", 1)[1])
        for case, headers in refused_requests(port):
            for path in ("/health", "/api/window"):
                refused = await client.get(path, headers={**server.auth, **headers})
                assert refused.status_code == 403, (case, path)
                assert refused.json()["error"]["type"] == "Forbidden", (case, path)
            opened = await client.post(
                "/api/documents/open",
                json={"path": str(layout.note)},
                headers={**server.auth, **headers},
            )
            assert opened.status_code == 403, case
        for case, headers in [
            ("its own address", {}),
            ("its own page", {"Origin": server.url}),
            ("localhost", {"Host": f"localhost:{port}"}),
        ]:
            answered = await client.get("/api/window", headers={**server.auth, **headers})
            assert answered.status_code == 200, case
            assert answered.json()["tabs"] == [], case
        with pytest.raises(InvalidStatus) as caught:
            async with connect(
                ws_url(server, "/ws/events"),
                additional_headers=server.auth,
                origin=Origin(FOREIGN_ORIGIN),
            ):
                pass
        assert caught.value.response.status_code == 403


# A restart.


async def test_unsaved_edits_and_pending_reviews_survive_a_restart(layout: Layout) -> None:
    async with (
        layout.serve() as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth) as client,
    ):
        opened = await client.post("/api/documents/open", json={"path": str(layout.note)})
        assert opened.status_code == 200, opened.text
        doc_id = opened.json()["docId"]
        edited = await client.post(
            "/api/documents/edit",
            json={"find": "write the draft", "replace": "write the draft, then trim it"},
        )
        assert edited.status_code == 200
        assert {key: edited.json()[key] for key in ("ok", "replaced")} == {
            "ok": True,
            "replaced": 1,
        }
        requested = await client.post(
            "/api/reviews", json={"content": "Ship the plan?", "timeout_ms": 600_000}
        )
        assert requested.status_code == 200, requested.text
        review_id = requested.json()["reviewId"]
        assert requested.json()["status"] == "pending"
        assert await stop(server) == 0
    assert not (layout.state / "server.json").exists()
    assert layout.note.read_text(encoding="utf-8") == NOTE

    async with (
        layout.serve() as server,
        httpx.AsyncClient(base_url=server.url, headers=server.auth) as client,
    ):
        current = await client.get("/api/documents/current")
        assert current.json() == {
            "path": str(layout.note),
            "content": EDITED,
            "docId": doc_id,
            "dirty": True,
            "version": version_of(EDITED),
        }
        assert layout.note.read_text(encoding="utf-8") == NOTE
        async with yjs_browser(server.url, doc_id, server.token) as browser:
            assert browser.text == EDITED
        review = await client.get(f"/api/reviews/{review_id}")
        assert review.status_code == 200, review.text
        assert review.json()["status"] == "pending"
        waited = await client.get(f"/api/reviews/{review_id}/wait", params={"wait_ms": 1000})
        assert waited.json() == {"status": "pending", "reviewId": review_id}
        assert await wait_while_another_client_decides(server, review_id) == {
            "verdict": "approved",
            "reviewId": review_id,
            "comments": "Looks right.",
        }
        decided = (await client.get(f"/api/reviews/{review_id}")).json()
        assert (decided["status"], decided["verdict"], decided["late"]) == (
            "decided",
            "approved",
            False,
        )
        assert await stop(server) == 0


async def wait_while_another_client_decides(
    server: RunningServer, review_id: str
) -> dict[str, object]:
    """One client waits on the review; once its request is on the wire, another decides it.
    Returns what the waiting call answered."""
    sent = anyio.Event()
    answers: list[dict[str, object]] = []

    async def trace(name: str, info: Mapping[str, object]) -> None:
        if name == "http11.send_request_body.complete":
            sent.set()

    async def wait(client: httpx.AsyncClient) -> None:
        response = await client.get(
            f"/api/reviews/{review_id}/wait",
            params={"wait_ms": 60_000},
            extensions={"trace": trace},
        )
        assert response.status_code == 200, response.text
        answers.append(response.json())

    async with (
        httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=90) as waiting,
        httpx.AsyncClient(base_url=server.url, headers=server.auth) as deciding,
    ):
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(wait, waiting)
                await sent.wait()
                assert answers == []
                decision = await deciding.post(
                    f"/api/reviews/{review_id}/decision",
                    json={"verdict": "approved", "comments": "Looks right."},
                )
                assert decision.status_code == 200, decision.text
    return answers[0]
