"""The stdio transport's two ends as the event loop's own pipes: lines read and answers
written without a thread hop per message.

A blocking read or write handed to a worker thread costs each message a wake-up of that thread
and one of the loop (about 0.1 ms apiece); on a pipe or a socket the loop reads and writes
itself. ``stdio.py`` uses these when both ends are pipes or sockets (what an MCP client
gives) and its blocking reads otherwise (a file, a terminal: a terminal set non-blocking would
stay so for the shell after the process ends).
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections import deque
from dataclasses import dataclass
from typing import IO

_QUEUED_LINES = 64
"""Lines read ahead before reading pauses until the server takes some."""


@dataclass(frozen=True)
class OverLong:
    """A line longer than the limit: its first bytes (to find its id); the rest was skipped."""

    head: bytes


def is_pipe(stream: IO[bytes]) -> bool:
    """Whether ``stream`` is a pipe or a socket the event loop can read or write itself."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class PipeLines(asyncio.Protocol):
    """The lines of a pipe, split as the loop reads it: each with its newline (the last one
    may lack it), an ``OverLong`` for a line of more than ``limit`` bytes, then None at its
    end. Open with ``await PipeLines.open(stream, limit)``."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._skipping = False
        self._lines: deque[bytes | OverLong | None] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False

    @classmethod
    async def open(cls, stream: IO[bytes], limit: int) -> PipeLines:
        """Start reading ``stream`` (a pipe or socket: see ``is_pipe``)."""
        lines = cls(limit)
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: lines, stream)
        return lines

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            stop = len(data) if end < 0 else end + 1
            if self._skipping:
                self._skipping = end < 0
            else:
                self._buffer += memoryview(data)[start:stop]
                if len(self._buffer) > self._limit:
                    self._push(OverLong(bytes(self._buffer[:4096])))
                    self._buffer.clear()
                    self._skipping = end < 0
                elif end >= 0:
                    self._push(bytes(self._buffer))
                    self._buffer.clear()
            start = stop
        if len(self._lines) >= _QUEUED_LINES and self._transport is not None:
            self._transport.pause_reading()
            self._paused = True

    def eof_received(self) -> bool | None:
        self._end()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    async def next(self) -> bytes | OverLong | None:
        """The next line, or None once the pipe has ended."""
        while not self._lines:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        line = self._lines.popleft()
        if line is None:
            self._lines.append(None)  # the end stays the end
        elif self._paused and len(self._lines) < _QUEUED_LINES // 2 and self._transport:
            self._paused = False
            self._transport.resume_reading()
        return line

    def close(self) -> None:
        """Stop reading (the stream's file descriptor stays open)."""
        if self._transport is not None:
            self._transport.close()

    def _end(self) -> None:
        if self._lines and self._lines[-1] is None:
            return
        if self._buffer and not self._skipping:
            self._push(bytes(self._buffer))
        self._buffer.clear()
        self._push(None)

    def _push(self, line: bytes | OverLong | None) -> None:
        self._lines.append(line)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


class PipeWriter(asyncio.Protocol):
    """Writes to a pipe, waiting only while the reader is behind. Open with
    ``await PipeWriter.open(stream)``; ``aclose`` sends what is still buffered first."""

    def __init__(self) -> None:
        self._transport: asyncio.WriteTransport | None = None
        self._writable = asyncio.Event()
        self._writable.set()
        self._lost = asyncio.Event()

    @classmethod
    async def open(cls, stream: IO[bytes]) -> PipeWriter:
        """Start writing to ``stream`` (a pipe or socket: see ``is_pipe``)."""
        writer = cls()
        await asyncio.get_running_loop().connect_write_pipe(lambda: writer, stream)
        return writer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self._transport = transport

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost.set()
        self._writable.set()

    async def write(self, payload: bytes) -> None:
        """Write ``payload``; BrokenPipeError once the reader has gone."""
        if self._lost.is_set() or self._transport is None:
            raise BrokenPipeError("the MCP client closed its end of stdout")
        self._transport.write(payload)
        await self._writable.wait()
        if self._lost.is_set():
            raise BrokenPipeError("the MCP client closed its end of stdout")

    async def aclose(self) -> None:
        """Send what is buffered, then stop writing (the file descriptor stays open)."""
        if self._transport is None:
            return
        self._transport.close()
        await self._lost.wait()
