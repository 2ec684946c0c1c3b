"""Errors as HTTP answers: QuireError → its status and a JSON body the agent can act on.

Any other exception is a bug: logged with its traceback, answered 500 without internals.
Never raises; route handlers raise QuireErrors and leave the mapping to this module.
"""

from __future__ import annotations

import logging
from typing import Final

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket

from quire.api.errors import ErrorBody, ErrorDetail
from quire.core import errors

logger = logging.getLogger(__name__)

STATUS: Final[dict[type[errors.QuireError], int]] = {
    errors.QuireError: 400,
    errors.InvalidArgument: 400,
    errors.PathRefused: 400,
    errors.NameTaken: 409,
    errors.FileMissing: 404,
    errors.FileTooLarge: 413,
    errors.NotUtf8: 400,
    errors.EditRefused: 409,
    errors.DocumentInvalid: 400,
    errors.StorageFailed: 500,
    errors.StorageFull: 507,
    errors.DatabaseUnavailable: 503,
    errors.NotOpen: 409,
    errors.ReviewNotFound: 404,
    errors.ReviewRefused: 409,
    errors.ApprovalNotFound: 404,
    errors.ApprovalRefused: 409,
    errors.BrowserLoginNeeded: 403,
    errors.AccessDenied: 403,
    errors.AccountNotFound: 404,
    errors.SignInRefused: 401,
    errors.SignInLocked: 429,
    errors.AgentNotDetected: 409,
    errors.EngineMissing: 503,
    errors.ExportFailed: 500,
    errors.ServerAlreadyRunning: 409,
    # Raised by a client of a Quire server; one that reached a handler means this server
    # asked another that failed, so it answers as a gateway would.
    errors.ServerUnreachable: 502,
    errors.TokenRefused: 502,
    errors.ServerFailed: 502,
    errors.ServerInterrupted: 502,
    errors.NoSuchEndpoint: 502,
}
"""The HTTP status of each QuireError class; a subclass takes its nearest listed ancestor's."""

WEBSOCKET_ERROR_CODE = 4400
"""Close code of a WebSocket ended by a QuireError; the reason carries the message."""

INTERNAL_MESSAGE = (
    "Quire hit an unexpected error and could not finish this request; nothing more is known "
    "here. The details are in the server's log (the terminal running `quire serve`). Try again, "
    "and report the problem if it keeps happening."
)

_HTTP_NAMES = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    413: "FileTooLarge",
}


def error_body(
    kind: str, message: str, *, argument: str | None = None, match_count: int | None = None
) -> dict[str, object]:
    """The JSON error body: ``{"error": {"type", "message", …}}`` (unset details left out)."""
    detail = ErrorDetail(type=kind, message=message, argument=argument, match_count=match_count)
    return ErrorBody(error=detail).dump()


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    """A JSON error answer with ``status``."""
    return JSONResponse(error_body(kind, message), status_code=status)


def status_of(error: errors.QuireError) -> int:
    """The HTTP status for ``error``."""
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 400


def error_type(error: errors.QuireError) -> str:
    """The name clients see: the error's nearest class in the one exception tree.

    A private refinement (the body limit's RequestTooLarge, the chat tail's NotAChat) shows
    as its public parent.
    """
    for cls in type(error).__mro__:
        if cls.__module__ == errors.__name__:
            return cls.__name__
    return errors.QuireError.__name__


def quire_error_body(error: errors.QuireError) -> dict[str, object]:
    """The JSON body for ``error``: its class name, message, argument and match count."""
    return error_body(
        error_type(error),
        error.message,
        argument=getattr(error, "argument", None),
        match_count=getattr(error, "match_count", None),
    )


async def quire_error_handler(connection: HTTPConnection, error: Exception) -> Response | None:
    """Starlette handler for QuireError, over HTTP and over a WebSocket."""
    assert isinstance(error, errors.QuireError)
    if isinstance(connection, WebSocket):
        await connection.close(WEBSOCKET_ERROR_CODE, close_reason(error.message))
        return None
    return JSONResponse(quire_error_body(error), status_code=status_of(error))


async def http_error_handler(request: Request, error: Exception) -> Response:
    """Starlette handler for its own HTTP errors (no such route, wrong method) as JSON."""
    assert isinstance(error, HTTPException)
    if error.status_code in (204, 304):
        return Response(status_code=error.status_code, headers=error.headers)
    if error.status_code == 404:
        message = (
            f"Nothing is served at {request.url.path}. The API is described at /api/openapi.json."
        )
    elif error.status_code == 405:
        message = (
            f"{request.url.path} does not take {request.method} requests. The API is described "
            "at /api/openapi.json."
        )
    else:
        message = error.detail
    kind = _HTTP_NAMES.get(error.status_code, "HTTPError")
    return JSONResponse(
        error_body(kind, message), status_code=error.status_code, headers=error.headers
    )


async def internal_error_handler(request: Request, error: Exception) -> Response:
    """Starlette handler for every other exception: log it whole, answer without internals."""
    logger.error("Unexpected error in %s %s", request.method, request.url.path, exc_info=error)
    return error_response(500, "InternalError", INTERNAL_MESSAGE)


def close_reason(message: str) -> str:
    """A WebSocket close reason may hold at most 123 bytes of UTF-8."""
    encoded = message.encode("utf-8")
    if len(encoded) <= 123:
        return message
    return encoded[:120].decode("utf-8", "ignore") + "…"
