"""Chat in a note: the requests and answers of the chat routes.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from pydantic import Field

from quire.api.base import StrictBody


class ChatCreateBody(StrictBody):
    path: str
    title: str | None = None


class ChatPostBody(StrictBody):
    path: str
    as_: str = Field(alias="as")
    body: str
    session: str | None = None
    command: str | None = None


class ChatWaitBody(StrictBody):
    path: str
    as_: str = Field(alias="as")
    after: int | None = None
    mentionsOnly: bool = False
    timeoutMs: int | None = None
    session: str | None = None
    command: str | None = None


class ChatLeaveBody(StrictBody):
    path: str
    as_: str = Field(alias="as")
    session: str | None = None


class ChatStopBody(StrictBody):
    id: str


class ChatPinBody(StrictBody):
    path: str
    pinned: bool


class ChatPathBody(StrictBody):
    path: str


class ChatAvatarBody(StrictBody):
    workspace: str
    as_: str = Field(alias="as")
    pick: str | None = None
    svg: str | None = None
