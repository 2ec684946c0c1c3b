"""The open document's requests and answers: open, current text, edits, previews, saves, render.

Models only: the server reads and dumps them, the client builds and parses them, and the MCP
tools' output schemas are generated from them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from quire.api.base import Answer, Ok, StrictBody, omitted_when_none
from quire.core.views import OpenMode, View


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
    read_versions: dict[str, str] | None = None
    """The version the caller last read of each document, by docId: the answer's version is
    then what the caller knows after its edit (its read with the edit)."""


class StreamEditBody(StrictBody):
    find: str
    replace: str
    preview: bool = True
    preview_lines: int = 5
    path: str | None = None
    read_versions: dict[str, str] | None = None


class ApplyBody(StrictBody):
    edit_id: str | None = None
    find: str
    replace: str
    match_index: int = 0
    save: bool = False
    path: str | None = None
    base: str | None = None
    read_versions: dict[str, str] | None = None


class ContentBody(StrictBody):
    content: str
    save: bool = False
    path: str | None = None
    base: str | None = None
    read_versions: dict[str, str] | None = None
    """The version the caller last read of each document, by docId: the base of the open
    document's rewrite when ``base`` is not given (so the caller need not ask which document
    is open first)."""


class SaveBody(StrictBody):
    path: str | None = None


# Answers


class OpenedDocument(Answer):
    """The answer of `POST /api/documents/open`: the document the window opened and shows.

    `browserConnected` says whether a browser window of the user listens for events (None
    from a server that does not say)."""

    opened: bool = True
    path: str
    doc_id: str
    view: View
    browser_connected: bool | None = None
    version: str | None = omitted_when_none()


class CurrentDocument(Answer):
    """The open document's live text, unsaved edits included. With no document open it is
    `{path: null, content: ""}`: `docId` and `dirty` are left out."""

    path: str | None
    content: str
    doc_id: str | None = omitted_when_none()
    dirty: bool | None = omitted_when_none()
    version: str | None = omitted_when_none()


MERGE_HINT = (
    "The person changed these lines after you read the document, so their text was kept and "
    "yours was not applied here. Read the document again (get_current_content) and make your "
    "change to these lines with edit_document."
)


class MergeConflict(Answer):
    """A region where the person's concurrent text was kept over a rewrite: its lines in the
    document now (1-based, inclusive), the text the agent wanted there, and what to do."""

    start_line: int
    end_line: int
    agent_text: str
    hint: str


class ContentSet(Ok):
    """A whole-text rewrite applied. `version` is the version of the text the agent sent (the
    `base` of its next rewrite); `conflicts` lists where the person's text stayed instead."""

    version: str
    conflicts: tuple[MergeConflict, ...] = ()
    doc_id: str | None = omitted_when_none()


class Replaced(Ok):
    """An edit that replaced one occurrence; `version` is the text's version right after it
    (the `base` of a later rewrite) of the document `docId`."""

    replaced: int
    version: str | None = omitted_when_none()
    doc_id: str | None = omitted_when_none()


class Candidate(Answer):
    """One occurrence of a previewed find/replace: its 0-based index, the line it starts on,
    the diff of replacing it alone, and its rank (1 is the one to prefer)."""

    match_index: int
    start_line: int
    diff: str
    rank: int


class StreamPreview(Ok):
    """A previewed find/replace (`applied` false), or one applied at once (`applied` true,
    an empty diff, an `editId` that names no preview). `candidates` is null for one
    match. `version` is the version of the text previewed (an apply's `base`), or of the
    text after an edit applied at once."""

    edit_id: str
    diff: str
    candidates: list[Candidate] | None
    match_count: int
    applied: bool
    version: str | None = omitted_when_none()
    doc_id: str | None = omitted_when_none()


class AppliedPreview(Replaced):
    """A previewed find/replace applied: which occurrence (0-based) was replaced."""

    match_index: int


class Saved(Ok):
    """The open document written to its file."""

    path: str


class Rendered(Answer):
    """Markdown as the shared renderer's sanitised HTML, and what the client must load to
    finish it (snake_case keys: the browser reads them so)."""

    html: str
    has_math: bool = Field(alias="has_math")
    has_mermaid: bool = Field(alias="has_mermaid")


class RenderedTexts(Answer):
    """Several Markdown texts rendered, in the order they were sent."""

    items: list[Rendered]


class RenderedDocument(Rendered):
    """The Read view of an open document: its live text rendered, whether it has unsaved
    edits, and whether only its beginning was rendered (`partial`)."""

    dirty: bool
    partial: bool


class RenderedBlock(Answer):
    """One unit of the Read view: HTML the browser puts in place on its own (one block, or a
    run of blocks raw HTML holds together); `id` is a digest of `html`."""

    id: str
    html: str


class RenderedBlocks(Answer):
    """The Read view by block: the units that turn version `base` (the `since` asked for)
    into `version`. Drop `deleteCount` units at index `start` of `base`'s and put `blocks`
    there; without `base` (a version the server no longer knows, or none asked), `blocks`
    are every unit. `total` is how many units `version` has."""

    version: str
    base: str | None = omitted_when_none()
    start: int
    delete_count: int
    blocks: list[RenderedBlock]
    total: int
    has_math: bool = Field(alias="has_math")
    has_mermaid: bool = Field(alias="has_mermaid")
    dirty: bool
    partial: bool


class Conflict(Answer):
    """The live text (`mine`) and the file's text on disk (`disk`) that differ."""

    mine: str
    disk: str


class DocumentState(Answer):
    """Whether an open document has unsaved edits, and its conflict with the file (or null)."""

    doc_id: str
    path: str
    dirty: bool
    conflict: Conflict | None


class TaskToggled(Ok):
    """A task checkbox set: `changed` is false when it already had that state."""

    changed: bool


class ConflictResolved(Ok):
    """A conflict ended: whether the document now has unsaved edits."""

    dirty: bool
