"""How the API client's requests travel: HTTP/1.1 over kept-alive sockets for ``http://``
servers, or an httpx client for anything else (the app in process, HTTPS, test transports).

Owns connections and framing only: it answers a status and the answer's bytes, or raises
WireTimeout, WireBroken or AnswerTooLarge. Tokens, paths and messages are ``api.py``'s.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import select
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urlsplit

import anyio
import httptools
import httpx
from anyio.abc import SocketAttribute, SocketStream

from quire.core.errors import InvalidArgument

Headers = Sequence[tuple[str, str]]

MAX_IDLE = 8
"""Connections kept open for reuse per server; one finishing beyond that is closed."""

MAX_IDLE_SECONDS = 4.0
"""How long an unused connection is kept: less than the 5 s after which uvicorn closes one,
so a request is almost never sent on a connection the server is closing."""

_RECEIVE_BYTES = 256 * 1024
_MAX_HEAD_BYTES = 64 * 1024


class WireError(Exception):
    """A request that got no complete answer."""


class WireTimeout(WireError):
    """No complete answer came within the request's time."""


class WireBroken(WireError):
    """The connection failed: refused, reset, closed early, or the peer spoke no HTTP/1.1.
    ``kind`` names how (ConnectError, ReadError, RemoteProtocolError, …) for messages."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class AnswerTooLarge(WireError):
    """The answer was longer than the request allowed."""


class Wire(Protocol):
    """Sends one request and returns the answer's status and bytes."""

    async def send(
        self,
        method: str,
        url: str,
        headers: Headers,
        body: bytes | None,
        *,
        seconds: float,
        limit: int,
    ) -> tuple[int, bytes]:
        """Send ``method url`` with ``headers`` and ``body``, taking at most ``seconds`` in all
        and ``limit`` bytes of answer."""
        ...

    async def aclose(self) -> None:
        """Close every connection."""
        ...


