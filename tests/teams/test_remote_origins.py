"""The Host and Origin check of a server reached over HTTPS or through a public URL."""

from __future__ import annotations

import httpx
import pytest
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from quire.web.auth import HostOriginMiddleware

pytestmark = pytest.mark.anyio


async def _ok(scope: Scope, receive: Receive, send: Send) -> None:
    await PlainTextResponse("ok")(scope, receive, send)


async def _status(middleware: HostOriginMiddleware, base: str, headers: dict[str, str]) -> int:
    transport = httpx.ASGITransport(app=middleware)
    async with httpx.AsyncClient(transport=transport, base_url=base) as client:
        return (await client.get("/api/account", headers=headers)).status_code


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        (None, 200),
        ("https://127.0.0.1:4747", 200),
        ("https://localhost:4747", 200),
        ("http://127.0.0.1:4747", 403),
        ("https://evil.example", 403),
        ("https://127.0.0.1:4748", 403),
    ],
)
async def test_a_tls_server_takes_its_own_https_origins_only(
    origin: str | None, status: int
) -> None:
    middleware = HostOriginMiddleware(_ok, host="127.0.0.1", port=4747, scheme="https")
    headers = {} if origin is None else {"Origin": origin}
    assert await _status(middleware, "https://127.0.0.1:4747", headers) == status


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("notes.example.com", "https://notes.example.com", 200),
        ("notes.example.com:443", "https://notes.example.com", 200),
        ("NOTES.example.com", None, 200),
        ("notes.example.com", "http://notes.example.com", 403),
        ("notes.example.com.evil.example", None, 403),
        ("notes.example.com:8443", None, 403),
        ("127.0.0.1:4747", "https://notes.example.com", 200),
        ("notes.example.com", "https://notes.example.com:8443", 403),
    ],
)
async def test_the_public_url_is_a_host_and_an_origin_of_the_server(
    host: str, origin: str | None, status: int
) -> None:
    middleware = HostOriginMiddleware(
        _ok, host="127.0.0.1", port=4747, public_url="https://notes.example.com"
    )
    headers = {"Host": host} | ({} if origin is None else {"Origin": origin})
    assert await _status(middleware, "http://127.0.0.1:4747", headers) == status


async def test_without_tls_or_a_public_url_only_http_origins_pass() -> None:
    middleware = HostOriginMiddleware(_ok, host="127.0.0.1", port=4747)
    base = "http://127.0.0.1:4747"
    assert await _status(middleware, base, {"Origin": "http://127.0.0.1:4747"}) == 200
    assert await _status(middleware, base, {"Origin": "https://127.0.0.1:4747"}) == 403
