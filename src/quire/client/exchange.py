"""One request and its whole answer over httpx: kept-alive connections, one deadline for all
of it, a cap on the answer's size, and one resend when a kept connection turned out stale.

Owns the exchange only: it answers a status and the answer's bytes, or raises NoAnswerInTime,
ConnectionBroken or AnswerTooLarge. Tokens, paths and messages are ``api.py``'s.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx

KEEP_ALIVE = httpx.Limits(max_connections=None, max_keepalive_connections=8, keepalive_expiry=4.0)
"""Connections kept open for reuse per client, each for at most 4 s unused: less than the 5 s
after which uvicorn closes one, so a request is almost never sent on one it is closing."""

_CONNECT_EVENT = "connection.connect_tcp.started"


def http_client(
    transport: httpx.AsyncBaseTransport | None = None, *, timeout: float
) -> httpx.AsyncClient:
    """The httpx client one server's API sends through: ``transport`` when given (the app in
    process, a test's mock), else connections kept alive as ``KEEP_ALIVE`` says. It ignores
    proxy settings in the environment: the server is named by server.json or ``--server``."""
    return httpx.AsyncClient(
        transport=transport, timeout=timeout, limits=KEEP_ALIVE, trust_env=False
    )


class ExchangeError(Exception):
    """A request that got no complete answer."""


class NoAnswerInTime(ExchangeError):
    """No complete answer came within the request's time."""


class ConnectionBroken(ExchangeError):
    """The connection failed: refused, reset, closed early, or the peer spoke no HTTP/1.1.
    ``kind`` names how (ConnectError, ReadError, RemoteProtocolError, …) for messages."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class AnswerTooLarge(ExchangeError):
    """The answer was longer than the request allowed."""


class _Stale(Exception):
    """A reused connection failed before any answer came: the server had closed it unread."""


async def exchange(
    http: httpx.AsyncClient, request: httpx.Request, *, seconds: float, limit: int
) -> tuple[int, bytes]:
    """Send ``request`` and read its answer, taking at most ``seconds`` in all and ``limit``
    bytes of answer.

    A connection kept from an earlier request that fails before any byte of the answer came
    was closed by the server while it sat idle, before it read the request (a live server
    answers, or says it closes): the request is sent once more, and a new connection fails
    for good. A request cancelled or out of time leaves its connection closed, not reused.
    """
    if http.is_closed:
        raise ConnectionBroken("ClientClosed")
    with anyio.move_on_after(seconds):
        try:
            return await _attempt(http, request, limit)
        except _Stale:
            try:
                return await _attempt(http, request, limit)
            except _Stale:
                raise ConnectionBroken("RemoteProtocolError") from None
    raise NoAnswerInTime(f"{request.method} {request.url}")


async def _attempt(
    http: httpx.AsyncClient, request: httpx.Request, limit: int
) -> tuple[int, bytes]:
    events: set[str] = set()

    async def trace(event: str, info: dict[str, Any]) -> None:
        events.add(event)

    # httpcore reports what it does with the request: a kept connection carried it when the
    # request went out (an HTTP/1.1 event) on no connection opened for it. Other transports
    # (the app in process, a test's mock) report nothing and are never resent to.
    request.extensions["trace"] = trace
    try:
        response = await http.send(request, stream=True)
    except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
        if _was_kept(events) and _before_any_answer(exc):
            raise _Stale from None
        raise ConnectionBroken(type(exc).__name__) from None
    except httpx.TimeoutException:
        raise NoAnswerInTime(f"{request.method} {request.url}") from None
    except httpx.TransportError as exc:
        raise ConnectionBroken(type(exc).__name__) from None
    try:
        return response.status_code, await _body(response, limit)
    except httpx.TimeoutException:
        raise NoAnswerInTime(f"{request.method} {request.url}") from None
    except httpx.TransportError as exc:
        raise ConnectionBroken(type(exc).__name__) from None
    finally:
        await response.aclose()


def _was_kept(events: set[str]) -> bool:
    return _CONNECT_EVENT not in events and any(event.startswith("http11.") for event in events)


def _before_any_answer(exc: httpx.TransportError) -> bool:
    """Whether ``exc`` (raised before the answer's head was read) means nothing came at all:
    a reset or a failed write, or an end of stream before the first byte."""
    if isinstance(exc, httpx.RemoteProtocolError):
        return "without sending a response" in str(exc)
    return True


async def _body(response: httpx.Response, limit: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > limit:
            raise AnswerTooLarge(f"more than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
