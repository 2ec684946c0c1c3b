"""Which window events an account may receive: those about paths it may read, trimmed to them.

Every event kind is decided here, by what it names; a kind this module does not know is never
delivered to an account (fail closed), so a new kind needs a rule here before a restricted
window hears of it. Pure: it reads the access given, never the database or the disk beyond
resolving paths.
"""

from __future__ import annotations

import logging
from pathlib import Path

from quire.api.events import (
    ActivityEvent,
    ApprovalEvent,
    ChatDeletedEvent,
    ChatEvent,
    ChatPresenceEvent,
    ConflictEvent,
    DeletedData,
    DeletedEvent,
    DocumentEvent,
    Event,
    ExportEvent,
    NoticeEvent,
    OpenEvent,
    PresentEvent,
    ReviewEvent,
    TreeEvent,
    WindowEvent,
)
from quire.api.files import TreeChange, TreeData
from quire.api.windows import Window
from quire.services.users.access import Access

logger = logging.getLogger(__name__)


def visible_event(event: Event, access: Access) -> Event | None:
    """``event`` as ``access`` may see it: unchanged, trimmed to what it may read, or None
    when nothing of it may be delivered. Any error withholds the event."""
    if not access.restricted:
        return event
    try:
        return _visible(event, access)
    except Exception:
        logger.exception("Checking an event against an account's access failed; withheld")
        return None


def _visible(event: Event, access: Access) -> Event | None:
    match event:
        case (
            OpenEvent()
            | PresentEvent()
            | ActivityEvent()
            | DocumentEvent()
            | ConflictEvent()
            | ChatEvent()
            | ChatDeletedEvent()
            | ChatPresenceEvent()
            | ExportEvent()
        ):
            return event if access.may_read(Path(event.data.path)) else None
        case WindowEvent():
            return WindowEvent(data=_window(event.data, access))
        case ReviewEvent():
            # A review of inline content names no file: it is the account's own request.
            path = event.data.review.path
            return event if path is None or access.may_read(Path(path)) else None
        case TreeEvent():
            return _tree(event, access)
        case DeletedEvent():
            return _deleted(event.data, access)
        case ApprovalEvent():
            # The account's own agent asks; the chat it is in is named only if readable.
            chat = event.data.approval.chat_path
            if chat is None or access.may_read(Path(chat)):
                return event
            approval = event.data.approval.model_copy(update={"chat_path": None})
            return ApprovalEvent(data=event.data.model_copy(update={"approval": approval}))
        case NoticeEvent():
            return event  # the account's own agent's notice: it names no path
        case _:
            return None


def _window(window: Window, access: Access) -> Window:
    tabs = tuple(tab for tab in window.tabs if access.may_read(Path(tab.path)))
    if len(tabs) == len(window.tabs):
        return window
    if all(tab.doc_id != window.active for tab in tabs):
        return Window(tabs=tabs, active=None, view=None, present=False)
    return window.model_copy(update={"tabs": tabs})


def _tree(event: TreeEvent, access: Access) -> TreeEvent | None:
    data = event.data
    if not access.sees_folder(Path(data.workspace)):
        return None
    if data.rescan:
        return event
    changes = tuple(
        change for change in (_change(item, access) for item in data.changes) if change is not None
    )
    if not changes:
        return None
    return TreeEvent(data=TreeData(workspace=data.workspace, changes=changes, rescan=False))


def _change(change: TreeChange, access: Access) -> TreeChange | None:
    """A change as the account sees it: a move between what it sees and what it does not
    is a creation or a deletion of the side it sees."""
    seen = _sees(change.path, change.is_folder, access)
    if change.to is None:
        return change if seen else None
    lands = _sees(change.to, change.is_folder, access)
    if seen and lands:
        return change
    if lands:
        return TreeChange(action="created", path=change.to, is_folder=change.is_folder)
    if seen:
        return TreeChange(action="deleted", path=change.path, is_folder=change.is_folder)
    return None


def _sees(path: str, is_folder: bool, access: Access) -> bool:
    return access.sees_folder(Path(path)) if is_folder else access.may_read(Path(path))


def _deleted(data: DeletedData, access: Access) -> DeletedEvent | None:
    if not access.sees_folder(Path(data.path)) and not access.may_read(Path(data.path)):
        return None
    paths = tuple(path for path in data.paths if access.may_read(Path(path)))
    return DeletedEvent(data=data.model_copy(update={"paths": paths}))
