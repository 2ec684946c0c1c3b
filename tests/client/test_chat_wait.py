"""The wait that outlives a restart: transient failures retried with backoff until the deadline,
real errors at once. The clock and the sleep are the test's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.client.chat_wait import WaitRequest, wait_for_messages
from quire.client.connection import ServerLink
from quire.core.errors import InvalidArgument, ServerFailed, ServerUnreachable, TokenRefused
from quire.core.server_info import ServerInfo

pytestmark = pytest.mark.anyio

INFO = ServerInfo(url="http://127.0.0.1:4747", token="t" * 64, pid=1)
REQUEST = WaitRequest(path="/w/c.md", reader="bob", timeout=10, session="s", command="c")
ANSWER = {
    "status": "messages",
    "messages": [{"number": 4, "author": "ann", "time": "t", "body": "hi", "mentions": []}],
    "next": 4,
    "reminder": None,
}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class Server:
    """Fails the first ``failures`` requests with ``error``, then answers ``answer``."""

    def __init__(self, failures: int, error: Exception, answer: httpx.Response) -> None:
        self.failures = failures
        self.error = error
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        if self.failures:
            self.failures -= 1
            raise self.error
        return self.answer


def link_to(server: Server, tmp_path: Path) -> ServerLink:
    return ServerLink(state=tmp_path, fixed=INFO, transport=httpx.MockTransport(server))


@pytest.mark.parametrize(
    "error",
    [httpx.ConnectError("refused"), httpx.ReadError("reset"), httpx.RemoteProtocolError("closed")],
)
async def test_a_server_that_drops_the_wait_is_asked_again_with_backoff(
    tmp_path: Path, error: Exception
) -> None:
    server = Server(3, error, httpx.Response(200, json=ANSWER))
    clock = Clock()
    result = await wait_for_messages(
        link_to(server, tmp_path), REQUEST, clock=clock, sleep=clock.sleep
    )
    assert result.status == "messages" and result.next == 4
    assert clock.slept == [0.1, 0.2, 0.4]
    assert len(server.bodies) == 4
    assert all(body["session"] == "s" and body["command"] == "c" for body in server.bodies)


async def test_each_retry_waits_only_for_what_is_left_of_the_timeout(tmp_path: Path) -> None:
    server = Server(2, httpx.ConnectError("refused"), httpx.Response(200, json=ANSWER))
    clock = Clock()
    await wait_for_messages(link_to(server, tmp_path), REQUEST, clock=clock, sleep=clock.sleep)
    assert [body["timeoutMs"] for body in server.bodies] == [10_000, 9_900, 9_700]


async def test_the_backoff_stops_growing_at_two_seconds(tmp_path: Path) -> None:
    server = Server(8, httpx.ConnectError("refused"), httpx.Response(200, json=ANSWER))
    clock = Clock()
    request = WaitRequest(path="/w/c.md", reader="bob", timeout=60)
    await wait_for_messages(link_to(server, tmp_path), request, clock=clock, sleep=clock.sleep)
    assert clock.slept == [0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0, 2.0]


async def test_a_server_still_gone_at_the_deadline_is_an_error(tmp_path: Path) -> None:
    server = Server(10_000, httpx.ConnectError("refused"), httpx.Response(200, json=ANSWER))
    clock = Clock()
    with pytest.raises(ServerUnreachable, match=r"kept trying for the whole wait \(10 s\)"):
        await wait_for_messages(link_to(server, tmp_path), REQUEST, clock=clock, sleep=clock.sleep)
    assert sum(clock.slept) == pytest.approx(10)
    assert all(body["timeoutMs"] >= 1000 for body in server.bodies)


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (
            httpx.Response(401, json={"error": {"type": "Unauthorized", "message": "no"}}),
            TokenRefused,
        ),
        (
            httpx.Response(400, json={"error": {"type": "InvalidArgument", "message": "bad as"}}),
            InvalidArgument,
        ),
    ],
)
async def test_a_refused_token_or_a_bad_argument_ends_the_wait_at_once(
    tmp_path: Path, answer: httpx.Response, error: type[Exception]
) -> None:
    server = Server(0, RuntimeError("unused"), answer)
    clock = Clock()
    with pytest.raises(error):
        await wait_for_messages(link_to(server, tmp_path), REQUEST, clock=clock, sleep=clock.sleep)
    assert clock.slept == []
    assert len(server.bodies) == 1


async def test_after_the_first_attempt_a_stopped_server_is_waited_for_not_restarted(
    tmp_path: Path,
) -> None:
    class Starter:
        def __init__(self) -> None:
            self.starts = 0

        async def start(self) -> ServerInfo:
            self.starts += 1
            return INFO

    server = Server(10_000, httpx.ConnectError("refused"), httpx.Response(200, json=ANSWER))
    starter = Starter()
    link = ServerLink(state=tmp_path, starter=starter, transport=httpx.MockTransport(server))
    clock = Clock()
    with pytest.raises(ServerUnreachable, match="No Quire server is running right now"):
        await wait_for_messages(link, REQUEST, clock=clock, sleep=clock.sleep)
    assert starter.starts == 1
    assert len(server.bodies) == 1


async def test_a_server_that_cannot_be_started_fails_the_wait_at_once(tmp_path: Path) -> None:
    class Starter:
        async def start(self) -> ServerInfo:
            raise ServerUnreachable("could not start")

    clock = Clock()
    with pytest.raises(ServerUnreachable, match="could not start"):
        await wait_for_messages(
            ServerLink(state=tmp_path, starter=Starter()), REQUEST, clock=clock, sleep=clock.sleep
        )
    assert clock.slept == []


async def test_a_bare_server_error_from_a_stopping_server_is_retried(tmp_path: Path) -> None:
    answers = [
        httpx.Response(500, text="Internal Server Error"),
        httpx.Response(503, text=""),
        httpx.Response(200, json=ANSWER),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        return answers.pop(0)

    link = ServerLink(state=tmp_path, fixed=INFO, transport=httpx.MockTransport(handler))
    clock = Clock()
    result = await wait_for_messages(link, REQUEST, clock=clock, sleep=clock.sleep)
    assert result.status == "messages"
    assert clock.slept == [0.1, 0.2]


async def test_a_server_error_the_server_explained_is_not_retried(tmp_path: Path) -> None:
    answer = httpx.Response(
        500, json={"error": {"type": "InternalError", "message": "Quire failed unexpectedly."}}
    )
    server = Server(0, RuntimeError("unused"), answer)
    clock = Clock()
    with pytest.raises(ServerFailed, match="failed unexpectedly"):
        await wait_for_messages(link_to(server, tmp_path), REQUEST, clock=clock, sleep=clock.sleep)
    assert clock.slept == []
