"""The request body limit: more than 16 MiB is refused with 413 before it is read whole.

A declared Content-Length over the limit is refused before any of the body is read; a body
without one (chunked) is counted as it arrives and refused the moment it passes the limit.
"""

from __future__ import annotations

import logging

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quire.core.errors import FileTooLarge
from quire.core.limits import MAX_DOCUMENT_BYTES, size_words
from quire.web.errors import quire_error_body

logger = logging.getLogger(__name__)


class RequestTooLarge(FileTooLarge):
    """A request body passed the limit; raised from ``receive`` to stop the handler reading."""


def too_large(limit: int, size: int | None = None) -> RequestTooLarge:
    """The error for a body over ``limit`` (its size when declared)."""
    size_part = f"{size_words(size)}, " if size is not None else ""
    return RequestTooLarge(
        f"The request body is {size_part}more than the {size_words(limit)} a request may "
        "carry, so it was refused before being read whole. Send less: split the document or "
        "edit it in parts."
    )


class BodyLimitMiddleware:
    """Refuses HTTP request bodies over ``limit`` bytes with a 413 JSON answer."""

    def __init__(self, app: ASGIApp, *, limit: int = MAX_DOCUMENT_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(Headers(scope=scope))
        if declared is not None and declared > self.limit:
            await _refuse(too_large(self.limit, declared), scope, receive, send)
            return
        counter = _Counter(receive, send, self.limit)
        try:
            await self.app(scope, counter.receive, counter.send)
        except RequestTooLarge as error:
            if counter.started:
                logger.warning("A request body went over the limit after the answer began.")
                return
            await _refuse(error, scope, receive, send)


class _Counter:
    """Counts body bytes as the handler reads them; remembers whether an answer began."""

    def __init__(self, receive: Receive, send: Send, limit: int) -> None:
        self._receive = receive
        self._send = send
        self._limit = limit
        self._seen = 0
        self.started = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self._seen += len(message.get("body", b""))
            if self._seen > self._limit:
                raise too_large(self._limit)
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


def _content_length(headers: Headers) -> int | None:
    value = headers.get("content-length")
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())


async def _refuse(error: RequestTooLarge, scope: Scope, receive: Receive, send: Send) -> None:
    response = JSONResponse(quire_error_body(error), status_code=413)
    # The rest of the body is never read: the connection cannot be reused for another request.
    response.headers["Connection"] = "close"
    await response(scope, receive, send)
