"""An ASGI app built on its first request and then run for the rest of the server's life.

``/mcp`` needs the MCP SDK and every tool, about half of what ``quire serve`` would import at
start; most servers never get a request there (local agents use ``quire mcp``, which speaks the
HTTP API). Building it when it is first asked for keeps that out of every start. What is built
runs inside a task the server's lifespan owns, so its task group is entered and left in one task.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from quire.web.errors import error_response

logger = logging.getLogger("quire.web")


class Runnable(Protocol):
    """An ASGI app with the context it needs while the server runs (``/mcp``'s endpoint)."""

    @property
    def app(self) -> ASGIApp: ...

    @property
    def running(self) -> Callable[[], AbstractAsyncContextManager[None]]: ...


class DeferredApp:
    """Serves what ``build`` returns, calling ``build`` (off the event loop) on the first request.

    ``name`` is what the error says could not start when ``build`` or its context fails; the
    failure is logged once and every request after it gets the same 503.
    """

    def __init__(self, build: Callable[[], Runnable], *, name: str) -> None:
        self._build = build
        self._name = name
        self._app: ASGIApp | None = None
        self._failure: str | None = None
        self._wanted: anyio.Event | None = None
        self._ready: anyio.Event | None = None

    @property
    def is_built(self) -> bool:
        """Whether a request has made the app (a server nobody asked never builds it)."""
        return self._app is not None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The server's lifespan: waits for a first request, then builds and runs the app."""
        wanted, self._ready = anyio.Event(), anyio.Event()
        self._wanted = wanted
        stopping = anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._run_when_wanted, stopping)
            try:
                yield
            finally:
                stopping.set()
                wanted.set()

    async def _run_when_wanted(self, stopping: anyio.Event) -> None:
        assert self._wanted is not None and self._ready is not None
        await self._wanted.wait()
        if stopping.is_set():
            return
        try:
            built = await anyio.to_thread.run_sync(self._build)
            async with built.running():
                self._app = built.app
                self._ready.set()
                await stopping.wait()
        except Exception as err:
            logger.exception("%s could not start.", self._name)
            self._failure = f"{type(err).__name__}: {err}"
        finally:
            self._app = None
            self._ready.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._wanted is None or self._ready is None:
            raise RuntimeError(f"{self._name} is served only while the server's lifespan runs.")
        self._wanted.set()
        await self._ready.wait()
        app = self._app
        if app is None:
            reason = self._failure or "the server is stopping"
            response = error_response(
                503,
                "ServiceUnavailable",
                f"{self._name} could not start ({reason}). The server's log says more; "
                "restart the server once it is mended.",
            )
            await response(scope, receive, send)
            return
        await app(scope, receive, send)
