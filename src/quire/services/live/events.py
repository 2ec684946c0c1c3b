"""The window events a live document's changes produce: activity, the changed range, conflicts.

Builds the events' JSON-ready payloads only; publishing them is the caller's. Offsets are in
UTF-16 code units, as the browser's editor counts.
"""

from __future__ import annotations

from quire.services.events import Event
from quire.services.live.document import LiveDocument
from quire.services.live.text_changes import utf16_length


def edit_events(live: LiveDocument, new: str, start: int, end: int, *, author: str) -> list[Event]:
    """An agent's edit: an ``activity`` entry and a ``document`` event with the changed range
    (``new[start:end]`` is the new text) so the window can flash it."""
    path = str(live.path)
    first = utf16_length(new[:start])
    return [
        Event("activity", {"path": path, "author": author, "kind": "edit"}),
        Event(
            "document",
            {
                "docId": live.doc_id,
                "path": path,
                "author": author,
                "line": new.count("\n", 0, start) + 1,
                "from": first,
                "to": first + utf16_length(new[start:end]),
            },
        ),
    ]


def conflict_event(live: LiveDocument, disk: str) -> Event:
    """A conflict between the live text (``mine``) and the file's text on disk (``disk``)."""
    data: dict[str, object] = {
        "docId": live.doc_id,
        "path": str(live.path),
        "mine": live.text(),
        "disk": disk,
    }
    return Event("conflict", data)


def conflict_resolved_event(live: LiveDocument) -> Event:
    """The conflict of ``live`` ended (resolved in a window, or the file went back to the text
    the buffer rests on): every window drops its banner; ``dirty`` is the state now."""
    data: dict[str, object] = {
        "docId": live.doc_id,
        "path": str(live.path),
        "resolved": True,
        "dirty": live.is_dirty,
    }
    return Event("conflict", data)
