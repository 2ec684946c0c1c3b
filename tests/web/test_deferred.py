"""The app built on its first request: once, off the loop, run for the server's life."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from quire.web.deferred import DeferredApp, Runnable

pytestmark = pytest.mark.anyio


@dataclass
class Built:
    """What a build made, and what happened to it."""

    threads: list[str] = field(default_factory=list)
    entered: int = 0
    left: int = 0

    @property
    def app(self) -> ASGIApp:
        async def reply(scope: Scope, receive: Receive, send: Send) -> None:
            assert self.entered == 1 and self.left == 0
            await PlainTextResponse("built")(scope, receive, send)

        return reply

    @property
    def running(self) -> Callable[[], AbstractAsyncContextManager[None]]:
        @asynccontextmanager
        async def context() -> AsyncIterator[None]:
            self.entered += 1
            try:
                yield
            finally:
                self.left += 1

        return context


@asynccontextmanager
async def serving(deferred: DeferredApp) -> AsyncIterator[httpx.AsyncClient]:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with deferred.running():
            yield

    app = Starlette(routes=[Route("/x", _Endpoint(deferred))], lifespan=lifespan)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client


class _Endpoint:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)


async def test_a_server_nobody_asks_never_builds_the_app() -> None:
    builds: list[Built] = []

    def build() -> Runnable:
        builds.append(Built())
        return builds[-1]

    deferred = DeferredApp(build, name="The thing")
    async with serving(deferred):
        pass
    assert builds == []
    assert not deferred.is_built


async def test_concurrent_first_requests_build_once_off_the_loop_and_run_until_shutdown() -> None:
    built = Built()
    loop_thread = threading.current_thread().name

    def build() -> Runnable:
        built.threads.append(threading.current_thread().name)
        return built

    deferred = DeferredApp(build, name="The thing")
    answers: list[httpx.Response] = []
    async with serving(deferred) as client:

        async def ask() -> None:
            answers.append(await client.get("/x"))

        async with anyio.create_task_group() as tasks:
            for _ in range(5):
                tasks.start_soon(ask)
        assert deferred.is_built
        assert (built.entered, built.left) == (1, 0)
    assert [(r.status_code, r.text) for r in answers] == [(200, "built")] * 5
    assert len(built.threads) == 1 and built.threads[0] != loop_thread
    assert (built.entered, built.left) == (1, 1)
    assert not deferred.is_built


async def test_a_build_that_fails_answers_503_with_the_reason_every_time() -> None:
    calls: list[int] = []

    def build() -> Runnable:
        calls.append(1)
        raise ImportError("No module named 'mcp'")

    deferred = DeferredApp(build, name="The /mcp endpoint")
    async with serving(deferred) as client:
        first = await client.get("/x")
        second = await client.post("/x")
    assert calls == [1]
    for response in (first, second):
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["type"] == "ServiceUnavailable"
        assert (
            "The /mcp endpoint could not start (ImportError: No module named 'mcp')"
            in (error["message"])
        )


async def test_a_request_outside_the_lifespan_is_a_programming_error() -> None:
    deferred = DeferredApp(Built, name="The thing")
    transport = httpx.ASGITransport(app=Starlette(routes=[Route("/x", _Endpoint(deferred))]))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        with pytest.raises(RuntimeError, match="only while the server's lifespan runs"):
            await client.get("/x")
