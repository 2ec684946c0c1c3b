from collections.abc import Mapping

import httpx
import pytest
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from quire import __version__
from quire.web.auth import (
    MAX_SESSIONS,
    HostOriginMiddleware,
    Sessions,
    bearer_token,
    session_cookie,
    tokens_match,
)
from tests.web.conftest import AUTH, PORT, TOKEN

pytestmark = pytest.mark.anyio


async def _login(client: httpx.AsyncClient) -> str:
    response = await client.get("/", params={"token": TOKEN})
    assert response.status_code == 303
    cookie = response.cookies.get("quire_session")
    assert cookie
    return cookie


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer wrong"}, 401),
        ({"Authorization": f"Bearer {TOKEN[:-1]}"}, 401),
        ({"Authorization": f"Bearer {TOKEN}0"}, 401),
        ({"Authorization": f"Bearer {TOKEN.upper()}"}, 401),
        ({"Authorization": "Bearer "}, 401),
        ({"Authorization": TOKEN}, 401),
        ({"Authorization": f"Basic {TOKEN}"}, 401),
        ({b"Authorization": "Bearer t\u00f6k\u00e9n".encode()}, 401),
        ({"Cookie": f"quire_session={TOKEN}"}, 401),
        ({"Cookie": "quire_session=forged"}, 401),
        ({"X-Token": TOKEN}, 401),
        (AUTH, 200),
        ({"Authorization": f"bearer {TOKEN}"}, 200),
        ({"Authorization": f"Bearer   {TOKEN}  "}, 200),
    ],
)
async def test_the_api_needs_the_token(
    client: httpx.AsyncClient, headers: Mapping[str, str] | Mapping[bytes, bytes], status: int
) -> None:
    response = await client.get("/api/window", headers=headers)
    assert response.status_code == status
    if status == 401:
        error = response.json()["error"]
        assert error["type"] == "Unauthorized"
        assert "Authorization: Bearer <token>" in error["message"]
        assert "server.json" in error["message"]
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert TOKEN not in response.text


async def test_a_browser_session_cookie_signs_requests_in(client: httpx.AsyncClient) -> None:
    cookie = await _login(client)
    assert cookie != TOKEN
    client.cookies.clear()
    response = await client.get("/api/window", headers={"Cookie": f"quire_session={cookie}"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "path", ["/api/window", "/api/openapi.json", "/api/nothing-here", "/static/app.js", "/"]
)
async def test_everything_but_health_needs_credentials(
    client: httpx.AsyncClient, path: str
) -> None:
    assert (await client.get(path)).status_code == 401


async def test_health_answers_without_a_token_and_says_nothing_else(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "version": __version__,
        "replica": response.json()["replica"],
        "database": "ok",
        "fanout": "alone",
    }


async def test_the_home_page_without_credentials_explains_how_to_sign_in(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/")
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("text/html")
    assert "server.json" in response.text


async def test_the_home_page_with_credentials_serves_the_web_ui(
    client: httpx.AsyncClient,
) -> None:
    for headers in (AUTH, {"Cookie": f"quire_session={await _login(client)}"}):
        client.cookies.clear()
        response = await client.get("/", headers=headers)
        assert response.status_code == 200
        assert "<title>Quire</title>" in response.text
        assert '<script type="module"' in response.text
        assert response.headers["X-Frame-Options"] == "DENY"


async def test_login_sets_an_http_only_strict_cookie_and_redirects_home(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/", params={"token": TOKEN})
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    set_cookie = response.headers["set-cookie"]
    parts = [part.strip().lower() for part in set_cookie.split(";")]
    assert parts[0].startswith("quire_session=")
    assert "httponly" in parts
    assert "samesite=strict" in parts
    assert "path=/" in parts
    assert TOKEN not in set_cookie
    assert response.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    "query",
    [
        {"token": "wrong"},
        {"token": ""},
        {"token": TOKEN[:-1]},
        {"token": [TOKEN, TOKEN]},
        {"token": [TOKEN, "wrong"]},
    ],
)
async def test_a_wrong_login_token_gets_a_401_page_and_no_cookie(
    client: httpx.AsyncClient, query: dict[str, str | list[str]]
) -> None:
    response = await client.get("/", params=query)
    assert response.status_code == 401
    assert "set-cookie" not in response.headers
    assert "not valid" in response.text
    assert "restart" in response.text


async def test_each_login_gets_its_own_session(client: httpx.AsyncClient) -> None:
    first = await _login(client)
    second = await _login(client)
    assert first != second


def test_sessions_keep_only_the_newest() -> None:
    sessions = Sessions()
    first = sessions.create("owner")
    for _ in range(MAX_SESSIONS):
        sessions.create("owner")
    assert sessions.user_of(first) is None
    assert sessions.user_of(sessions.create("owner")) == "owner"


@pytest.mark.parametrize(
    ("candidate", "match"),
    [(TOKEN, True), (TOKEN[:-1], False), ("", False), ("\udcff", False), ("é" * 64, False)],
)
def test_tokens_compare_whole_and_never_raise(candidate: str, match: bool) -> None:
    assert tokens_match(candidate, TOKEN) == match


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("quire_session=abc", "abc"),
        ("other=1; quire_session=abc", "abc"),
        ("quire_session=", None),
        ("garbage;;;===", None),
        ('quire_session="abc', None),
        ("", None),
    ],
)
def test_the_session_cookie_is_read_from_any_cookie_header(
    header: str, expected: str | None
) -> None:
    assert session_cookie(Headers({"cookie": header})) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [("Bearer abc", "abc"), ("BEARER abc", "abc"), ("Bearer", None), ("Token abc", None)],
)
def test_a_bearer_token_is_read_from_the_authorization_header(
    header: str, expected: str | None
) -> None:
    assert bearer_token(Headers({"authorization": header})) == expected


