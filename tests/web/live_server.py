"""A real uvicorn server in the test's own event loop, for tests that need real sockets
(WebSockets): the services and the server share one loop, as in ``quire serve``."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Iterator

import anyio
import uvicorn
from starlette.types import ASGIApp


class _TestServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, started: anyio.Event) -> None:
        super().__init__(config)
        self._started = started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self._started.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # The test process's signal handlers stay pytest's.
        yield


@contextlib.asynccontextmanager
async def live_server(app: ASGIApp) -> AsyncIterator[int]:
    """Serve ``app`` on 127.0.0.1 on a free port; yields the port, stops the server after."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    port: int = listener.getsockname()[1]
    started = anyio.Event()
    config = uvicorn.Config(app, lifespan="off", log_config=None, timeout_graceful_shutdown=2)
    server = _TestServer(config, started)
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve, [listener])
        with anyio.fail_after(10):
            await started.wait()
        try:
            yield port
        finally:
            server.should_exit = True
