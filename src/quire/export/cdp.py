"""A small client of the Chrome DevTools protocol over ``--remote-debugging-pipe``.

Owns the wire (NUL-terminated JSON messages on the browser's fd 3 and 4), matching answers to
calls, and handing each session's events to its listener. Knows nothing of pages or exports;
no port is opened, so no other program on the machine can drive the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from quire.core.errors import ExportFailed

Message = dict[str, Any]
Listener = Callable[[str, Message], None]
"""Called with an event's method and params, on the event loop; it must not block."""

MAX_MESSAGE = 512 * 1024 * 1024
"""The longest message read (a printed PDF comes back whole, base64-encoded)."""


class Connection:
    """One pipe to one browser process: ``call`` a method, ``listen`` to a session's events."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.WriteTransport) -> None:
        self._reader = reader
        self._writer = writer
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._listeners: dict[str, Listener] = {}
        self._closed: str | None = None
        self._task = asyncio.get_running_loop().create_task(self._read_all())

    @property
    def is_closed(self) -> bool:
        """Whether the pipe has ended (the browser exited, or ``close`` was called)."""
        return self._closed is not None

    async def call(
        self, method: str, params: Message | None = None, *, session: str | None = None
    ) -> Message:
        """Send ``method`` and return its result; ExportFailed with the browser's message."""
        if self._closed is not None:
            raise ExportFailed(self._closed)
        self._next_id += 1
        message: Message = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        self._writer.write(json.dumps(message).encode("utf-8") + b"\0")
        answer = await future
        if "error" in answer:
            error = answer["error"]
            raise ExportFailed(f"The browser refused {method}: {error.get('message', error)}.")
        result: Message = answer.get("result", {})
        return result

    def send(self, method: str, params: Message, *, session: str) -> None:
        """Send ``method`` without waiting for its answer (from a listener, which cannot wait);
        a failure is dropped, as the page it was for is being torn down."""
        task = asyncio.get_running_loop().create_task(self.call(method, params, session=session))
        task.add_done_callback(_ignore_failure)

    def listen(self, session: str, listener: Listener) -> None:
        """Hand every event of ``session`` to ``listener`` until ``forget``."""
        self._listeners[session] = listener

    def forget(self, session: str) -> None:
        """Stop handing ``session``'s events on."""
        self._listeners.pop(session, None)

    async def close(self) -> None:
        """Stop reading and fail every call still waiting."""
        self._end("The browser was closed while an export was running; try again.")
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._writer.close()

    async def _read_all(self) -> None:
        try:
            while True:
                data = await self._reader.readuntil(b"\0")
                self._dispatch(json.loads(data[:-1]))
        except (asyncio.IncompleteReadError, ConnectionError):
            self._end("The browser exited during the export; try again.")
        except asyncio.LimitOverrunError:
            self._end("The browser sent a message too large to read; export a smaller file.")

    def _dispatch(self, message: Message) -> None:
        if "id" in message:
            future = self._pending.pop(message["id"], None)
            if future is not None and not future.done():
                future.set_result(message)
            return
        listener = self._listeners.get(message.get("sessionId", ""))
        if listener is not None:
            listener(message.get("method", ""), message.get("params", {}))

    def _end(self, reason: str) -> None:
        if self._closed is None:
            self._closed = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ExportFailed(reason))
        self._pending.clear()


def _ignore_failure(task: asyncio.Task[Message]) -> None:
    if not task.cancelled():
        task.exception()
