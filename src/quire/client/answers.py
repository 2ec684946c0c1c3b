"""The server's answers read back: JSON bodies, and error bodies as the QuireError they carry.

Pure: takes a status and the bytes of an answer; sending requests is ``api.py``'s job.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pydantic_core

from quire.api.base import AnswerMismatch, AnswerT
from quire.core import errors
from quire.core.errors import NoSuchEndpoint, ServerFailed, ServerInterrupted

_WIRE_DETAILS: dict[str, tuple[str, type]] = {
    "argument": ("argument", str),
    "match_count": ("matchCount", int),
}
"""Each detail an error body may carry: its key in the body and the type it must have."""


def _error_classes() -> dict[str, type[errors.QuireError]]:
    """The classes of the one exception tree by name (private refinements never reach the
    wire: the server names their parent)."""
    found: dict[str, type[errors.QuireError]] = {}
    pending: list[type[errors.QuireError]] = [errors.QuireError]
    while pending:
        cls = pending.pop()
        if cls.__module__ == errors.__name__:
            found.setdefault(cls.__name__, cls)
        pending.extend(cls.__subclasses__())
    return found


def _details(cls: type[errors.QuireError], error: dict[str, Any]) -> dict[str, Any]:
    """The details of ``cls`` that the error body carries with the right type."""
    found: dict[str, Any] = {}
    for name in cls.details:
        key, kind = _WIRE_DETAILS.get(name, (None, object))
        value = error.get(key) if key is not None else None
        if isinstance(value, kind) and not isinstance(value, bool):
            found[name] = value
    return found


def decode_answer(payload: bytes, url: str) -> Any:
    """The decoded JSON of an answer (None when empty); ServerFailed when it is not JSON."""
    if not payload:
        return None
    try:
        # Several times faster than json.loads on a large document; json.loads still takes
        # what it refuses (an escaped lone surrogate), so nothing valid is lost.
        return pydantic_core.from_json(payload)
    except ValueError:
        pass
    try:
        return json.loads(payload)
    except ValueError:
        raise ServerFailed(
            f"The Quire server at {url} answered with something that is not JSON. Check that "
            "the address in server.json belongs to a Quire server."
        ) from None


def parse_answer(model: type[AnswerT], payload: bytes, url: str) -> AnswerT:
    """The answer in ``payload`` as ``model``, read strictly; ServerFailed naming the field
    when it does not fit (an empty or non-JSON answer included)."""
    try:
        return model.parse_json(payload)
    except AnswerMismatch as err:
        if not err.is_json:
            decode_answer(payload, url)  # raises, saying the answer is not JSON
        raise ServerFailed(
            f"The Quire server at {url} answered in a shape this client does not know ({err}). "
            "Update Quire so the server and this client are the same version."
        ) from None


def error_from_answer(status: int, payload: bytes, url: str) -> errors.QuireError:
    """The error an answer with HTTP ``status`` carries, as the QuireError the server raised."""
    try:
        body = json.loads(payload) if payload else None
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    classes = _error_classes()
    known = isinstance(error, dict) and str(error.get("type")) in classes
    if status == httpx.codes.NOT_FOUND and not known:
        return NoSuchEndpoint(
            f"The Quire server at {url} does not offer this request: it may be an older "
            "version. Update Quire so the server and this client match."
        )
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        text = payload[:200].decode("utf-8", "replace").strip()
        unexplained = (
            ServerInterrupted if status >= httpx.codes.INTERNAL_SERVER_ERROR else ServerFailed
        )
        return unexplained(
            f"The Quire server at {url} failed with HTTP {status}"
            + (f": {text}" if text else ".")
            + " Retry once; if it fails again, check the server's log."
        )
    cls = classes.get(str(error.get("type")), ServerFailed)
    return cls(error["message"], **_details(cls, error))
