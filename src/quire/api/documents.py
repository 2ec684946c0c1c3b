"""The open document's requests and answers: open, current text, edits, previews, saves, render.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import StrictBody
from quire.core.views import OpenMode


class RenderBody(StrictBody):
    markdown: str | None = None
    texts: list[str] | None = None


class ToggleTaskBody(StrictBody):
    docId: str
    line: int
    checked: bool


class ResolveConflictBody(StrictBody):
    docId: str
    keep: Literal["mine", "disk"]


class OpenBody(StrictBody):
    path: str
    mode: OpenMode | None = None
    line: int | None = None


class EditBody(StrictBody):
    find: str
    replace: str
    save: bool = False
    path: str | None = None


class StreamEditBody(StrictBody):
    find: str
    replace: str
    preview: bool = True
    preview_lines: int = 5
    path: str | None = None


class ApplyBody(StrictBody):
    edit_id: str | None = None
    find: str
    replace: str
    match_index: int = 0
    save: bool = False
    path: str | None = None


class ContentBody(StrictBody):
    content: str
    save: bool = False
    path: str | None = None


class SaveBody(StrictBody):
    path: str | None = None
