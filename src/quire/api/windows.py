"""The window's requests and answers: tabs, views, present mode, recents, files, workspaces.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from quire.api.base import StrictBody
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
