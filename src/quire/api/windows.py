"""The window's requests and answers: tabs, views, present mode, recents, files, workspaces.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from quire.api.base import Answer, StrictBody, omitted_when_none
from quire.core.views import View


class PresentBody(StrictBody):
    path: str | None = None


class NoBody(StrictBody):
    pass


class TabBody(StrictBody):
    docId: str


class ViewBody(StrictBody):
    docId: str
    view: View


class Tab(Answer):
    """An open tab: its document id, the file's resolved path and name, its view, and when
    it was opened (ms since the Unix epoch)."""

    doc_id: str
    path: str
    file_name: str
    view: View
    opened_at: int


class Window(Answer):
    """What the window shows: the tabs in order, the active document and its view (null with
    no tab open), and whether the active document is presented."""

    tabs: tuple[Tab, ...]
    active: str | None
    view: View | None
    present: bool


class Presented(Answer):
    """The document now shown in present mode."""

    ok: bool = True
    path: str
    doc_id: str


class RecentDocument(Answer):
    """A recently opened document; ``openedAt`` is in ms since the Unix epoch."""

    path: str
    file_name: str
    opened_at: int


class Recents(Answer):
    """The recently opened documents, newest first."""

    recent: tuple[RecentDocument, ...]


class RecentDetail(Answer):
    """A recently opened document as an agent reads it: path, title, modification time (ms
    since the Unix epoch) and the first 200 characters of its text."""

    path: str
    title: str
    mtime_ms: int
    preview: str


class RecentSkipped(Answer):
    """How many recent documents were left out, by reason."""

    missing: int = 0
    not_document: int = 0
    too_large: int = 0
    unreadable: int = 0
    not_allowed: int = 0


class RecentDocuments(Answer):
    """The recently opened documents that still exist, newest first, described; ``skipped``
    counts those left out (deleted, no longer a document, too large, unreadable, or outside
    the folders the reader may use)."""

    documents: tuple[RecentDetail, ...]
    count: int
    skipped: RecentSkipped


class WorkspaceFile(Answer):
    """A Markdown document in a workspace: its path as listed, the workspace holding it, its
    path relative to that workspace, its mtime (ms since the Unix epoch) and size in bytes."""

    path: str
    workspace: str
    rel_path: str
    mtime_ms: int
    size: int


class FilePage(Answer):
    """One page of the workspace listing: ``nextCursor`` asks for the next one (null on the
    last); ``truncated`` and ``note`` say what the listing could not include."""

    files: tuple[WorkspaceFile, ...]
    next_cursor: str | None
    total: int
    truncated: bool
    note: str | None = omitted_when_none()


class Workspace(Answer):
    """A folder the server serves: its path and its name."""

    path: str
    name: str


class WorkspaceList(Answer):
    """The folders the server serves, in the order it was given them."""

    workspaces: tuple[Workspace, ...]