class HttpxWire:
    """Requests through an httpx client (and whatever transport it was given)."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def send(
        self,
        method: str,
        url: str,
        headers: Headers,
        body: bytes | None,
        *,
        seconds: float,
        limit: int,
    ) -> tuple[int, bytes]:
        """See ``Wire.send``."""
        request = self._client.build_request(
            method, url, content=body, headers=list(headers), timeout=seconds
        )
        try:
            response = await self._client.send(request, stream=True)
            try:
                chunks: list[bytes] = []
                total = 0
                async for chunk in response.aiter_bytes():
                    total += len(chunk)
                    if total > limit:
                        raise AnswerTooLarge(f"more than {limit} bytes")
                    chunks.append(chunk)
                return response.status_code, b"".join(chunks)
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            raise WireTimeout(f"{method} {url}") from None
        except httpx.TransportError as exc:
            raise WireBroken(type(exc).__name__) from None

    async def aclose(self) -> None:
        """See ``Wire.aclose``."""
        await self._client.aclose()


@dataclass(eq=False)
class _Connection:
    stream: SocketStream
    idle_since: float = 0.0


class _Stale(Exception):
    """The server closed the connection before answering anything: the request was not read."""


class SocketWire:
    """HTTP/1.1 over plain TCP, each connection kept open for the next request.

    A request takes an idle connection (one the server closed, or one unused for longer than
    ``MAX_IDLE_SECONDS``, is dropped first) or opens a new one, so concurrent requests each get
    their own. A reused connection that ends before any byte of the answer came was closed by
    the server while it sat idle, before it read the request (a live server answers, or says
    it closes): the request is sent once more on a new connection. Use from one event loop.
    """

    def __init__(
        self, *, max_idle: int = MAX_IDLE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._max_idle = max_idle
        self._clock = clock
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self._closed = False

    @staticmethod
    def serves(url: str) -> bool:
        """Whether this wire can carry requests to ``url`` (plain ``http://`` with a host)."""
        parts = urlsplit(url)
        return parts.scheme == "http" and bool(parts.hostname)

    async def send(
        self,
        method: str,
        url: str,
        headers: Headers,
        body: bytes | None,
        *,
        seconds: float,
        limit: int,
    ) -> tuple[int, bytes]:
        """See ``Wire.send``."""
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise WireBroken("UnsupportedProtocol")
        try:
            port = parts.port or 80
        except ValueError:
            raise WireBroken("InvalidURL") from None
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [("Host", parts.netloc.rpartition("@")[2]), *headers]
        if body is not None:
            head.append(("Content-Length", str(len(body))))
        request = _Request(method, target, head, body, limit)
        with anyio.move_on_after(seconds):
            return await self._send((parts.hostname, port), request)
        raise WireTimeout(f"{method} {url}")

    async def aclose(self) -> None:
        """See ``Wire.aclose``; a request under way fails, and nothing is kept afterwards."""
        self._closed = True
        connections = [c for idle in self._idle.values() for c in idle] + list(self._busy)
        self._idle.clear()
        self._busy.clear()
        for connection in connections:
            await _close(connection)

    async def _send(self, address: tuple[str, int], request: _Request) -> tuple[int, bytes]:
        reuse = True
        while True:
            connection, reused = await self._acquire(address, reuse=reuse)
            try:
                status, payload, reusable = await _exchange(connection, request)
            except _Stale:
                await self._discard(connection)
                if not reused:
                    raise WireBroken("RemoteProtocolError") from None
                reuse = False
                continue
            except BaseException:
                await self._discard(connection)
                raise
            if reusable:
                await self._release(address, connection)
            else:
                await self._discard(connection)
            return status, payload

    async def _acquire(self, address: tuple[str, int], *, reuse: bool) -> tuple[_Connection, bool]:
        if self._closed:
            raise WireBroken("ClientClosed")
        idle = self._idle.get(address, [])
        while reuse and idle:
            connection = idle.pop()
            fresh = self._clock() - connection.idle_since <= MAX_IDLE_SECONDS
            if fresh and _is_quiet(connection.stream):
                self._busy.add(connection)
                return connection, True
            await _close(connection)
        try:
            stream = await anyio.connect_tcp(*address)
        except OSError:
            raise WireBroken("ConnectError") from None
        connection = _Connection(stream)
        self._busy.add(connection)
        return connection, False

    async def _release(self, address: tuple[str, int], connection: _Connection) -> None:
        self._busy.discard(connection)
        idle = self._idle.setdefault(address, [])
        if self._closed or len(idle) >= self._max_idle:
            await _close(connection)
        else:
            connection.idle_since = self._clock()
            idle.append(connection)

    async def _discard(self, connection: _Connection) -> None:
        self._busy.discard(connection)
        await _close(connection)


@dataclass(frozen=True)
class _Request:
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes | None
    limit: int


async def _exchange(connection: _Connection, request: _Request) -> tuple[int, bytes, bool]:
    """Send ``request`` and read its answer: the status, the body, and whether the connection
    may carry another request."""
    data = _request_bytes(request)
    try:
        await connection.stream.send(data)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        raise _Stale from None
    answer = _Answer(request.limit)
    heard = False
    while not answer.complete:
        chunk = await _read(connection.stream)
        if not chunk:
            if not heard:
                raise _Stale
            answer.end()
            break
        heard = True
        answer.feed(chunk)
    return answer.status, b"".join(answer.chunks), answer.reusable


def _request_bytes(request: _Request) -> bytes:
    """The request's head and body as HTTP/1.1 puts them on the wire (a name or value that
    could end a line or the head early is refused)."""
    lines = [f"{request.method} {request.target} HTTP/1.1"]
    for name, value in request.headers:
        if not _TOKEN.fullmatch(name) or not _FIELD_VALUE.fullmatch(value):
            raise WireBroken("LocalProtocolError")
        lines.append(f"{name}: {value}")
    if not _TOKEN.fullmatch(request.method) or not _TARGET.fullmatch(request.target):
        raise WireBroken("LocalProtocolError")
    try:
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    except UnicodeEncodeError:
        raise WireBroken("LocalProtocolError") from None
    return head + request.body if request.body else head


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""A method or header name (RFC 9110's token)."""
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")
"""A header value: no control character, so no line break."""
_TARGET = re.compile(r"[\x21-\x7e]+")
"""A request target: visible ASCII, no space."""


class _Answer:
    """One answer as httptools' parser (llhttp, in C) reads it: interim (1xx) answers skipped,
    a length, chunks, or the connection's end delimiting the body."""

    def __init__(self, limit: int) -> None:
        self.status = 0
        self.chunks: list[bytes] = []
        self.complete = False
        self._limit = limit
        self._size = 0
        self._head_size = 0
        self._head_done = False
        self._delimited = False
        self._until_close = False
        self._interim = False
        self._keep_alive = False
        self._parser = httptools.HttpResponseParser(self)

    @property
    def reusable(self) -> bool:
        """Whether the connection may carry another request after this answer."""
        return self.complete and not self._until_close and self._keep_alive

    def feed(self, data: bytes) -> None:
        """Read ``data``: WireBroken when it is no HTTP/1.1 answer, AnswerTooLarge past the
        limit."""
        if not self._head_done:
            self._head_size += len(data)
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserCallbackError as err:
            if isinstance(err.__context__, AnswerTooLarge):
                raise err.__context__ from None
            raise WireBroken("RemoteProtocolError") from None
        except (httptools.HttpParserError, httptools.HttpParserUpgrade):
            raise WireBroken("RemoteProtocolError") from None
        if not self._head_done and self._head_size > _MAX_HEAD_BYTES:
            raise WireBroken("RemoteProtocolError")

    def end(self) -> None:
        """The connection ended: the end of a body it delimits, else an answer cut short."""
        if not (self._head_done and self._until_close):
            raise WireBroken("RemoteProtocolError")
        self.complete = True

    # httptools' callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() in (b"content-length", b"transfer-encoding"):
            self._delimited = True

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        self._interim = 100 <= status < 200
        if self._interim:
            self._delimited = False
            return
        self.status = status
        self._keep_alive = self._parser.should_keep_alive()
        self._head_done = True
        self._until_close = not self._delimited and status not in (204, 304)

    def on_body(self, body: bytes) -> None:
        self._size += len(body)
        if self._size > self._limit:
            raise AnswerTooLarge(f"more than {self._limit} bytes")
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        if self._interim:
            self._head_size = 0
            return
        self.complete = True


async def _read(stream: SocketStream) -> bytes:
    """The next bytes from ``stream``; empty at its end (a reset counts as the end)."""
    try:
        return await stream.receive(_RECEIVE_BYTES)
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        return b""


def _is_quiet(stream: SocketStream) -> bool:
    """Whether an idle connection has nothing to read: a closed one reads as its end.

    An idle stream does not read from its socket, so the socket itself tells.
    """
    sock = stream.extra(SocketAttribute.raw_socket)
    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return not poller.poll(0)
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


async def _close(connection: _Connection) -> None:
    with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
        await connection.stream.aclose()


def query_string(params: Mapping[str, Any] | None) -> str:
    """``params`` as a query string (``?a=1&b=true``; empty without any), each value written as
    httpx writes it: booleans as true/false, None as nothing."""
    if not params:
        return ""
    pairs = [(name, _query_value(value)) for name, value in params.items()]
    for name, value in pairs:
        _require_text(name, value)
    return "?" + urlencode(pairs, quote_via=quote)


def _require_text(name: str, value: str) -> None:
    # A URL carries UTF-8; a name holding bytes that are not UTF-8 (read from argv as lone
    # surrogates) has no spelling in one, and the server would read a different name.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidArgument(
            f"`{name}` holds bytes that are not UTF-8 text (character {err.start + 1}), so it "
            "cannot be sent to the server. Quire names files in UTF-8: rename the file, or pass "
            "the value as valid text.",
            argument=name,
        ) from None


def _query_value(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return "" if value is None else str(value)


def skip_missing_sniffio() -> None:
    """Make ``import sniffio`` fail at once when it is not installed, as it would anyway.

    httpcore (on each request) and httpx's ASGI transport (on each event) try that import; a
    failed import is not remembered, so each one searches sys.path again (about 0.3 ms, several
    times per request). Recording the absence keeps every outcome and drops the search.
    """
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]
