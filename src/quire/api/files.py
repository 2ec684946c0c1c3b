"""The file operation requests and answers: create, rename/move, copy,
delete to the trash, restore, append, upload, and the tree's change events.

Models only: the server dumps them, the client parses them, MCP output schemas come from them.
"""

from __future__ import annotations

from typing import Literal

from quire.api.base import Answer, StrictBody, omitted_when_none


class NoteCreateBody(StrictBody):
    """``path``: the new note (absolute); its name becomes a safe file name, ``.md`` added.
    ``content`` or ``template`` (the absolute path of a note to start from), not both."""

    path: str
    content: str | None = None
    template: str | None = None


class FolderCreateBody(StrictBody):
    path: str


class MoveBody(StrictBody):
    """Rename or move ``path`` to ``to`` (both absolute, the new full path). With
    ``update_links``, the notes linking to it are rewritten after the move (the notes
    ``/api/files/links`` lists for the same body; that route ignores the flag)."""

    path: str
    to: str
    update_links: bool = False


class CopyBody(StrictBody):
    path: str
    to: str


class PathBody(StrictBody):
    path: str


class AppendBody(StrictBody):
    """Append ``content`` to the note ``path`` (through its live document when it is open)."""

    path: str
    content: str
    save: bool = True


class TrashRestoreBody(StrictBody):
    """Restore the trash entry ``id`` where it was, or at ``to`` (absolute)."""

    id: str
    to: str | None = None


class TrashEmptyBody(StrictBody):
    """``expired_only``: remove only the entries past their 30 days (default: all)."""

    expired_only: bool = False


class NoteCreated(Answer):
    """A note or folder made: its real path and what it is."""

    path: str
    kind: Literal["note", "folder"]


class Moved(Answer):
    """A rename or move done: the real paths before and after, whether it was a folder, and
    how many open documents followed it (live buffer, unsaved edits and tabs kept)."""

    path: str
    to: str
    is_folder: bool
    documents_followed: int
    links_updated: tuple[str, ...] = ()
    """The notes whose links were rewritten (absolute paths, after the move); empty unless
    the request asked for ``update_links``."""


class LinkUpdate(Answer):
    """A note a move would rewrite: its path (now), title, how many of its links change and
    on which 1-based lines."""

    path: str
    title: str
    links: int
    lines: tuple[int, ...]


class LinkUpdates(Answer):
    """What moving ``path`` to ``to`` would rewrite (nothing is written): every note whose
    wikilinks or relative Markdown links name it (or, for a folder, anything inside it), the
    moved note itself when its own relative links must be rebased, and the notes that could
    not be checked (``unreadable``: not UTF-8, too large, gone meanwhile)."""

    path: str
    to: str
    notes: tuple[LinkUpdate, ...]
    unreadable: tuple[str, ...]


class Copied(Answer):
    """A copy made: where, and how many files, folders and bytes (links and special files
    inside a folder are left out: ``skipped``)."""

    path: str
    to: str
    files: int
    folders: int
    size: int
    skipped: int


class Deleted(Answer):
    """A file or folder moved to its workspace's trash: the entry id (for restore), and how
    many tabs were closed because they showed it."""

    path: str
    trash_id: str
    tabs_closed: int


class Appended(Answer):
    """Text appended to a note: through its open live document (``live``), or to the file."""

    path: str
    live: bool


class Uploaded(Answer):
    """An uploaded file: its real path, its size, and the Markdown link to insert in the note
    named by the request's ``note`` (relative to the note's folder), when one was named."""

    path: str
    size: int
    link: str | None = omitted_when_none()


class TrashItem(Answer):
    """A deleted item: its id, workspace, original path, whether a folder, when it was
    deleted and when it is removed for good (ms since the epoch)."""

    id: str
    workspace: str
    path: str
    is_folder: bool
    deleted_at_ms: int
    expires_at_ms: int


class TrashList(Answer):
    items: tuple[TrashItem, ...]


class TrashRestored(Answer):
    id: str
    path: str


class TrashEmptied(Answer):
    removed: int


TreeAction = Literal["created", "deleted", "moved", "changed"]
"""What happened to a path in the tree; ``moved`` carries ``to`` (a rename is a move)."""


class TreeChange(Answer):
    """One change: ``path`` (absolute), its new path ``to`` when moved, and whether it is a
    folder."""

    action: TreeAction
    path: str
    to: str | None = omitted_when_none()
    is_folder: bool


class TreeData(Answer):
    """Changes in a workspace's tree since the last event. ``rescan`` means too many changed
    at once (a checkout) to name them: list the folder again instead (``changes`` is empty)."""

    workspace: str
    changes: tuple[TreeChange, ...]
    rescan: bool
