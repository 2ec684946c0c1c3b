"""What a review is compared against: the text of its file now (the live buffer when the
document is open, unsaved edits included, else the file on disk), whether it changed since, and
the file's annotations (its newest review beside its tasks).

Reads only; it records nothing about a review and never touches the database.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from quire.core.errors import QuireError
from quire.core.views import document_id
from quire.db.reviews import StoredReview
from quire.fs.documents import read_document
from quire.markdown.tasks import Task, extract_tasks
from quire.services.document_access import require_readable
from quire.services.reviews.checks import content_hash
from quire.services.reviews.results import Annotations

if TYPE_CHECKING:
    from quire.services.live.documents import LiveDocuments


class ReviewTexts:
    """The current texts of reviewed files, from the live documents or the disk."""

    def __init__(self, documents: LiveDocuments) -> None:
        self._documents = documents

    async def text_of(self, path: Path) -> str:
        """The text of the file at ``path`` now: its live buffer when open, else the file.
        Raises the QuireError that says why a file cannot be read (FileMissing, as for a
        missing file, when the request may not read it)."""
        require_readable(path, "read")
        doc_id = document_id(await resolve(path))
        if self._documents.get(doc_id) is not None:
            return await self._documents.text(doc_id)
        _found, text = await anyio.to_thread.run_sync(read_document, self._documents.folders, path)
        return text

    async def annotations(self, path: Path, review: StoredReview | None) -> Annotations:
        """``review`` (the newest of ``path``, or None), whether it is stale, and the file's
        tasks, all from one reading of its text. A file that cannot be read gives no tasks
        and a ``tasks_note`` saying why; this never raises for the file's sake."""
        tasks: list[Task] = []
        note = None
        text: str | None = None
        try:
            text = await self.text_of(path)
        except QuireError as err:
            note = f"{err.message} Its tasks were not read."
        else:
            tasks = extract_tasks(text)
        stale = None
        if review is not None:
            stale = text is None or content_hash(text) != review.content_hash
        return Annotations(path, review, stale, tasks, note)

    async def is_stale(self, review: StoredReview) -> bool:
        """Whether the file a review is about changed since (or cannot be read to compare);
        a review of inline content is never stale."""
        if review.path is None:
            return False
        try:
            text = await self.text_of(Path(review.path))
        except QuireError:
            return True
        return content_hash(text) != review.content_hash


async def resolve(path: Path) -> Path:
    """``path`` with every symlink resolved (off the event loop: it touches the disk)."""
    return Path(await anyio.to_thread.run_sync(os.path.realpath, path))
