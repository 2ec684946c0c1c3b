"""MCP over stdio: Quire's own line transport around the SDK's server.

Reads stdin one line at a time (at most MAX_LINE_BYTES), hands each to mcp/incoming.py, and
answers a line that is no message itself, under the request's id whenever it can be read.
Pipes (what an MCP client gives) are read and written by the event loop itself
(``stdio_pipes``); anything else with blocking calls in a worker thread.
While serving, fd 0 reads the null device and fd 1 writes to stderr (as the SDK's transport
does), so a tool or child process cannot read the protocol or corrupt it; stdout carries only
protocol messages, one JSON object per line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import partial
from typing import IO, Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server import Server
from mcp.shared.message import SessionMessage
from pydantic_core import PydanticSerializationError

from quire.mcp.incoming import MAX_LINE_BYTES, read_line, too_long
from quire.mcp.stdio_pipes import OverLong, PipeLines, PipeWriter, is_pipe

logger = logging.getLogger(__name__)

_CHUNK = 1024 * 1024

_FLUSH_S = 5.0
"""How long the answers still buffered at the end may take to reach a client that reads them."""


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until stdin closes."""
    with (
        _claimed(0, sys.stdin, "rb", lambda: os.open(os.devnull, os.O_RDONLY)) as stdin,
        _claimed(1, sys.stdout, "wb", lambda: os.dup(2)) as stdout,
    ):
        await serve_streams(server, stdin, stdout)


async def serve_streams(server: Server[Any], stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Serve ``server`` over two binary streams (the claimed stdin and stdout)."""
    if is_pipe(stdin) and is_pipe(stdout):
        await _serve_pipes(server, stdin, stdout)
        return
    await _serve(server, _blocking_lines(stdin), partial(_blocking_write, stdout))


async def _serve_pipes(server: Server[Any], stdin: IO[bytes], stdout: IO[bytes]) -> None:
    lines = await PipeLines.open(stdin, MAX_LINE_BYTES)
    writer = await PipeWriter.open(stdout)
    try:
        await _serve(server, _pipe_lines(lines), writer.write)
    finally:
        lines.close()
        with anyio.move_on_after(_FLUSH_S, shield=True):
            await writer.aclose()
        for stream in (stdin, stdout):  # the descriptions are the client's pipes
            with contextlib.suppress(OSError, ValueError):
                os.set_blocking(stream.fileno(), True)


async def _serve(
    server: Server[Any],
    lines: AsyncIterator[bytes | OverLong],
    write: Callable[[bytes], Awaitable[None]],
) -> None:
    incoming, received = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, to_send = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        async with incoming:
            async for line in lines:
                if isinstance(line, OverLong):
                    logger.warning("a message on stdin was over the size limit")
                    await outgoing.send(SessionMessage(too_long(line.head)))
                    continue
                message = read_line(line)
                if isinstance(message, types.JSONRPCError):
                    logger.warning("refused a message on stdin: %s", message.error.message[:200])
                    await outgoing.send(SessionMessage(message))
                elif message is not None:
                    await incoming.send(SessionMessage(message))

    async with anyio.create_task_group() as group:
        group.start_soon(_writer, to_send, write)
        group.start_soon(reader)
        await server.run(received, outgoing, server.create_initialization_options())
        group.cancel_scope.cancel()


async def _pipe_lines(lines: PipeLines) -> AsyncIterator[bytes | OverLong]:
    while (line := await lines.next()) is not None:
        yield line


async def _blocking_lines(stdin: IO[bytes]) -> AsyncIterator[bytes | OverLong]:
    """The lines of a stream that is no pipe (a file, a terminal), each read in a thread."""
    while True:
        line = await anyio.to_thread.run_sync(
            stdin.readline, MAX_LINE_BYTES + 1, abandon_on_cancel=True
        )
        if not line:
            return
        if len(line) > MAX_LINE_BYTES:
            if not line.endswith(b"\n"):
                await anyio.to_thread.run_sync(_skip_rest, stdin, abandon_on_cancel=True)
            yield OverLong(line[:4096])
            continue
        yield line


async def _writer(
    messages: MemoryObjectReceiveStream[SessionMessage], write: Callable[[bytes], Awaitable[None]]
) -> None:
    async with messages:
        async for item in messages:
            await write(_dump(item.message))


def _dump(message: types.JSONRPCMessage) -> bytes:
    try:
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
    except PydanticSerializationError:
        # A lone surrogate (an id or a tool's echo of one) has no UTF-8 form; JSON's \ud800
        # escape still carries it.
        data = message.model_dump(by_alias=True, exclude_unset=True)
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), default=str)
    return text.encode("utf-8") + b"\n"


async def _blocking_write(stdout: IO[bytes], payload: bytes) -> None:
    await anyio.to_thread.run_sync(_write, stdout, payload)


def _write(stdout: IO[bytes], payload: bytes) -> None:
    stdout.write(payload)
    stdout.flush()


def _skip_rest(stdin: IO[bytes]) -> None:
    while True:
        chunk = stdin.readline(_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


@contextlib.contextmanager
def _claimed(
    fd: int, stream: IO[str], mode: str, diversion: Callable[[], int]
) -> Iterator[IO[bytes]]:
    """The protocol's end of ``fd`` as a private duplicate, with ``fd`` itself pointed at
    ``diversion`` until the block ends. A stream not backed by ``fd`` (a test's) is used as is.
    """
    try:
        backed = stream.fileno() == fd
    except (AttributeError, OSError, ValueError):
        backed = False
    if not backed:
        yield stream.buffer  # type: ignore[attr-defined]
        return
    private = os.dup(fd)
    os.set_inheritable(private, False)
    diverted = diversion()
    os.dup2(diverted, fd)
    os.close(diverted)
    try:
        # closefd=False: a reader thread may still block on it after the transport ends.
        yield os.fdopen(private, mode, closefd=False)
    finally:
        if mode == "wb":
            stream.flush()  # stray output buffered while serving goes to stderr, not the wire
        os.dup2(private, fd)
