from collections.abc import AsyncIterator
from typing import cast

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ExceptionHandler, Message, Receive, Scope, Send

from quire.core.errors import QuireError
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.web.errors import quire_error_handler
from quire.web.limits import BodyLimitMiddleware
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

MIB = 1024 * 1024


class _Body:
    """A request body arriving in 1 MiB chunks; counts what the server pulled."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.pulled = 0
        self.pulled_bytes = 0

    async def receive(self) -> Message:
        self.pulled += 1
        left = MIB if self.total is None else min(MIB, self.total - self.pulled_bytes)
        self.pulled_bytes += left
        more = self.total is None or self.pulled_bytes < self.total
        return {"type": "http.request", "body": b"x" * left, "more_body": more}


class _Reader:
    """The app behind the limit: reads the whole body and says how long it was."""

    def __init__(self) -> None:
        self.calls = 0

    async def endpoint(self, request: Request) -> JSONResponse:
        self.calls += 1
        return JSONResponse({"length": len(await request.body())})


def _scope(headers: list[tuple[bytes, bytes]]) -> Scope:
    return {
        "type": "http",
        "method": "POST",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": headers,
        "scheme": "http",
        "http_version": "1.1",
        "server": ("127.0.0.1", 4747),
    }


async def _call(headers: list[tuple[bytes, bytes]], body: _Body) -> tuple[int, bytes, _Reader]:
    reader = _Reader()
    inner = Starlette(
        routes=[Route("/", reader.endpoint, methods=["POST"])],
        exception_handlers={QuireError: cast("ExceptionHandler", quire_error_handler)},
    )
    app = BodyLimitMiddleware(inner)
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    await app(_scope(headers), body.receive, send)
    status = sent[0]["status"]
    assert isinstance(status, int)
    payload = b"".join(bytes(message.get("body", b"")) for message in sent[1:])
    return status, payload, reader


async def test_a_declared_body_over_16_mib_is_refused_before_any_of_it_is_read() -> None:
    body = _Body(MAX_DOCUMENT_BYTES + 1)
    length = str(MAX_DOCUMENT_BYTES + 1).encode()
    status, payload, reader = await _call([(b"content-length", length)], body)
    assert status == 413
    assert body.pulled == 0
    assert reader.calls == 0
    assert b'"type":"FileTooLarge"' in payload
    assert b"16 MiB" in payload


async def test_a_chunked_body_is_refused_the_moment_it_passes_16_mib() -> None:
    body = _Body(None)
    status, payload, reader = await _call([(b"transfer-encoding", b"chunked")], body)
    assert status == 413
    assert body.pulled == MAX_DOCUMENT_BYTES // MIB + 1
    assert reader.calls == 1
    assert b"FileTooLarge" in payload


async def test_a_body_that_lies_about_its_length_is_still_counted() -> None:
    body = _Body(MAX_DOCUMENT_BYTES + MIB)
    status, _, _ = await _call([(b"content-length", b"10")], body)
    assert status == 413


async def test_a_handler_without_error_handling_still_gets_a_413_answer() -> None:
    body = _Body(None)

    async def read_all(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = _scope([(b"transfer-encoding", b"chunked")])
    await BodyLimitMiddleware(read_all)(scope, body.receive, send)
    assert sent[0]["status"] == 413
    assert body.pulled == MAX_DOCUMENT_BYTES // MIB + 1


@pytest.mark.parametrize("size", [0, 1, MAX_DOCUMENT_BYTES])
async def test_a_body_of_up_to_16_mib_is_read_whole(size: int) -> None:
    body = _Body(size)
    status, payload, _ = await _call([(b"content-length", str(size).encode())], body)
    assert status == 200
    assert payload == f'{{"length":{size}}}'.encode()


@pytest.mark.parametrize("value", [b"abc", b"-1", b""])
async def test_a_malformed_content_length_is_left_to_the_counter(value: bytes) -> None:
    status, _, _ = await _call([(b"content-length", value)], _Body(3))
    assert status == 200


async def test_the_app_refuses_a_request_over_16_mib_with_413(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/documents/set-content",
        headers={**AUTH, "Content-Type": "application/json"},
        content=b"x" * (MAX_DOCUMENT_BYTES + 1),
    )
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "FileTooLarge"


async def test_the_app_refuses_a_chunked_request_over_16_mib_with_413(
    client: httpx.AsyncClient,
) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(64):
            sent += 1
            yield b"x" * MIB

    response = await client.post("/api/documents/set-content", headers=AUTH, content=chunks())
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "FileTooLarge"
    assert sent < 64
