"""One exchange of the API client over httpx: kept-alive connections against a scripted server
that misbehaves on cue, and failures of a mock transport."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import httpx
import pytest
import uvicorn
from anyio.abc import SocketStream

from quire.client.exchange import (
    KEEP_ALIVE,
    AnswerTooLarge,
    ConnectionBroken,
    NoAnswerInTime,
    exchange,
    http_client,
)

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
                await stream.send(reply.data)
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
async def client() -> AsyncIterator[httpx.AsyncClient]:
    http = http_client(timeout=10)
    try:
        yield http
    finally:
        await http.aclose()


async def send(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    body: bytes | None = None,
    *,
    seconds: float = 10,
    limit: int = LIMIT,
) -> tuple[int, bytes]:
    request = http.build_request(method, url, headers=HEADERS, content=body, timeout=seconds)
    return await exchange(http, request, seconds=seconds, limit=limit)


async def get(http: httpx.AsyncClient, url: str, *, seconds: float = 10) -> tuple[int, bytes]:
    return await send(http, "GET", url, seconds=seconds)


async def test_requests_to_one_server_share_one_kept_alive_connection() -> None:
    async with scripted_server(always(Reply(answer()))) as server, client() as http:
        first = await get(http, server.url + "/api/window?limit=3")
        second = await get(http, server.url + "/health")
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
    async with scripted_server(always(Reply(answer(status=201)))) as server, client() as http:
        status, _ = await send(http, "POST", server.url + "/api/edit", body)
    [seen] = server.seen
    assert status == 201
    assert seen.request_line == "POST /api/edit HTTP/1.1"
    assert (seen.body, seen.header("content-length")) == (body, str(len(body)))


async def test_a_connection_the_server_closed_after_answering_is_not_used_again() -> None:
    async with scripted_server(always(Reply(answer(), close=True))) as server, client() as http:
        results = [await get(http, server.url + f"/n/{index}") for index in range(3)]
    assert results == [(200, b'{"ok":true}')] * 3
    assert [seen.connection for seen in server.seen] == [0, 1, 2]


async def test_a_request_dropped_unread_on_a_kept_connection_is_sent_once_more() -> None:
    async def drop_the_second(seen: Seen) -> Reply | None:
        return None if len(server.seen) == 2 else Reply(answer())

    async with scripted_server(drop_the_second) as server, client() as http:
        await get(http, server.url + "/first")
        assert await get(http, server.url + "/second") == (200, b'{"ok":true}')
    assert [(seen.connection, seen.request_line) for seen in server.seen] == [
        (0, "GET /first HTTP/1.1"),
        (0, "GET /second HTTP/1.1"),
        (1, "GET /second HTTP/1.1"),
    ]


async def test_a_post_dropped_unread_on_a_kept_connection_is_sent_once_more_whole() -> None:
    async def drop_the_second(seen: Seen) -> Reply | None:
        return None if len(server.seen) == 2 else Reply(answer())

    async with scripted_server(drop_the_second) as server, client() as http:
        await get(http, server.url + "/first")
        assert await send(http, "POST", server.url + "/edit", b'{"a":1}') == (200, b'{"ok":true}')
    assert [(seen.connection, seen.body) for seen in server.seen[1:]] == [
        (0, b'{"a":1}'),
        (1, b'{"a":1}'),
    ]


async def test_a_request_is_sent_at_most_twice_when_kept_and_new_connections_both_drop_it() -> None:
    async def drop_all_but_the_first(seen: Seen) -> Reply | None:
        return Reply(answer()) if len(server.seen) == 1 else None

    async with scripted_server(drop_all_but_the_first) as server, client() as http:
        await get(http, server.url + "/first")
        with pytest.raises(ConnectionBroken) as caught:
            await get(http, server.url + "/second")
    assert caught.value.kind == "RemoteProtocolError"
    assert [seen.connection for seen in server.seen] == [0, 0, 1]


async def test_a_new_connection_closed_without_an_answer_is_broken_and_not_retried() -> None:
    async with scripted_server(always(None)) as server, client() as http:
        with pytest.raises(ConnectionBroken) as caught:
            await get(http, server.url + "/x")
    assert caught.value.kind == "RemoteProtocolError"
    assert server.connections == 1


async def test_an_answer_that_closes_the_connection_is_read_and_the_connection_dropped() -> None:
    reply = Reply(answer(head="Connection: close\r\n"))
    async with scripted_server(always(reply)) as server, client() as http:
        assert await get(http, server.url + "/a") == (200, b'{"ok":true}')
        assert await get(http, server.url + "/b") == (200, b'{"ok":true}')
    assert server.connections == 2


async def test_a_chunked_answer_is_read_whole() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    )
    async with scripted_server(always(Reply(chunked))) as server, client() as http:
        assert await get(http, server.url + "/svg") == (200, b"hello world")
        assert await get(http, server.url + "/svg") == (200, b"hello world")
    assert server.connections == 1


async def test_an_answer_without_a_length_is_read_until_the_server_closes() -> None:
    reply = Reply(b"HTTP/1.1 200 OK\r\n\r\nall of it", close=True)
    async with scripted_server(always(reply)) as server, client() as http:
        assert await get(http, server.url + "/x") == (200, b"all of it")
        assert await get(http, server.url + "/x") == (200, b"all of it")
    assert server.connections == 2


async def test_an_interim_answer_is_skipped() -> None:
    reply = Reply(b"HTTP/1.1 100 Continue\r\n\r\n" + answer(b"[]"))
    async with scripted_server(always(reply)) as server, client() as http:
        assert await get(http, server.url + "/x") == (200, b"[]")


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(b"hello, this is not HTTP\r\n\r\n", close=True), "RemoteProtocolError"),
        (Reply(answer(b"x" * 100)[:-90], close=True), "RemoteProtocolError"),
        (Reply(b"HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n"), "RemoteProtocolError"),
        (Reply(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000), "RemoteProtocolError"),
    ],
    ids=["not-http", "cut-short", "bad-length", "huge-head"],
)
async def test_a_malformed_answer_is_a_broken_connection(reply: Reply, kind: str) -> None:
    async with scripted_server(always(reply)) as server, client() as http:
        with pytest.raises(ConnectionBroken) as caught:
            await get(http, server.url + "/x")
    assert caught.value.kind == kind


async def test_an_answer_over_the_limit_is_refused_and_its_connection_dropped() -> None:
    async with scripted_server(always(Reply(answer(b"y" * 5000)))) as server, client() as http:
        with pytest.raises(AnswerTooLarge):
            await send(http, "GET", server.url + "/big", limit=4999)
        assert await get(http, server.url + "/big") == (200, b"y" * 5000)
    assert server.connections == 2


async def test_no_answer_in_time_is_a_timeout_and_the_connection_is_dropped() -> None:
    never = anyio.Event()

    async def hang_first(seen: Seen) -> Reply | None:
        if len(server.seen) == 1:
            await never.wait()
        return Reply(answer())

    async with scripted_server(hang_first) as server, client() as http:
        with pytest.raises(NoAnswerInTime):
            await get(http, server.url + "/slow", seconds=0.2)
        assert await get(http, server.url + "/fast") == (200, b'{"ok":true}')
    assert server.connections == 2


async def test_an_answer_cut_off_midway_is_a_timeout_at_the_deadline() -> None:
    head = Reply(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nsome")
    async with scripted_server(always(head)) as server, client() as http:
        with anyio.fail_after(5), pytest.raises(NoAnswerInTime):
            await get(http, server.url + "/slow", seconds=0.2)


async def test_a_cancelled_request_leaves_no_connection_for_reuse() -> None:
    arrived = anyio.Event()
    never = anyio.Event()

    async def hang_first(seen: Seen) -> Reply | None:
        if len(server.seen) == 1:
            arrived.set()
            await never.wait()
        return Reply(answer())

    async with scripted_server(hang_first) as server, client() as http:
        async with anyio.create_task_group() as group:
            group.start_soon(get, http, server.url + "/slow")
            await arrived.wait()
            group.cancel_scope.cancel()
        assert await get(http, server.url + "/next") == (200, b'{"ok":true}')
    assert [seen.connection for seen in server.seen] == [0, 1]


async def test_requests_under_way_together_each_get_a_connection_then_share_them() -> None:
    both = anyio.Event()

    async def hold_until_both(seen: Seen) -> Reply | None:
        if len(server.seen) == 2:
            both.set()
        await both.wait()
        return Reply(answer())

    async with scripted_server(hold_until_both) as server, client() as http:
        async with anyio.create_task_group() as group:
            group.start_soon(get, http, server.url + "/a")
            group.start_soon(get, http, server.url + "/b")
        await get(http, server.url + "/c")
        await get(http, server.url + "/d")
    assert server.connections == 2
    assert {seen.connection for seen in server.seen[2:]} <= {0, 1}


async def test_closing_the_client_closes_its_connections_and_refuses_more_requests() -> None:
    async with scripted_server(always(Reply(answer()))) as server:
        http = http_client(timeout=10)
        await get(http, server.url + "/a")
        await http.aclose()
        with anyio.fail_after(5):
            while not server.ended:  # noqa: ASYNC110 - the server notices the end on its own time
                await anyio.sleep(0.005)
        with pytest.raises(ConnectionBroken) as caught:
            await get(http, server.url + "/b")
    assert caught.value.kind == "ClientClosed"
    assert server.ended == [0]


def test_a_kept_connection_is_dropped_before_the_server_would_drop_it() -> None:
    server_keeps = uvicorn.Config(app="quire.web.app:app").timeout_keep_alive
    assert KEEP_ALIVE.keepalive_expiry is not None
    assert 0 < KEEP_ALIVE.keepalive_expiry < server_keeps


async def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with client() as http:
        with pytest.raises(ConnectionBroken) as caught:
            await get(http, f"http://127.0.0.1:{port}/health")
    assert caught.value.kind == "ConnectError"


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("ftp://127.0.0.1:4747/x", "UnsupportedProtocol"),
        ("http:///no-host", "UnsupportedProtocol"),
    ],
)
async def test_an_address_that_cannot_be_reached_is_refused_before_connecting(
    url: str, kind: str
) -> None:
    async with client() as http:
        with pytest.raises(ConnectionBroken) as caught:
            await get(http, url)
    assert caught.value.kind == kind


def mock_client(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return http_client(httpx.MockTransport(handler), timeout=5)


async def test_a_given_transport_carries_the_request_as_built() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"{}")

    http = mock_client(handler)
    status, body = await send(http, "POST", "http://h/api/x?limit=2", b"{}")
    await http.aclose()
    assert (status, body) == (200, b"{}")
    assert str(seen[0].url) == "http://h/api/x?limit=2"
    assert seen[0].headers["authorization"] == "Bearer t"


@pytest.mark.parametrize(
    ("failure", "error", "kind"),
    [
        (httpx.ReadTimeout("slow"), NoAnswerInTime, None),
        (httpx.ConnectError("refused"), ConnectionBroken, "ConnectError"),
        (httpx.RemoteProtocolError("bad"), ConnectionBroken, "RemoteProtocolError"),
        (httpx.ReadError("reset"), ConnectionBroken, "ReadError"),
    ],
)
async def test_transport_failures_become_exchange_errors_and_are_not_resent(
    failure: Exception, error: type[Exception], kind: str | None
) -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise failure

    http = mock_client(handler)
    with pytest.raises(error) as caught:
        await get(http, "http://h/x")
    await http.aclose()
    assert len(calls) == 1
    if kind is not None:
        assert isinstance(caught.value, ConnectionBroken)
        assert caught.value.kind == kind


async def test_an_answer_over_the_limit_through_a_transport_is_refused() -> None:
    http = mock_client(lambda r: httpx.Response(200, content=b"z" * 11))
    with pytest.raises(AnswerTooLarge):
        await send(http, "GET", "http://h/x", limit=10)
    await http.aclose()


async def test_closing_the_client_under_a_request_fails_that_request_as_broken() -> None:
    arrived = anyio.Event()
    never = anyio.Event()

    async def hang(seen: Seen) -> Reply | None:
        arrived.set()
        await never.wait()
        return None

    failures: list[ConnectionBroken] = []
    async with scripted_server(hang) as server:
        http = http_client(timeout=10)

        async def ask() -> None:
            with pytest.raises(ConnectionBroken) as caught:
                await get(http, server.url + "/slow")
            failures.append(caught.value)

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            await arrived.wait()
            await http.aclose()
    assert len(failures) == 1
