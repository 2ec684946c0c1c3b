"""The window events a live document's changes produce: activity, the changed range, conflicts.

Builds the events (``quire.api.events`` models) only; publishing them is the caller's. Offsets
are in UTF-16 code units, as the browser's editor counts.
"""

from __future__ import annotations

from quire.api.events import (
    ActivityData,
    ActivityEvent,
    ConflictEnded,
    ConflictEvent,
    ConflictShown,
    DocumentData,
    DocumentEvent,
)
from quire.services.live.document import LiveDocument
from quire.services.live.text_changes import utf16_length


def edit_events(
    live: LiveDocument, new: str, start: int, end: int, *, author: str
) -> tuple[ActivityEvent, DocumentEvent]:
    """An agent's edit: an ``activity`` entry and a ``document`` event with the changed range
    (``new[start:end]`` is the new text) so the window can flash it."""
    path = str(live.path)
    first = utf16_length(new[:start])
    return (
        ActivityEvent(data=ActivityData(path=path, author=author, kind="edit")),
        DocumentEvent(
            data=DocumentData(
                doc_id=live.doc_id,
                path=path,
                author=author,
                line=new.count("\n", 0, start) + 1,
                from_=first,
                to=first + utf16_length(new[start:end]),
            )
        ),
    )


def conflict_event(live: LiveDocument, disk: str) -> ConflictEvent:
    """A conflict between the live text (``mine``) and the file's text on disk (``disk``)."""
    return ConflictEvent(
        data=ConflictShown(doc_id=live.doc_id, path=str(live.path), mine=live.text(), disk=disk)
    )


def conflict_resolved_event(live: LiveDocument) -> ConflictEvent:
    """The conflict of ``live`` ended (resolved in a window, or the file went back to the text
    the buffer rests on): every window drops its banner; ``dirty`` is the state now."""
    return ConflictEvent(
        data=ConflictEnded(
            doc_id=live.doc_id, path=str(live.path), resolved=True, dirty=live.is_dirty
        )
    )
