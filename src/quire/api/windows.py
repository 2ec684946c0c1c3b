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
