"""Every ``/ws/events`` payload: one model per event kind, and ``Event``, their union.

A frame is ``{"kind": ..., "data": {...}}``; ``kind`` tells the kinds apart. Models only: the
services publish them, the events socket dumps them, the browser reads them.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field, TypeAdapter

from quire.api.approvals import ApprovalRecord, NoticeRecord
from quire.api.base import Answer, omitted_when_none
from quire.api.exports import ExportFormat
from quire.api.files import TreeData
from quire.api.reviews import ReviewRecord
from quire.api.windows import Window
from quire.core.views import View


class OpenData(Answer):
    """A document was opened: the line to scroll to and the agent that opened it, if any."""

    path: str
    doc_id: str
    view: View
    line: int | None = omitted_when_none()
    author: str | None = omitted_when_none()


class OpenEvent(Answer):
    kind: Literal["open"] = "open"
    data: OpenData


class PresentData(Answer):
    """A document is shown in present mode, at the request of ``author`` when an agent asked."""

    path: str
    doc_id: str
    author: str | None = omitted_when_none()


class PresentEvent(Answer):
    kind: Literal["present"] = "present"
    data: PresentData


class WindowEvent(Answer):
    """The window changed: its whole new state."""

    kind: Literal["window"] = "window"
    data: Window


class ReviewData(Answer):
    """A review was requested (``new``) or ended (its status now)."""

    action: Literal["new", "decided", "timeout", "superseded"]
    review: ReviewRecord


class ReviewEvent(Answer):
    kind: Literal["review"] = "review"
    data: ReviewData


class ActivityData(Answer):
    """An agent did something to a document (the activity drawer's entry)."""

    path: str
    author: str
    kind: Literal["edit"]


class ActivityEvent(Answer):
    kind: Literal["activity"] = "activity"
    data: ActivityData


class DocumentData(Answer):
    """An agent changed an open document: the first changed line, and the changed range in
    UTF-16 code units of the new text (``from`` to ``to``), for the window to flash."""

    doc_id: str
    path: str
    author: str
    line: int
    from_: int = Field(validation_alias="from", serialization_alias="from")
    to: int


class DocumentEvent(Answer):
    kind: Literal["document"] = "document"
    data: DocumentData


class ConflictShown(Answer):
    """The file changed on disk under unsaved edits: the live text and the file's text."""

    doc_id: str
    path: str
    mine: str
    disk: str


class ConflictEnded(Answer):
    """A document's conflict ended; ``dirty`` says whether unsaved edits remain."""

    doc_id: str
    path: str
    resolved: Literal[True]
    dirty: bool


class ConflictEvent(Answer):
    kind: Literal["conflict"] = "conflict"
    data: ConflictShown | ConflictEnded


class ChatData(Answer):
    """A message was posted to a chat: its number and author."""

    path: str
    number: int
    author: str


class ChatEvent(Answer):
    kind: Literal["chat"] = "chat"
    data: ChatData


class ChatNamed(Answer):
    """The chat an event is about."""

    path: str


class ChatDeletedEvent(Answer):
    kind: Literal["chat-deleted"] = "chat-deleted"
    data: ChatNamed


class ChatPresenceEvent(Answer):
    """Who is in the chat, or what they are doing, changed."""

    kind: Literal["chat-presence"] = "chat-presence"
    data: ChatNamed


class ExportData(Answer):
    """The person is asked to export ``path``: the window opens its export dialog."""

    path: str
    format: ExportFormat
    doc_id: str | None = omitted_when_none()


class ExportEvent(Answer):
    kind: Literal["export"] = "export"
    data: ExportData


class TreeEvent(Answer):
    """Files or folders in a workspace were created, deleted, moved or changed (by Quire or
    by another program: the watcher's changes are coalesced, see ``TreeData.rescan``)."""

    kind: Literal["tree"] = "tree"
    data: TreeData


class DeletedData(Answer):
    """A file or folder was moved to the trash, closing this user's tabs of ``paths`` (the
    file, or the files below the folder); ``trash_id`` restores it."""

    path: str
    trash_id: str
    paths: tuple[str, ...]


class DeletedEvent(Answer):
    """Tells every window of a user whose tabs a delete closed, so each can say why."""

    kind: Literal["deleted"] = "deleted"
    data: DeletedData


class ApprovalData(Answer):
    """An approval request was queued (``new``) or ended (its status now)."""

    action: Literal["new", "decided", "expired", "answered"]
    approval: ApprovalRecord


class ApprovalEvent(Answer):
    kind: Literal["approval"] = "approval"
    data: ApprovalData


class NoticeData(Answer):
    """A notice was raised (or replaced one) or went away."""

    action: Literal["raised", "removed"]
    notice: NoticeRecord


class NoticeEvent(Answer):
    kind: Literal["notice"] = "notice"
    data: NoticeData


Event: TypeAlias = Annotated[
    OpenEvent
    | PresentEvent
    | WindowEvent
    | ReviewEvent
    | ActivityEvent
    | DocumentEvent
    | ConflictEvent
    | ChatEvent
    | ChatDeletedEvent
    | ChatPresenceEvent
    | ExportEvent
    | TreeEvent
    | DeletedEvent
    | ApprovalEvent
    | NoticeEvent,
    Field(discriminator="kind"),
]
"""Any event the services publish; ``kind`` says which."""

EVENTS: TypeAdapter[Event] = TypeAdapter(Event, config=ConfigDict(defer_build=True))
"""Parses (``EVENTS.validate_python(frame)``) and describes every event frame."""
