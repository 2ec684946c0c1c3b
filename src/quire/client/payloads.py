"""The server's answers as typed values, read from JSON with their shapes checked.

Pure: turns decoded JSON into frozen dataclasses and refuses a shape the API does not give
(ServerFailed, naming the field); sending requests is ``api.py``'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quire.client.errors import ServerFailed

JsonObject = Mapping[str, Any]


@dataclass(frozen=True)
class Opened:
    """A document the window opened: its path, live document id and view, and whether a
    browser window was listening (None from a server that does not say)."""

    path: str
    doc_id: str
    view: str
    browser_connected: bool | None = None


@dataclass(frozen=True)
class CurrentDocument:
    """The active document: ``path`` is None only when no document is open."""

    path: str | None
    content: str
    doc_id: str | None
    dirty: bool | None


@dataclass(frozen=True)
class StreamPreview:
    """A previewed (or, with preview off, applied) find/replace."""

    edit_id: str
    diff: str
    candidates: list[dict[str, Any]] | None
    match_count: int
    applied: bool


def field(data: JsonObject, name: str, kind: type | tuple[type, ...], *, what: str) -> Any:
    """``data[name]`` when it has type ``kind``; ServerFailed naming the field otherwise."""
    value = data.get(name)
    if isinstance(value, bool) and bool not in _as_tuple(kind):
        value = None
    if not isinstance(value, kind):
        raise ServerFailed(
            f"The Quire server's answer to {what} has no valid `{name}`: it may be a different "
            "version of Quire. Update Quire so the server and this client match."
        )
    return value


def optional(data: JsonObject, name: str, kind: type | tuple[type, ...], *, what: str) -> Any:
    """``data[name]`` when present and not null (checked like ``field``), else None."""
    if data.get(name) is None:
        return None
    return field(data, name, kind, what=what)


def as_object(value: object, *, what: str) -> JsonObject:
    """``value`` when it is a JSON object; ServerFailed otherwise."""
    if not isinstance(value, dict):
        raise ServerFailed(
            f"The Quire server's answer to {what} is not a JSON object: it may be a different "
            "version of Quire. Update Quire so the server and this client match."
        )
    return value


def opened(value: object) -> Opened:
    """Read the answer of ``POST /api/documents/open`` (and present)."""
    what = "open"
    data = as_object(value, what=what)
    return Opened(
        path=field(data, "path", str, what=what),
        doc_id=str(optional(data, "docId", str, what=what) or ""),
        view=str(optional(data, "view", str, what=what) or "read"),
        browser_connected=optional(data, "browserConnected", bool, what=what),
    )


def current_document(value: object) -> CurrentDocument:
    """Read the answer of ``GET /api/documents/current``."""
    what = "current document"
    data = as_object(value, what=what)
    return CurrentDocument(
        path=optional(data, "path", str, what=what),
        content=str(optional(data, "content", str, what=what) or ""),
        doc_id=optional(data, "docId", str, what=what),
        dirty=optional(data, "dirty", bool, what=what),
    )


def stream_preview(value: object) -> StreamPreview:
    """Read the answer of ``POST /api/documents/stream-edit``."""
    what = "stream-edit"
    data = as_object(value, what=what)
    candidates = optional(data, "candidates", list, what=what)
    return StreamPreview(
        edit_id=field(data, "editId", str, what=what),
        diff=str(optional(data, "diff", str, what=what) or ""),
        candidates=[dict(as_object(item, what=what)) for item in candidates]
        if candidates is not None
        else None,
        match_count=field(data, "matchCount", int, what=what),
        applied=bool(optional(data, "applied", bool, what=what)),
    )


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)
