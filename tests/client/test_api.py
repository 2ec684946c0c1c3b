"""The HTTP client: requests it sends, and every kind of answer turned into the right error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx
import pytest

from quire.client import api as api_module
from quire.client.api import QuireApi, probe_health
from quire.core.errors import (
    EditRefused,
    FileMissing,
    InvalidArgument,
    NoSuchEndpoint,
    NotOpen,
    ReviewNotFound,
    ServerFailed,
    ServerUnreachable,
    TokenRefused,
)
from quire.core.server_info import ServerInfo

pytestmark = pytest.mark.anyio

INFO = ServerInfo(url="http://127.0.0.1:4747", token="t" * 64, pid=123)
SERVER_FILE = Path("/state/server.json")


def make_api(handler: Any, *, reload: Any = None, info: ServerInfo = INFO) -> QuireApi:
    return QuireApi(
        info, server_file=SERVER_FILE, transport=httpx.MockTransport(handler), reload=reload
    )


def error(status: int, kind: str, message: str, **extra: Any) -> httpx.Response:
    return httpx.Response(status, json={"error": {"type": kind, "message": message, **extra}})


async def test_requests_carry_the_token_and_json_bodies() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, json={"opened": True, "path": "/w/a.md", "docId": "d", "view": "edit"}
        )

    api = make_api(handler)
    opened = await api.open("/w/a.md", "edit", 3)
    await api.aclose()
    [request] = seen
    assert request.headers["Authorization"] == f"Bearer {INFO.token}"
    assert request.url == "http://127.0.0.1:4747/api/documents/open"
    assert json.loads(request.content) == {"path": "/w/a.md", "mode": "edit", "line": 3}
    assert (opened.path, opened.doc_id, opened.view) == ("/w/a.md", "d", "edit")


@pytest.mark.parametrize(
    ("response", "kind", "fragment"),
    [
        (
            error(409, "EditRefused", "not unique (3 matches)", matchCount=3),
            EditRefused,
            "not unique",
        ),
        (error(409, "NotOpen", "No document is open."), NotOpen, "No document"),
        (error(400, "InvalidArgument", "`limit` bad", argument="limit"), InvalidArgument, "limit"),
        (error(404, "FileMissing", "gone"), FileMissing, "gone"),
        (error(404, "ReviewNotFound", "no review r1"), ReviewNotFound, "r1"),
        (error(404, "NotFound", "Nothing is served at /api/x."), NoSuchEndpoint, "older version"),
        (error(500, "SomethingNew", "it broke"), ServerFailed, "it broke"),
        (httpx.Response(502, text="<html>bad gateway</html>"), ServerFailed, "HTTP 502"),
        (httpx.Response(200, text="not json"), ServerFailed, "not JSON"),
        (httpx.Response(200, json=[1, 2]), ServerFailed, "field `(the whole answer)` of Presented"),
        (httpx.Response(200, json={"path": 3}), ServerFailed, "field `path` of Presented"),
    ],
)
async def test_each_answer_becomes_the_error_it_means(
    response: httpx.Response, kind: type[Exception], fragment: str
) -> None:
    api = make_api(lambda request: response)
    with pytest.raises(kind) as caught:
        await api.present(None)
    await api.aclose()
    assert fragment in str(caught.value)
    if isinstance(caught.value, EditRefused):
        assert caught.value.match_count == 3
    if isinstance(caught.value, InvalidArgument):
        assert caught.value.argument == "limit"


async def test_a_refused_token_gives_the_one_message_with_the_fix() -> None:
    api = make_api(lambda request: httpx.Response(401, json={}))
    with pytest.raises(TokenRefused) as caught:
        await api.current()
    await api.aclose()
    message = str(caught.value)
    assert "refused the token in /state/server.json (HTTP 401)" in message
    assert "start it again" in message


async def test_after_a_401_a_fresh_token_from_server_json_is_tried_once() -> None:
    fresh = ServerInfo(url=INFO.url, token="n" * 64, pid=124)
    tokens: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        tokens.append(request.headers["Authorization"])
        if request.headers["Authorization"] != f"Bearer {fresh.token}":
            return httpx.Response(401)
        return httpx.Response(200, json={"path": None, "content": ""})

    async def reload() -> ServerInfo:
        return fresh

    api = make_api(handler, reload=reload)
    current = await api.current()
    await api.aclose()
    assert current.path is None
    assert tokens == [f"Bearer {INFO.token}", f"Bearer {fresh.token}"]
    assert api.info == fresh


async def test_a_server_that_does_not_answer_is_unreachable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    api = make_api(handler)
    with pytest.raises(ServerUnreachable, match="does not answer"):
        await api.current()
    assert not await api.health()
    await api.aclose()


async def test_a_silent_server_of_another_machine_is_not_to_be_started_here() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    remote = ServerInfo(url="https://notes.example.com", token="t" * 64, pid=0)
    local = make_api(handler)
    other = make_api(handler, info=remote)
    with pytest.raises(ServerUnreachable) as here:
        await local.current()
    with pytest.raises(ServerUnreachable) as there:
        await other.current()
    await local.aclose()
    await other.aclose()
    assert "pid 123" in here.value.message and "quire serve" in here.value.message
    assert "https://notes.example.com" in there.value.message
    assert "quire serve" not in there.value.message and "pid" not in there.value.message
    assert "quire whoami @alias" in there.value.message


async def test_a_server_that_answers_too_slowly_may_still_finish() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow")

    api = make_api(handler)
    with pytest.raises(ServerFailed, match="may still finish"):
        await api.edit("a", "b", save=False, path=None)
    await api.aclose()


async def test_an_oversized_answer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_module, "MAX_ANSWER_BYTES", 10)
    api = make_api(lambda request: httpx.Response(200, content=b"x" * 11))
    with pytest.raises(ServerFailed, match="more than 64 MiB"):
        await api.current()
    await api.aclose()


def _listed(path: str) -> dict[str, object]:
    return {"path": path, "workspace": "/w", "relPath": path[3:], "mtimeMs": 1, "size": 2}


def _page(files: list[dict[str, object]], cursor: str | None, *, total: int) -> dict[str, object]:
    return {"files": files, "nextCursor": cursor, "total": total, "truncated": False}


async def test_all_files_follows_cursors_and_says_when_it_stops() -> None:
    pages = {
        None: _page([_listed("/w/a.md")], "c1", total=3),
        "c1": _page([_listed("/w/b.md")], "c2", total=3),
    }

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=pages[request.url.params.get("cursor")])

    api = make_api(handler)
    files, note = await api.all_files(cap=2)
    await api.aclose()
    assert [item.path for item in files] == ["/w/a.md", "/w/b.md"]
    assert note == "Only the first 2 of the 3 workspace files were listed."


async def test_workspaces_fall_back_to_the_listing_on_an_older_server() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/workspaces":
            return error(404, "NotFound", "Nothing is served at /api/workspaces.")
        return httpx.Response(200, json=_page([_listed("/w/a.md")], None, total=1))

    api = make_api(handler)
    assert await api.workspaces() == ["/w"]
    await api.aclose()


async def test_review_ids_are_escaped_into_one_path_segment() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path.decode())
        return httpx.Response(200, json={"status": "pending", "reviewId": "a/b"})

    api = make_api(handler)
    await api.wait_review("a/b?c", 1000)
    await api.aclose()
    assert seen == ["/api/reviews/a%2Fb%3Fc/wait?wait_ms=1000"]


async def test_probe_health_is_false_when_nothing_listens(tmp_path: Path) -> None:
    info = ServerInfo(url="http://127.0.0.1:9", token="t", pid=1)
    assert not await probe_health(info, tmp_path / "server.json")


@pytest.mark.parametrize(
    ("agent", "header"),
    [
        ("claude-code", "claude-code"),
        ("Ünïcödé ✓", "%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20%E2%9C%93"),
        ("evil\u202ename\n", "evilname"),
        (None, None),
        ("\0\u200b", None),
    ],
)
async def test_a_view_for_an_agent_names_it_on_every_request(
    agent: str | None, header: str | None
) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True, "replaced": 1})

    api = make_api(handler)
    await api.as_agent(agent).edit("a", "b", save=False, path=None)
    await api.edit("a", "b", save=False, path=None)
    await api.aclose()
    assert seen[0].headers.get("X-Quire-Agent") == header
    assert "X-Quire-Agent" not in seen[1].headers


async def test_views_share_the_token_a_401_refreshed() -> None:
    fresh = ServerInfo(url=INFO.url, token="n" * 64, pid=124)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers["Authorization"] != f"Bearer {fresh.token}":
            return httpx.Response(401)
        return httpx.Response(200, json={"path": None, "content": ""})

    async def reload() -> ServerInfo:
        return fresh

    api = make_api(handler, reload=reload)
    view = api.as_agent("test-agent")
    await view.current()
    await api.aclose()
    assert api.info == view.info == fresh


async def test_a_request_body_holding_a_lone_surrogate_goes_escaped_for_the_server_to_judge() -> (
    None
):
    bodies: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        return httpx.Response(200, json={"ok": True, "version": "v1", "conflicts": []})

    api = make_api(handler)
    await api.set_content("é\ud800", save=False)
    await api.set_content("é ✓", save=False)
    await api.aclose()
    assert json.loads(bodies[0]) == {"content": "é\ud800", "save": False}
    assert bodies[1] == '{"content":"é ✓","save":false}'.encode()


async def test_without_a_transport_an_http_server_is_reached_over_kept_alive_sockets() -> None:
    requests: list[bytes] = []

    async def serve(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    try:
                        buffer += await stream.receive()
                    except anyio.EndOfStream:
                        return
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                requests.append(head)
                body = b'{"path": "/w/a.md", "content": "# A\\n", "docId": "d", "dirty": false}'
                await stream.send(
                    b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
                )

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    info = ServerInfo(url=f"http://127.0.0.1:{port}", token="t" * 64, pid=1)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, serve)
        api = QuireApi(info, server_file=SERVER_FILE).as_agent("test-agent")
        first = await api.current()
        second = await api.current()
        await api.aclose()
        group.cancel_scope.cancel()
    assert first == second
    assert (first.path, first.content, first.dirty) == ("/w/a.md", "# A\n", False)
    assert len(requests) == 2
    assert requests[0].startswith(b"GET /api/documents/current HTTP/1.1\r\n")
    assert b"\r\nX-Quire-Agent: test-agent" in requests[0]
    assert f"\r\nHost: 127.0.0.1:{port}".encode() in requests[0]


async def _open(api: QuireApi) -> object:
    return await api.open("/w/a.md")


async def _current(api: QuireApi) -> object:
    return await api.current()


async def _edit(api: QuireApi) -> object:
    return await api.edit("a", "b", save=False, path=None)


async def _preview(api: QuireApi) -> object:
    return await api.stream_edit("a", "b", preview=True, preview_lines=5, path=None)


async def _apply(api: QuireApi) -> object:
    return await api.stream_edit_apply("a", "b", edit_id=None, match_index=0, save=False, path=None)


async def _set_content(api: QuireApi) -> object:
    return await api.set_content("text", save=False)


_CANDIDATE_WITHOUT_LINE = {"matchIndex": 0, "diff": "", "rank": 1}


@pytest.mark.parametrize(
    ("call", "answer", "named"),
    [
        (_open, {"opened": True, "path": "/w/a.md", "view": "edit"}, "field `docId`"),
        (_open, {"path": "/w/a.md", "docId": "d", "view": "zen"}, "field `view`"),
        (_current, {"path": 3, "content": ""}, "field `path`"),
        (_current, {"path": "/w/a.md"}, "field `content`"),
        (_edit, {"ok": True}, "field `replaced`"),
        (
            _preview,
            {
                "editId": "e",
                "diff": "",
                "candidates": [_CANDIDATE_WITHOUT_LINE],
                "matchCount": 2,
                "applied": False,
            },
            "field `candidates.0.startLine`",
        ),
        (_apply, {"ok": True, "replaced": 1}, "field `matchIndex`"),
        (_set_content, [1], "field `(the whole answer)`"),
    ],
)
async def test_an_answer_of_the_wrong_shape_is_refused_naming_the_field(
    call: Any, answer: object, named: str
) -> None:
    api = make_api(lambda request: httpx.Response(200, json=answer))
    with pytest.raises(ServerFailed) as caught:
        await call(api)
    await api.aclose()
    message = str(caught.value)
    assert named in message
    assert "Update Quire so the server and this client are the same version" in message
