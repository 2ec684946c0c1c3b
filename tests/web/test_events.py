import json
from collections.abc import AsyncIterator

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from quire.api.events import (
    ActivityData,
    ActivityEvent,
    OpenData,
    OpenEvent,
    PresentData,
    PresentEvent,
)
from quire.core.errors import InvalidArgument
from quire.core.views import OWNER
from quire.services.app import AppServices
from quire.web.events import event_frame
from tests.support.events import parsed_frame
from tests.web.conftest import AUTH, TOKEN
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio


@pytest.fixture
async def port(app: Starlette) -> AsyncIterator[int]:
    async with live_server(app) as bound:
        yield bound


def _url(port: int, path: str = "/ws/events") -> str:
    return f"ws://127.0.0.1:{port}{path}"


def _subscribed(services: AppServices) -> None:
    # The server subscribes before it completes the handshake.
    assert services.bus.subscriber_count(OWNER) == 1


async def _unsubscribed(services: AppServices) -> None:
    # The server notices a browser leaving on its own time: poll within a deadline.
    with anyio.fail_after(5):
        while services.bus.subscriber_count(OWNER):  # noqa: ASYNC110 - the bus has no event for it
            await anyio.sleep(0.005)


async def _frame(socket: ClientConnection) -> dict[str, object]:
    with anyio.fail_after(5):
        raw = await socket.recv()
    assert isinstance(raw, str)
    frame = json.loads(raw)
    assert isinstance(frame, dict)
    parsed_frame(frame)
    return frame


async def _close_code(socket: ClientConnection) -> int | None:
    with anyio.fail_after(5), pytest.raises(ConnectionClosed) as caught:
        await socket.recv()
    return None if caught.value.rcvd is None else caught.value.rcvd.code


async def test_events_arrive_as_json_text_frames(port: int, services: AppServices) -> None:
    async with connect(_url(port), additional_headers=AUTH) as socket:
        _subscribed(services)
        opened = OpenData(path="/w/a.md", doc_id="x", view="read")
        services.bus.publish(OWNER, OpenEvent(data=opened))
        secret = OpenData(path="/w/secret.md", doc_id="y", view="read")
        services.bus.publish("someone-else", OpenEvent(data=secret))
        services.bus.publish(OWNER, PresentEvent(data=PresentData(path="/w/b.md", doc_id="z")))
        assert await _frame(socket) == {
            "kind": "open",
            "data": {"path": "/w/a.md", "docId": "x", "view": "read"},
        }
        assert await _frame(socket) == {
            "kind": "present",
            "data": {"path": "/w/b.md", "docId": "z"},
        }


async def test_a_browser_signs_in_to_the_events_with_its_cookie(
    port: int, services: AppServices
) -> None:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base) as client:
        await client.get("/", params={"token": TOKEN})
        cookie = client.cookies["quire_session"]
    headers = {"Cookie": f"quire_session={cookie}", "Origin": base}
    async with connect(_url(port), additional_headers=headers) as socket:
        _subscribed(services)
        activity = ActivityData(path="/w/a.md", author="agent", kind="edit")
        services.bus.publish(OWNER, ActivityEvent(data=activity))
        assert (await _frame(socket))["kind"] == "activity"


async def test_an_approval_and_a_notice_reach_the_owners_socket_as_they_happen(
    port: int, services: AppServices
) -> None:
    base = f"http://127.0.0.1:{port}"
    asked = {
        "harness": "claude-code",
        "session_id": "s1",
        "cwd": "/work",
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
        "machine_label": "box",
    }
    notice = {"session_id": "s1", "harness": "claude-code", "machine_label": "box"}
    async with (
        connect(_url(port), additional_headers=AUTH) as socket,
        httpx.AsyncClient(base_url=base, headers=AUTH) as client,
    ):
        _subscribed(services)
        made = await client.post("/api/approvals", json=asked)
        assert made.status_code == 200, made.text
        approval = await _frame(socket)
        raised = await client.post("/api/notices", json={**notice, "kind": "idle"})
        assert raised.json() == {"raised": True}
        noticed = await _frame(socket)
    assert approval == {
        "kind": "approval",
        "data": {"action": "new", "approval": _dig(approval, "data", "approval")},
    }
    assert _dig(approval, "data", "approval", "approvalId") == made.json()["approvalId"]
    assert _dig(noticed, "kind") == "notice"
    assert _dig(noticed, "data", "action") == "raised"
    assert _dig(noticed, "data", "notice", "kind") == "idle"


def _dig(frame: object, *keys: str) -> object:
    for key in keys:
        assert isinstance(frame, dict)
        frame = frame[key]
    return frame


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Cookie": "quire_session=forged"}],
)
async def test_a_websocket_without_credentials_is_closed_with_4401(
    port: int, services: AppServices, headers: dict[str, str]
) -> None:
    async with connect(_url(port), additional_headers=headers) as socket:
        assert await _close_code(socket) == 4401
    assert services.bus.subscriber_count(OWNER) == 0


@pytest.mark.parametrize("path", ["/ws/events", "/ws/documents/0123456789abcdef01234567"])
@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("127.0.0.1", "http://evil.com"),
        ("127.0.0.1", "null"),
        ("evil.com", None),
        ("evil.com", "http://evil.com"),
    ],
)
async def test_a_websocket_from_another_site_is_refused_before_its_handshake(
    port: int, path: str, host: str, origin: str | None
) -> None:
    # The socket always goes to 127.0.0.1; the URL's host is what the Host header says, as
    # after a DNS rebinding.
    headers = AUTH if origin is None else {**AUTH, "Origin": origin}
    url = f"ws://{host}:{port}{path}"
    with pytest.raises(InvalidStatus) as caught:
        async with connect(url, additional_headers=headers, host="127.0.0.1", port=port):
            pass
    assert caught.value.response.status_code == 403


async def test_leaving_the_socket_ends_the_subscription(port: int, services: AppServices) -> None:
    async with connect(_url(port), additional_headers=AUTH):
        _subscribed(services)
    await _unsubscribed(services)


async def test_the_socket_closes_with_1013_when_the_bus_ends(
    port: int, services: AppServices
) -> None:
    async with connect(_url(port), additional_headers=AUTH) as socket:
        _subscribed(services)
        services.bus.close()
        assert await _close_code(socket) == 1013


async def test_a_quire_error_in_a_websocket_closes_it_with_its_message(
    services: AppServices, app: Starlette
) -> None:
    async def refusing(websocket: WebSocket) -> None:
        await websocket.accept()
        raise InvalidArgument("That document id names nothing; open the document first.")

    app.router.routes.append(WebSocketRoute("/ws/refusing", refusing))
    async with (
        live_server(app) as bound,
        connect(_url(bound, "/ws/refusing"), additional_headers=AUTH) as socket,
    ):
        with anyio.fail_after(5), pytest.raises(ConnectionClosed) as caught:
            await socket.recv()
    assert caught.value.rcvd is not None
    assert caught.value.rcvd.code == 4400
    assert "open the document first" in caught.value.rcvd.reason


def test_an_event_frame_is_its_model_dumped_with_text_kept_as_it_is() -> None:
    event = OpenEvent(data=OpenData(path="/w/é.md", doc_id="x", view="edit", line=3))
    raw = event_frame(event)
    assert "é" in raw
    assert json.loads(raw) == {
        "kind": "open",
        "data": {"path": "/w/é.md", "docId": "x", "view": "edit", "line": 3},
    }
