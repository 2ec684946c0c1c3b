"""The wires under the API client: kept-alive HTTP/1.1 sockets against a scripted server that
misbehaves on cue, and the httpx wire against a mock transport."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest
from anyio.abc import SocketStream

from quire.client.wire import (
    MAX_IDLE_SECONDS,
    AnswerTooLarge,
    HttpxWire,
    SocketWire,
    WireBroken,
    WireTimeout,
    query_string,
)
from tests.support.ports import refused_port

pytestmark = pytest.mark.anyio

LIMIT = 1024 * 1024
HEADERS = [("Authorization", "Bearer t"), ("Accept", "application/json")]


@dataclass(frozen=True)
class Seen:
    """One request the scripted server read: on which connection, its head and its body."""

    connection: int
    head: bytes
    body: bytes

    @property
    def request_line(self) -> str:
        return self.head.split(b"\r\n", 1)[0].decode()

    def header(self, name: str) -> str | None:
        for line in self.head.split(b"\r\n")[1:]:
            key, _, value = line.decode().partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None


@dataclass(frozen=True)
class Reply:
    """What the server does with a request: send ``data``, then close when ``close``."""

    data: bytes
    close: bool = False
    piece: int = 0
    """Send ``data`` this many bytes at a time (0: at once)."""


Respond = Callable[[Seen], Awaitable[Reply | None]]
"""The script: a reply per request; None closes the connection without answering."""


def answer(body: bytes = b'{"ok":true}', status: int = 200, head: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{head}\r\n"
    ).encode() + body


@dataclass
class Scripted:
    url: str
    seen: list[Seen] = field(default_factory=list)
    connections: int = 0
    ended: list[int] = field(default_factory=list)
    """The connections the client closed (the server read their end)."""


@asynccontextmanager
async def scripted_server(respond: Respond) -> AsyncIterator[Scripted]:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    server = Scripted(url=f"http://127.0.0.1:{port}")

    async def handle(stream: SocketStream) -> None:
        index = server.connections
        server.connections += 1
        buffer = b""
        async with stream:
            while True:
                while b"\r\n\r\n" not in buffer:
                    try:
                        buffer += await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        server.ended.append(index)
                        return
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                seen = Seen(index, head, b"")
                length = int(seen.header("content-length") or 0)
                while len(buffer) < length:
                    buffer += await stream.receive()
                seen = Seen(index, head, buffer[:length])
                buffer = buffer[length:]
                server.seen.append(seen)
                reply = await respond(seen)
                if reply is None:
                    return
                step = reply.piece or len(reply.data) or 1
                for start in range(0, len(reply.data), step):
                    await stream.send(reply.data[start : start + step])
                    if reply.piece:
                        await anyio.sleep(0.001)
                if reply.close:
                    return

    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, handle)
        try:
            yield server
        finally:
            group.cancel_scope.cancel()


def always(reply: Reply | None) -> Respond:
    async def respond(seen: Seen) -> Reply | None:
        return reply

    return respond


@asynccontextmanager
async def socket_wire() -> AsyncIterator[SocketWire]:
    wire = SocketWire()
    try:
        yield wire
    finally:
        await wire.aclose()


async def get(wire: SocketWire, url: str, *, seconds: float = 10) -> tuple[int, bytes]:
    return await wire.send("GET", url, HEADERS, None, seconds=seconds, limit=LIMIT)


async def test_requests_to_one_server_share_one_kept_alive_connection() -> None:
    async with scripted_server(always(Reply(answer()))) as server, socket_wire() as wire:
        first = await get(wire, server.url + "/api/window?limit=3")
        second = await get(wire, server.url + "/health")
    assert first == second == (200, b'{"ok":true}')
    assert server.connections == 1
    assert [seen.request_line for seen in server.seen] == [
        "GET /api/window?limit=3 HTTP/1.1",
        "GET /health HTTP/1.1",
    ]
    assert server.seen[0].header("host") == server.url.removeprefix("http://")
    assert server.seen[0].header("authorization") == "Bearer t"


async def test_a_post_carries_its_body_and_its_length() -> None:
    body = '{"content":"é ✓"}'.encode()
    async with scripted_server(always(Reply(answer(status=201)))) as server, socket_wire() as wire:
        status, _ = await wire.send(
            "POST", server.url + "/api/edit", HEADERS, body, seconds=10, limit=LIMIT
        )
    [seen] = server.seen
    assert status == 201
    assert seen.request_line == "POST /api/edit HTTP/1.1"
    assert (seen.body, seen.header("content-length")) == (body, str(len(body)))


async def test_a_connection_the_server_closed_after_answering_is_not_used_again() -> None:
    async with (
        scripted_server(always(Reply(answer(), close=True))) as server,
        socket_wire() as wire,
    ):
        results = [await get(wire, server.url + f"/n/{index}") for index in range(3)]
    assert results == [(200, b'{"ok":true}')] * 3
    assert [seen.connection for seen in server.seen] == [0, 1, 2]


async def test_a_request_dropped_unread_on_a_kept_connection_is_sent_once_more() -> None:
    async def drop_the_second(seen: Seen) -> Reply | None:
        return None if len(server.seen) == 2 else Reply(answer())

    async with scripted_server(drop_the_second) as server, socket_wire() as wire:
        await get(wire, server.url + "/first")
        assert await get(wire, server.url + "/second") == (200, b'{"ok":true}')
    assert [(seen.connection, seen.request_line) for seen in server.seen] == [
        (0, "GET /first HTTP/1.1"),
        (0, "GET /second HTTP/1.1"),
        (1, "GET /second HTTP/1.1"),
    ]


async def test_a_new_connection_closed_without_an_answer_is_broken_and_not_retried() -> None:
    async with scripted_server(always(None)) as server, socket_wire() as wire:
        with pytest.raises(WireBroken) as caught:
            await get(wire, server.url + "/x")
    assert caught.value.kind == "RemoteProtocolError"
    assert server.connections == 1


async def test_an_answer_that_closes_the_connection_is_read_and_the_connection_dropped() -> None:
    reply = Reply(answer(head="Connection: close\r\n"))
    async with scripted_server(always(reply)) as server, socket_wire() as wire:
        assert await get(wire, server.url + "/a") == (200, b'{"ok":true}')
        assert await get(wire, server.url + "/b") == (200, b'{"ok":true}')
    assert server.connections == 2


async def test_a_chunked_answer_is_read_whole() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    )
    async with scripted_server(always(Reply(chunked))) as server, socket_wire() as wire:
        assert await get(wire, server.url + "/svg") == (200, b"hello world")
        assert await get(wire, server.url + "/svg") == (200, b"hello world")
    assert server.connections == 1


async def test_an_answer_without_a_length_is_read_until_the_server_closes() -> None:
    reply = Reply(b"HTTP/1.1 200 OK\r\n\r\nall of it", close=True)
    async with scripted_server(always(reply)) as server, socket_wire() as wire:
        assert await get(wire, server.url + "/x") == (200, b"all of it")
        assert await get(wire, server.url + "/x") == (200, b"all of it")
    assert server.connections == 2


async def test_an_interim_answer_is_skipped() -> None:
    reply = Reply(b"HTTP/1.1 100 Continue\r\n\r\n" + answer(b"[]"))
    async with scripted_server(always(reply)) as server, socket_wire() as wire:
        assert await get(wire, server.url + "/x") == (200, b"[]")


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(b"hello, this is not HTTP\r\n\r\n", close=True), "RemoteProtocolError"),
        (Reply(answer(b"x" * 100)[:-90], close=True), "RemoteProtocolError"),
        (Reply(b"HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n"), "RemoteProtocolError"),
        (Reply(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 100_000), "RemoteProtocolError"),
    ],
    ids=["not-http", "cut-short", "bad-length", "huge-head"],
)
async def test_a_malformed_answer_is_a_broken_connection(reply: Reply, kind: str) -> None:
    async with scripted_server(always(reply)) as server, socket_wire() as wire:
        with pytest.raises(WireBroken) as caught:
            await get(wire, server.url + "/x")
    assert caught.value.kind == kind


async def test_an_answer_over_the_limit_is_refused_and_its_connection_dropped() -> None:
    async with scripted_server(always(Reply(answer(b"y" * 5000)))) as server, socket_wire() as wire:
        with pytest.raises(AnswerTooLarge):
            await wire.send("GET", server.url + "/big", HEADERS, None, seconds=10, limit=4999)
        assert await get(wire, server.url + "/big") == (200, b"y" * 5000)
    assert server.connections == 2


async def test_no_answer_in_time_is_a_timeout_and_the_connection_is_dropped() -> None:
    never = anyio.Event()

    async def hang_first(seen: Seen) -> Reply | None:
        if len(server.seen) == 1:
            await never.wait()
        return Reply(answer())

    async with scripted_server(hang_first) as server, socket_wire() as wire:
        with pytest.raises(WireTimeout):
            await get(wire, server.url + "/slow", seconds=0.2)
        assert await get(wire, server.url + "/fast") == (200, b'{"ok":true}')
    assert server.connections == 2


async def test_a_cancelled_request_leaves_no_connection_for_reuse() -> None:
    arrived = anyio.Event()
    never = anyio.Event()

    async def hang_first(seen: Seen) -> Reply | None:
        if len(server.seen) == 1:
            arrived.set()
            await never.wait()
        return Reply(answer())

    async with scripted_server(hang_first) as server, socket_wire() as wire:
        async with anyio.create_task_group() as group:
            group.start_soon(get, wire, server.url + "/slow")
            await arrived.wait()
            group.cancel_scope.cancel()
        assert await get(wire, server.url + "/next") == (200, b'{"ok":true}')
    assert [seen.connection for seen in server.seen] == [0, 1]


async def test_requests_under_way_together_each_get_a_connection_then_share_them() -> None:
    both = anyio.Event()

    async def hold_until_both(seen: Seen) -> Reply | None:
        if len(server.seen) == 2:
            both.set()
        await both.wait()
        return Reply(answer())

    async with scripted_server(hold_until_both) as server, socket_wire() as wire:
        async with anyio.create_task_group() as group:
            group.start_soon(get, wire, server.url + "/a")
            group.start_soon(get, wire, server.url + "/b")
        await get(wire, server.url + "/c")
        await get(wire, server.url + "/d")
    assert server.connections == 2
    assert {seen.connection for seen in server.seen[2:]} <= {0, 1}


async def test_closing_the_wire_closes_its_connections_and_refuses_more_requests() -> None:
    async with scripted_server(always(Reply(answer()))) as server:
        wire = SocketWire()
        await get(wire, server.url + "/a")
        await wire.aclose()
        with anyio.fail_after(5):
            while not server.ended:  # noqa: ASYNC110 - the server notices the end on its own time
                await anyio.sleep(0.005)
        with pytest.raises(WireBroken) as caught:
            await get(wire, server.url + "/b")
    assert caught.value.kind == "ClientClosed"
    assert server.ended == [0]


async def test_a_connection_unused_for_too_long_is_dropped_before_the_server_drops_it() -> None:
    now = [100.0]
    async with scripted_server(always(Reply(answer()))) as server:
        wire = SocketWire(clock=lambda: now[0])
        await get(wire, server.url + "/a")
        now[0] += MAX_IDLE_SECONDS - 0.5
        await get(wire, server.url + "/b")
        now[0] += MAX_IDLE_SECONDS + 0.5
        await get(wire, server.url + "/c")
        with anyio.fail_after(5):
            while 0 not in server.ended:  # noqa: ASYNC110 - the server notices on its own time
                await anyio.sleep(0.005)
        await wire.aclose()
    assert [seen.connection for seen in server.seen] == [0, 0, 1]


async def test_closing_the_wire_under_a_request_fails_that_request_as_broken() -> None:
    arrived = anyio.Event()
    never = anyio.Event()

    async def hang(seen: Seen) -> Reply | None:
        arrived.set()
        await never.wait()
        return None

    failures: list[WireBroken] = []
    async with scripted_server(hang) as server:
        wire = SocketWire()

        async def ask() -> None:
            with pytest.raises(WireBroken) as caught:
                await get(wire, server.url + "/slow")
            failures.append(caught.value)

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            await arrived.wait()
            await wire.aclose()
    assert [failure.kind for failure in failures] == ["RemoteProtocolError"]


async def test_a_refused_connection_is_a_connect_error() -> None:
    with refused_port() as port:
        async with socket_wire() as wire:
            with pytest.raises(WireBroken) as caught:
                await get(wire, f"http://127.0.0.1:{port}/health")
    assert caught.value.kind == "ConnectError"


@pytest.mark.parametrize(
    ("url", "served"),
    [
        ("http://127.0.0.1:4747", True),
        ("http://localhost:4747/base", True),
        ("http://[::1]:4747", True),
        ("https://quire.example.com", False),
        ("ws://127.0.0.1:4747", False),
        ("http://", False),
        ("", False),
    ],
)
def test_the_socket_wire_carries_plain_http_only(url: str, served: bool) -> None:
    assert SocketWire.serves(url) is served


@pytest.mark.parametrize(
    "url", ["https://127.0.0.1:1/x", "http:///no-host", "http://127.0.0.1:99999/x"]
)
async def test_an_address_the_socket_wire_cannot_reach_is_refused_before_connecting(
    url: str,
) -> None:
    async with socket_wire() as wire:
        with pytest.raises(WireBroken):
            await get(wire, url)


@pytest.mark.parametrize(
    ("params", "query"),
    [
        (None, ""),
        ({}, ""),
        ({"limit": 5}, "?limit=5"),
        ({"a": True, "b": False, "c": None}, "?a=true&b=false&c="),
        ({"path": "/w/my plan&é.md"}, "?path=%2Fw%2Fmy%20plan%26%C3%A9.md"),
        ({"wait_ms": 1.5}, "?wait_ms=1.5"),
    ],
)
def test_query_strings_write_values_as_httpx_does(
    params: dict[str, Any] | None, query: str
) -> None:
    assert query_string(params) == query
    if params:
        parsed = httpx.URL("http://h/p" + query).params
        expected = httpx.URL("http://h/p", params=params).params
        assert parsed == expected


async def test_the_httpx_wire_reads_an_answer_and_sends_the_request_as_given() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"{}")

    wire = HttpxWire(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    status, body = await wire.send(
        "POST", "http://h/api/x?limit=2", HEADERS, b"{}", seconds=5, limit=LIMIT
    )
    await wire.aclose()
    assert (status, body) == (200, b"{}")
    assert str(seen[0].url) == "http://h/api/x?limit=2"
    assert seen[0].headers["authorization"] == "Bearer t"


@pytest.mark.parametrize(
    ("failure", "error", "kind"),
    [
        (httpx.ReadTimeout("slow"), WireTimeout, None),
        (httpx.ConnectError("refused"), WireBroken, "ConnectError"),
        (httpx.RemoteProtocolError("bad"), WireBroken, "RemoteProtocolError"),
    ],
)
async def test_the_httpx_wire_turns_transport_failures_into_wire_errors(
    failure: Exception, error: type[Exception], kind: str | None
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise failure

    wire = HttpxWire(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    with pytest.raises(error) as caught:
        await wire.send("GET", "http://h/x", HEADERS, None, seconds=5, limit=LIMIT)
    await wire.aclose()
    if kind is not None:
        assert isinstance(caught.value, WireBroken)
        assert caught.value.kind == kind


async def test_the_httpx_wire_refuses_an_answer_over_the_limit() -> None:
    wire = HttpxWire(
        httpx.AsyncClient(
            transport=httpx.MockTransport(lambda r: httpx.Response(200, content=b"z" * 11))
        )
    )
    with pytest.raises(AnswerTooLarge):
        await wire.send("GET", "http://h/x", HEADERS, None, seconds=5, limit=10)
    await wire.aclose()


@pytest.mark.parametrize(
    "headers",
    [
        [("X-Quire-Agent", "bot\r\nX-Injected: 1")],
        [("X-Quire-Agent", "bot\nX-Injected: 1")],
        [("Bad Name", "x")],
        [("X-Quire-Agent", "emoji ✓")],
    ],
    ids=["crlf", "lf", "space-in-name", "not-latin-1"],
)
async def test_a_header_that_would_break_the_request_is_refused_before_sending(
    headers: list[tuple[str, str]],
) -> None:
    async with scripted_server(always(Reply(answer()))) as server, socket_wire() as wire:
        with pytest.raises(WireBroken) as caught:
            await wire.send("GET", server.url + "/x", headers, None, seconds=10, limit=LIMIT)
        assert await get(wire, server.url + "/y") == (200, b'{"ok":true}')
    assert caught.value.kind == "LocalProtocolError"
    assert [seen.request_line for seen in server.seen] == ["GET /y HTTP/1.1"]


@pytest.mark.parametrize("piece", [1, 500])
async def test_an_answer_in_small_pieces_is_read_whole(piece: int) -> None:
    body = b'{"text":"' + b"z" * 400 + b'"}'
    interim = b"HTTP/1.1 100 Continue\r\n\r\n"
    async with (
        scripted_server(always(Reply(interim + answer(body), piece=piece))) as server,
        socket_wire() as wire,
    ):
        assert await get(wire, server.url + "/x") == (200, body)
        assert await get(wire, server.url + "/x") == (200, body)
    assert server.connections == 1