# Host and Origin: the DNS-rebinding defence.


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": f"127.0.0.1:{PORT}"}, 200),
        ({"Host": f"localhost:{PORT}"}, 200),
        ({"Host": f"LocalHost:{PORT}"}, 200),
        ({"Host": f"[::1]:{PORT}"}, 200),
        ({"Host": "evil.com"}, 403),
        ({"Host": f"evil.com:{PORT}"}, 403),
        ({"Host": f"127.0.0.1.evil.com:{PORT}"}, 403),
        ({"Host": "127.0.0.1:9999"}, 403),
        ({"Host": "127.0.0.1"}, 403),
        ({"Host": f"localhost:{PORT}@evil.com"}, 403),
        ({"Host": ""}, 403),
        ({"Origin": f"http://127.0.0.1:{PORT}"}, 200),
        ({"Origin": f"http://localhost:{PORT}"}, 200),
        ({"Origin": "http://evil.com"}, 403),
        ({"Origin": f"http://evil.com:{PORT}"}, 403),
        ({"Origin": f"https://127.0.0.1:{PORT}"}, 403),
        ({"Origin": "http://127.0.0.1:9999"}, 403),
        ({"Origin": "null"}, 403),
        ({"Origin": ""}, 403),
        ({"Host": f"evil.com:{PORT}", "Origin": f"http://evil.com:{PORT}"}, 403),
    ],
)
@pytest.mark.parametrize("path", ["/health", "/api/window"])
async def test_host_and_origin_must_be_the_servers_own(
    client: httpx.AsyncClient, headers: dict[str, str], status: int, path: str
) -> None:
    response = await client.get(path, headers={**AUTH, **headers})
    assert response.status_code == status
    if status == 403:
        error = response.json()["error"]
        assert error["type"] == "Forbidden"
        assert "Refused" in error["message"]


async def test_a_request_without_an_origin_is_allowed(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/window", headers=AUTH)
    assert "origin" not in response.request.headers
    assert response.status_code == 200


async def _inner(request: Request) -> PlainTextResponse:
    return PlainTextResponse("inner")


def _guarded(host: str) -> HostOriginMiddleware:
    return HostOriginMiddleware(Starlette(routes=[Route("/", _inner)]), host=host, port=PORT)


def _scope(headers: list[tuple[bytes, bytes]], server: tuple[str, int] | None) -> Scope:
    return {
        "type": "http",
        "method": "GET",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": headers,
        "server": server,
        "scheme": "http",
        "http_version": "1.1",
    }


async def _status(app: HostOriginMiddleware, scope: Scope) -> int:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    status = sent[0]["status"]
    assert isinstance(status, int)
    return status


@pytest.mark.parametrize(
    ("host", "header", "status"),
    [
        ("192.168.1.5", b"192.168.1.5:4747", 200),
        ("192.168.1.5", b"127.0.0.1:4747", 200),
        ("Box.Local", b"box.local:4747", 200),
        ("::1", b"[::1]:4747", 200),
        ("fd00::5", b"[fd00::5]:4747", 200),
        ("127.0.0.1", b"192.168.1.5:4747", 403),
    ],
)
async def test_the_configured_host_is_allowed_too(host: str, header: bytes, status: int) -> None:
    scope = _scope([(b"host", header)], ("0.0.0.0", PORT))
    assert await _status(_guarded(host), scope) == status


async def test_a_request_without_a_host_header_is_refused() -> None:
    assert await _status(_guarded("127.0.0.1"), _scope([], ("127.0.0.1", PORT))) == 403


@pytest.mark.parametrize(
    ("server", "header", "status"),
    [
        (("127.0.0.1", 5555), b"127.0.0.1:5555", 200),
        (("127.0.0.1", 5555), b"127.0.0.1:4747", 403),
        (None, b"127.0.0.1:4747", 200),
        (("127.0.0.1", 80), b"localhost", 200),
    ],
)
async def test_the_port_is_the_one_the_request_arrived_on(
    server: tuple[str, int] | None, header: bytes, status: int
) -> None:
    scope = _scope([(b"host", header)], server)
    assert await _status(_guarded("127.0.0.1"), scope) == status


async def test_lifespan_messages_pass_through_the_guards() -> None:
    passed: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        passed.append(scope["type"])

    async def receive() -> Message:
        return {"type": "lifespan.startup"}

    async def send(message: Message) -> None:
        return None

    await HostOriginMiddleware(app, host="127.0.0.1", port=PORT)(
        {"type": "lifespan"}, receive, send
    )
    assert passed == ["lifespan"]
