"""The server's answers that have no API model yet, read from JSON with their shapes checked.

Pure: turns decoded JSON into frozen dataclasses and refuses a shape the API does not give
(ServerFailed, naming the field); sending requests is ``api.py``'s job. The open document's
answers are ``quire.api.documents`` models, parsed with ``answers.parse_answer``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quire.core.errors import ServerFailed

JsonObject = Mapping[str, Any]


@dataclass(frozen=True)
class RecentDocument:
    """A recently opened document; ``opened_at`` is in ms since the Unix epoch."""

    path: str
    file_name: str
    opened_at: int


@dataclass(frozen=True)
class WorkspaceFile:
    """A Markdown document the server lists in one of its workspaces."""

    path: str
    workspace: str
    rel_path: str
    mtime_ms: int
    size: int


@dataclass(frozen=True)
class FilePage:
    """One page of the workspace listing; ``truncated``/``note`` say what it could not list."""

    files: list[WorkspaceFile]
    next_cursor: str | None
    total: int
    truncated: bool
    note: str | None


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


def recent_documents(value: object) -> list[RecentDocument]:
    """Read the answer of ``GET /api/recent``: a list, or an object holding one."""
    what = "recent documents"
    if isinstance(value, dict):
        value = value.get("recent", value.get("documents"))
    if not isinstance(value, list):
        raise ServerFailed(
            "The Quire server's answer to recent documents is not a list: it may be a "
            "different version of Quire. Update Quire so the server and this client match."
        )
    found: list[RecentDocument] = []
    for item in value:
        data = as_object(item, what=what)
        found.append(
            RecentDocument(
                path=field(data, "path", str, what=what),
                file_name=str(optional(data, "fileName", str, what=what) or ""),
                opened_at=int(optional(data, "openedAt", int, what=what) or 0),
            )
        )
    return found


def file_page(value: object) -> FilePage:
    """Read one page of ``GET /api/files``."""
    what = "workspace files"
    data = as_object(value, what=what)
    files = []
    for item in field(data, "files", list, what=what):
        entry = as_object(item, what=what)
        files.append(
            WorkspaceFile(
                path=field(entry, "path", str, what=what),
                workspace=str(optional(entry, "workspace", str, what=what) or ""),
                rel_path=str(optional(entry, "relPath", str, what=what) or ""),
                mtime_ms=int(optional(entry, "mtimeMs", (int, float), what=what) or 0),
                size=int(optional(entry, "size", int, what=what) or 0),
            )
        )
    return FilePage(
        files=files,
        next_cursor=optional(data, "nextCursor", str, what=what),
        total=int(optional(data, "total", int, what=what) or len(files)),
        truncated=bool(optional(data, "truncated", bool, what=what)),
        note=optional(data, "note", str, what=what),
    )


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)
