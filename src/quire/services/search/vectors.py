"""Keeping the semantic extra's vectors in step with the index, for the search service.

Nothing happens until the first semantic search (a server never searched by meaning spends
nothing on it); from then on the notes with no vector are embedded in a worker thread, and again
each time the index changes. A failure (a broken install) is kept and said in every answer.
"""

from __future__ import annotations

import logging
import threading
from functools import partial

import anyio
from anyio.abc import TaskGroup

from quire.search import semantic
from quire.search.index import SearchIndex
from quire.search.semantic import SemanticIndex

logger = logging.getLogger(__name__)

FIRST_WAIT_S = 5.0
"""How long the first semantic search waits for the notes' vectors before answering with
those made so far (and a note saying so)."""


class VectorKeeper:
    """The notes' vectors in ``index`` (None: the extra is not installed)."""

    def __init__(self, vectors: SemanticIndex | None) -> None:
        self.vectors = vectors
        self._started = False
        self._failed: str | None = None
        self._wake = anyio.Event()
        self._made = anyio.Event()
        self._stop = threading.Event()

    @property
    def usable(self) -> SemanticIndex | None:
        """The vectors, when installed and not failed."""
        return None if self._failed is not None else self.vectors

    async def first_search(self, tasks: TaskGroup, index: SearchIndex) -> None:
        """Before the first semantic search: start keeping the vectors and wait a little for
        them. Later searches return at once and answer with the vectors made so far."""
        if self.vectors is None or self._started:
            return
        self._started = True
        made = self._made
        tasks.start_soon(self._keep, self.vectors, index)
        with anyio.move_on_after(FIRST_WAIT_S):
            await made.wait()

    def wake(self) -> None:
        """The index changed: embed what is new (once started)."""
        self._wake.set()

    def made(self) -> anyio.Event:
        """An event set once the vectors are next brought up to date. Take it before looking,
        then wait on it."""
        return self._made

    def stop(self) -> None:
        """Ask a running fill to stop after its batch (the server is closing)."""
        self._stop.set()

    def close(self) -> None:
        """Close the vectors' file (after ``stop`` and the task's end)."""
        if self.vectors is not None:
            self.vectors.close()

    def note(self, counted: bool) -> str | None:
        """What a semantic answer lacks: the extra, a failure, or vectors not made yet
        (``counted``: whether how many may be said, as for the build's progress)."""
        if self.vectors is None:
            return semantic.NOT_INSTALLED
        if self._failed is not None:
            return (
                f"Semantic search is installed but failed ({self._failed[:200]}), so these are "
                "results of the words index. The server's log has the details; reinstall the "
                "extra (pip install --force-reinstall 'quire[semantic]') and restart the server."
            )
        progress = self.vectors.progress
        if progress.complete:
            return None
        if not counted:
            return (
                "The notes' meanings are still being worked out, so some are found by their "
                "words only."
            )
        return (
            f"The notes' meanings are still being worked out: {progress.done:,} of "
            f"{progress.total:,} so far, so the others are found by their words only."
        )

    async def _keep(self, vectors: SemanticIndex, index: SearchIndex) -> None:
        while True:
            self._wake = anyio.Event()
            try:
                await anyio.to_thread.run_sync(partial(vectors.fill, index.reading, self._stop))
            except Exception as exc:
                logger.exception("Making the notes' vectors failed; semantic search uses words.")
                self._failed = f"{type(exc).__name__}: {exc}"
                return
            finally:
                made, self._made = self._made, anyio.Event()
                made.set()
            await self._wake.wait()
