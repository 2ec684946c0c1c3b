"""The stdio transport's pipes as the event loop reads and writes them (real ``os.pipe``s):
lines split wherever the bytes break, an over-long line answered by its head with the rest
skipped, the end of the pipe, a slow reader, and a client that has gone."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import IO

import anyio
import pytest

from quire.mcp.stdio_pipes import OverLong, PipeLines, PipeWriter, is_pipe

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def pipe() -> Iterator[tuple[IO[bytes], int]]:
    """A pipe's read end as the transport holds it, and its write end's descriptor."""
    read, write = os.pipe()
    stream = os.fdopen(read, "rb", closefd=False)
    try:
        yield stream, write
    finally:
        for fd in (read, write):
            with suppress(OSError):
                os.close(fd)


@asynccontextmanager
async def lines_of(limit: int = 100) -> AsyncIterator[tuple[PipeLines, int]]:
    with pipe() as (stream, write):
        lines = await PipeLines.open(stream, limit)
        try:
            yield lines, write
        finally:
            lines.close()


async def read_all(lines: PipeLines) -> list[bytes | OverLong]:
    found: list[bytes | OverLong] = []
    with anyio.fail_after(10):
        while (line := await lines.next()) is not None:
            found.append(line)
    return found


async def test_lines_are_split_wherever_the_bytes_break() -> None:
    async with lines_of() as (lines, write):
        for chunk in (b'{"a"', b": 1}\n{", b'"b": 2}\n\n{"c": 3}\n', b'{"last": true}'):
            os.write(write, chunk)
            await anyio.sleep(0.01)
        os.close(write)
        assert await read_all(lines) == [
            b'{"a": 1}\n',
            b'{"b": 2}\n',
            b"\n",
            b'{"c": 3}\n',
            b'{"last": true}',
        ]
        assert await lines.next() is None, "the end stays the end"


async def test_an_over_long_line_is_its_head_and_the_next_line_is_whole() -> None:
    async with lines_of(limit=100) as (lines, write):
        os.write(write, b'{"id": 7, "x": "' + b"a" * 150)
        await anyio.sleep(0.01)
        os.write(write, b"a" * 300 + b'"}\n{"id": 8}\n')
        os.write(write, b"b" * 100 + b"\n")  # 101 bytes with its newline: over the limit
        os.write(write, b"c" * 99 + b"\n")  # 100: at the limit
        os.close(write)
        found = await read_all(lines)
    assert found == [
        OverLong(b'{"id": 7, "x": "' + b"a" * 150),  # what had come when it went past
        b'{"id": 8}\n',
        OverLong(b"b" * 100 + b"\n"),
        b"c" * 99 + b"\n",
    ]


async def test_many_lines_ahead_of_the_reader_all_come_in_order() -> None:
    async with lines_of() as (lines, write):
        sent = [f"{number}\n".encode() for number in range(2000)]

        def feed() -> None:
            for line in sent:
                os.write(write, line)
            os.close(write)

        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, feed)
            await anyio.sleep(0.2)  # the reader is behind: reading pauses, nothing is lost
            found = await read_all(lines)
    assert found == sent


async def test_the_writer_sends_everything_before_it_closes() -> None:
    read, write = os.pipe()
    stream = os.fdopen(write, "wb", closefd=False)
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(read, 1 << 16):
            received.extend(chunk)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, drain)
            writer = await PipeWriter.open(stream)
            payload = b"x" * (1 << 20) + b"\n"  # more than the pipe holds: the writer waits
            for _ in range(3):
                await writer.write(payload)
            await writer.aclose()
            os.close(write)
    finally:
        os.close(read)
    assert bytes(received) == payload * 3


async def test_a_write_after_the_client_left_is_a_broken_pipe() -> None:
    read, write = os.pipe()
    stream = os.fdopen(write, "wb", closefd=False)
    try:
        writer = await PipeWriter.open(stream)
        os.close(read)
        with anyio.fail_after(10), pytest.raises(BrokenPipeError):
            for _ in range(100):
                await writer.write(b"answer\n")
                await anyio.sleep(0.01)
        await writer.aclose()
    finally:
        os.close(write)


def test_only_pipes_and_sockets_are_read_by_the_loop(tmp_path: Path) -> None:
    with pipe() as (stream, _):
        assert is_pipe(stream)
    with (tmp_path / "file").open("wb") as file:
        assert not is_pipe(file)
    main, other = os.openpty()
    try:
        with os.fdopen(other, "rb", closefd=False) as terminal:
            assert not is_pipe(terminal)
    finally:
        os.close(main)
        os.close(other)
