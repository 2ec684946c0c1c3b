"""The search service: one index per server, built in the background, kept fresh, queried.

Starts answering at once: a search while the first build runs answers from what is indexed so
far and says so in ``note``. A folder watcher over every workspace and every save keep the
index within a second of the files. Knows nothing of HTTP; the index work runs in threads.

For a signed-in account (a restricted access) every answer holds only the notes it may read:
hits, backlinks and titles are checked one by one (a hidden note is skipped before its text is
read, and never counts towards a page, its "more" or a total), unreadable files are named and
counted only when readable, and rebuilding the index is for the owner or a superadmin.
"""

from __future__ import annotations

import logging
import sqlite3
import unicodedata
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Self

import anyio
import anyio.lowlevel
from anyio.abc import TaskGroup

from quire.api.search import (
    SEARCH_MODES,
    Backlink,
    Backlinks,
    SearchHit,
    SearchMode,
    SearchPage,
    Unreadable,
)
from quire.core.errors import AccessDenied, InvalidArgument
from quire.core.views import whole_number
from quire.search import queries, semantic
from quire.search.index import SearchIndex
from quire.search.queries import Found, Query
from quire.search.semantic import SemanticIndex
from quire.services.search.cursors import Cursors
from quire.services.search.indexer import Indexer, Progress
from quire.services.search.queries import checked_query, served_folder
from quire.services.search.vectors import VectorKeeper
from quire.services.users.access import Access, GrantedAccess, current_access
from quire.vault.watch import TICK_MS, FileChange, FolderWatcher, OnChanges
from quire.vault.workspaces import Workspaces

logger = logging.getLogger(__name__)

LIMIT = (1, 200, 50)
"""How many files one page may hold: least, most and default."""

UNREADABLE_LISTED = 20
"""How many unreadable files an answer names one by one (the note counts them all)."""

FIRST_BUILD_WAIT_S = 0.25
"""How long a search made while the first build runs waits for it before answering with
what is indexed so far (and a note saying so)."""
SEND_TURNS = 3
"""Event-loop turns given to the windows' sockets after a batch is published, before the
index takes it in: a tree event goes out first (the send is a turn or two of each socket's task)."""

INDEX_FILE = "search.sqlite3"
"""The index's file name in the state folder."""

VECTORS_FILE = "search-vectors.sqlite3"
"""The semantic extra's vectors, beside the index."""

FUSED = 200
"""How many notes each side of a semantic search (words, meaning) ranks before they are fused."""


class SearchService:
    """Search over the served workspaces. Use as ``async with SearchService(...) as search``:
    entering it opens the index, starts watching and starts the background build."""

    def __init__(self, workspaces: Workspaces, index_path: Path, *, build: bool = True) -> None:
        self._workspaces = workspaces
        self._index_path = index_path
        self._start_build = build
        self._index: SearchIndex | None = None
        self._indexer: Indexer | None = None
        self._cursors = Cursors()
        self._task_group: TaskGroup | None = None
        self._watcher: FolderWatcher | None = None
        self._build_lock = anyio.Lock()
        self.built = anyio.Event()
        """Set once the first full build has finished (tests and the bench wait on it)."""
        self._applied = anyio.Event()
        self._listeners: list[OnChanges] = []
        installed = semantic.installed()
        self._vectors = VectorKeeper(
            SemanticIndex(index_path.with_name(VECTORS_FILE)) if installed else None
        )

    def on_watched(self, listener: OnChanges) -> None:
        """Await ``listener`` with each batch of watched changes, before the index takes it
        (the file tree learns of them without waiting for the index). An error in it is
        logged; the index still takes the batch."""
        self._listeners.append(listener)

    async def __aenter__(self) -> Self:
        self._index = await anyio.to_thread.run_sync(SearchIndex, self._index_path)
        self._indexer = Indexer(self._index, self._workspaces)
        if not self._index.trigram:
            logger.warning(
                "This Python's SQLite (%s) has no trigram tokenizer, so substring searches "
                "scan every note; use a Python built with SQLite 3.34 or later.",
                __import__("sqlite3").sqlite_version,
            )
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        # It feeds the file tree: a file made elsewhere is shown a quiet step after it came.
        self._watcher = FolderWatcher(self._on_changes, tick_ms=TICK_MS, folders=True)
        await self._watcher.__aenter__()
        for folder in self._workspaces.folders:
            await self._watcher.watch(folder, recursive=True)
        if self._start_build:
            self._task_group.start_soon(self._first_build)
        else:
            self.built.set()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._indexer is not None:
            self._indexer.stop()
        self._vectors.stop()
        if self._watcher is not None:
            await self._watcher.__aexit__(None, None, None)
        if self._task_group is not None:
            self._task_group.cancel_scope.cancel()
            await self._task_group.__aexit__(None, None, None)
        if self._index is not None:
            async with self._build_lock:
                await anyio.to_thread.run_sync(self._index.close)
        await anyio.to_thread.run_sync(self._vectors.close)

    async def search(
        self,
        query: str,
        *,
        mode: SearchMode = "grep",
        limit: int = LIMIT[2],
        cursor: str | None = None,
        workspace: str | None = None,
    ) -> SearchPage:
        """One page of the files matching ``query`` (``tag:NAME`` terms filter by tag): in
        ``grep`` mode those holding it ignoring case, in index order; in ``words`` mode those
        holding every word, best first; in ``semantic`` mode the words ranking fused with the
        notes nearest in meaning (the words ranking alone, and a note, without the extra).
        ``cursor`` (a ``next_cursor``) gives the next page.
        Raises InvalidArgument for an empty or too long query, a limit outside 1 to 200, an
        unknown mode, a folder not served, or a cursor this server did not give out."""
        text = checked_query(query, argument="q")
        whole_number(limit, "limit", LIMIT[0], LIMIT[1])
        if mode not in SEARCH_MODES:
            raise InvalidArgument(
                f"`mode` must be one of {', '.join(SEARCH_MODES)}, got {mode!r}.", argument="mode"
            )
        folder = None if workspace is None else str(served_folder(self._workspaces, workspace))
        parsed = queries.parse_query(text)
        if not parsed.text and not parsed.tags:
            raise InvalidArgument("`q` holds no words to search for.", argument="q")
        position = 0 if cursor is None else self._cursors.position(cursor, text, mode, folder)
        index = self._require()
        access = current_access()
        # A small vault's first build ends within moments: wait that long, never longer.
        with anyio.move_on_after(FIRST_BUILD_WAIT_S):
            await self.built.wait()
        if mode == "semantic" and self._task_group is not None:
            await self._vectors.first_search(self._task_group, index)
        found, more, count, unread = await anyio.to_thread.run_sync(
            partial(self._query, index, parsed, mode, position, limit, folder, access)
        )
        next_cursor = None
        if more and found:
            after = found[-1].rowid if mode == "grep" else position + len(found)
            next_cursor = self._cursors.make(text, mode, folder, after)
        listed, unread_count = unread
        notes = [self._vectors.note(not access.restricted)] if mode == "semantic" else []
        return SearchPage(
            query=text,
            mode=mode,
            hits=[_hit(item) for item in found],
            truncated=more,
            next_cursor=next_cursor,
            note=self._note(unread_count, listed, counted=not access.restricted, first=notes),
            indexed=count,
            unreadable=[Unreadable(path=path, reason=reason) for path, reason in listed],
        )

    async def backlinks(self, path: Path) -> Backlinks:
        """The notes that link to ``path`` (absolute; a link's own file resolved). For an
        account, none when it may not read ``path`` (as for a path that is not there), and
        only the linking notes it may read."""
        index = self._require()
        access = current_access()
        real = str(await anyio.to_thread.run_sync(Path.resolve, path))
        if access.restricted and not await anyio.to_thread.run_sync(access.may_read, path):
            return Backlinks(path=str(path), links=[])
        rows = await anyio.to_thread.run_sync(
            partial(self._backlinks, index, real, _visible(access))
        )
        links = [Backlink(path=p, title=t, line=line) for p, t, line in rows]
        return Backlinks(path=str(path), links=links)

    async def linking(
        self, path: Path, rel_path: str | None, *, folder: bool, needles: Sequence[str] = ()
    ) -> tuple[set[str], list[str]] | None:
        """The notes that may link to ``path`` (see ``queries.linking``), those holding one of
        ``needles`` besides, and every file the index could not read (it cannot tell); None
        while the first build runs (the caller reads the workspaces instead)."""
        if not self.built.is_set() or self._index is None:
            return None
        index = self._index

        def run() -> tuple[set[str], list[str]]:
            with index.reading() as db:
                found = queries.linking(db, str(path), rel_path, folder=folder)
                for needle in needles:
                    found |= queries.holding(db, needle, trigram=index.trigram)
                unread = queries.unreadable(db, None, -1)[0]
            return found, [item for item, _reason in unread]

        return await anyio.to_thread.run_sync(run)

    async def titles(
        self, query: str, limit: int = LIMIT[2], *, recent: Sequence[Path] = ()
    ) -> list[SearchHit]:
        """Quick open: the documents whose title or path fits ``query`` (fuzzy), best first,
        the more recently used (``recent``, latest first) first among equals."""
        whole_number(limit, "limit", LIMIT[0], LIMIT[1])
        if len(query) > 1000:
            raise InvalidArgument("`q` is longer than 1,000 characters.", argument="q")
        index = self._require()
        ranks = {str(path): rank for rank, path in enumerate(recent)}
        visible = _visible(current_access())

        def run() -> list[Found]:
            with index.reading() as db:
                return queries.titles(db, query, limit, ranks, visible)

        return [_hit(item) for item in await anyio.to_thread.run_sync(run)]

    async def reindex(self, progress: Progress | None = None) -> int:
        """Rebuild the index from nothing; the number of notes indexed (for an account, the
        number it may read). Only the owner (the server's own token, single mode) or a
        superadmin may: AccessDenied for any other account."""
        access = current_access()
        if access.restricted and (access.identity is None or access.identity.role != "superadmin"):
            raise AccessDenied(
                "Access denied: only the server's owner or a superadmin may rebuild the search "
                "index. Ask a superadmin to run it (POST /api/search/reindex, or `quire "
                "reindex` on the server)."
            )
        indexer = self._require_indexer()
        async with self._build_lock:
            built = await anyio.to_thread.run_sync(partial(indexer.build, progress, fresh=True))
        self._vectors.wake()
        if not access.restricted:
            return built
        index = self._require()

        def count() -> int:
            with index.reading() as db:
                return _note_count(db, access)

        return await anyio.to_thread.run_sync(count)

    async def catch_up(self) -> int:
        """Index now every file that changed since it was indexed, as the first build does
        (after the first build has finished); the number of files listed."""
        indexer = self._require_indexer()
        await self.built.wait()
        async with self._build_lock:
            listed = await anyio.to_thread.run_sync(indexer.build)
        self._vectors.wake()
        return listed

    async def unreadable_count(self) -> int:
        """How many files the index could not read (for an account, those it may read)."""
        index = self._require()
        access = current_access()

        def run() -> int:
            with index.reading() as db:
                if access.restricted:
                    return _unreadable(db, None, -1, access)[1]
                return queries.unreadable(db, None, 0)[1]

        return await anyio.to_thread.run_sync(run)

    async def refresh(self, path: Path) -> None:
        """Index ``path`` now (after a save), so it is searchable when this returns."""
        indexer = self._require_indexer()
        try:
            await anyio.to_thread.run_sync(indexer.refresh, path)
        except Exception:
            logger.exception("Indexing '%s' after its save failed; the watcher will retry.", path)
        self._vectors.wake()

    async def _first_build(self) -> None:
        indexer = self._require_indexer()
        try:
            async with self._build_lock:
                await anyio.to_thread.run_sync(indexer.build, abandon_on_cancel=False)
        except Exception:
            logger.exception("Building the search index failed; searches answer what it holds.")
        finally:
            self.built.set()
            self._vectors.wake()

    async def _on_changes(self, changes: list[FileChange]) -> None:
        for listener in self._listeners:
            try:
                await listener(changes)
            except Exception:
                logger.exception("A listener of the watched changes failed; watching goes on.")
        # The windows' sockets send what the listeners published before the index's thread
        # starts (it would hold the interpreter's lock while they wait to run).
        for _turn in range(SEND_TURNS):
            await anyio.lowlevel.checkpoint()
        try:
            await anyio.to_thread.run_sync(self._require_indexer().apply, changes)
        finally:
            applied, self._applied = self._applied, anyio.Event()
            applied.set()
            self._vectors.wake()

    def vectors_made(self) -> anyio.Event:
        """An event set once the notes' vectors are next brought up to date (after the first
        semantic search). Take it before looking, then wait on it, as ``applied``."""
        return self._vectors.made()

    def applied(self) -> anyio.Event:
        """An event set once the next batch of watched changes is in the index. Take it
        before looking, then wait on it: a batch applied in between still sets it."""
        return self._applied

    def _query(
        self,
        index: SearchIndex,
        parsed: Query,
        mode: SearchMode,
        position: int,
        limit: int,
        folder: str | None,
        access: Access,
    ) -> tuple[list[Found], bool, int, tuple[list[tuple[str, str]], int]]:
        visible = _visible(access)
        with index.reading() as db:
            if mode == "grep":
                found, more = queries.grep(
                    db,
                    parsed,
                    after=position,
                    limit=limit,
                    workspace=folder,
                    trigram=index.trigram,
                    visible=visible,
                )
            elif mode == "semantic" and (vectors := self._vectors.usable) is not None:
                found, more = self._fused(db, vectors, parsed, position, limit, folder, visible)
            else:
                found, more = queries.words(
                    db, parsed, offset=position, limit=limit, workspace=folder, visible=visible
                )
            count = _note_count(db, access)
            unread = _unreadable(db, folder, UNREADABLE_LISTED, access)
        return found, more, count, unread

    @staticmethod
    def _fused(
        db: sqlite3.Connection,
        vectors: SemanticIndex,
        parsed: Query,
        position: int,
        limit: int,
        folder: str | None,
        visible: queries.Visible | None,
    ) -> tuple[list[Found], bool]:
        """A page of the words ranking and the meaning ranking fused (reciprocal rank), each
        of their first ``FUSED`` notes."""
        by_words, _more = queries.words_ranking(
            db, parsed, offset=0, count=FUSED, workspace=folder, visible=visible
        )
        keep = None if visible is None else partial(queries.shown, db, visible=visible)
        near = vectors.nearest(
            db, parsed.text, count=FUSED, workspace=folder, tags=parsed.tags, keep=keep
        )
        fused = semantic.fuse([by_words, near])
        worded = set(by_words)
        page = fused[position : position + limit]
        found = [
            queries.words_hit(db, parsed, rowid) if rowid in worded else queries.lead(db, rowid)
            for rowid in page
        ]
        return [hit for hit in found if hit is not None], len(fused) > position + limit

    @staticmethod
    def _backlinks(
        index: SearchIndex, real: str, visible: queries.Visible | None
    ) -> list[tuple[str, str, int]]:
        with index.reading() as db:
            at = queries.note_at(db, real)
            return queries.backlinks(db, real, None if at is None else at[1], visible)

    def _note(
        self,
        unread_count: int,
        listed: list[tuple[str, str]],
        *,
        counted: bool = True,
        first: Sequence[str | None] = (),
    ) -> str | None:
        """What the answer lacks (``first``: notes to give before the others); ``counted``:
        the build's progress may be given in files (not to an account: the totals would
        count notes it may not see)."""
        notes: list[str] = [note for note in first if note]
        state = self._require_indexer().state
        if state.building:
            if state.total is None or not counted:
                notes.append(
                    "The index is still being built (the workspaces are being listed), so "
                    "files not indexed yet are missing from these results."
                )
            else:
                notes.append(
                    f"The index is still being built: {state.done:,} of {state.total:,} files "
                    "so far, so files not indexed yet are missing from these results."
                )
        if unread_count:
            named = "; ".join(f"{path} ({reason})" for path, reason in listed[:3])
            more = unread_count - min(3, len(listed))
            files = "1 file was" if unread_count == 1 else f"{unread_count:,} files were"
            notes.append(
                f"{files} not searched because {'it' if unread_count == 1 else 'they'} could "
                f"not be read: {named}"
                + (f", and {more:,} more" if more > 0 else "")
                + ". Convert a file that is not UTF-8 to UTF-8 to make it searchable."
            )
        return " ".join(notes) or None

    def _require(self) -> SearchIndex:
        if self._index is None:
            raise RuntimeError("SearchService must be entered (async with) before use.")
        return self._index

    def _require_indexer(self) -> Indexer:
        if self._indexer is None:
            raise RuntimeError("SearchService must be entered (async with) before use.")
        return self._indexer


def _hit(item: Found) -> SearchHit:
    return SearchHit(
        path=item.path,
        workspace=item.workspace,
        rel_path=item.rel_path,
        title=item.title,
        line=item.line,
        snippet=item.snippet,
        matches=item.matches,
    )


def _visible(access: Access) -> queries.Visible | None:
    """The index's check of a note's path for ``access`` (None: everything is visible). The
    index holds real paths, so no link is resolved again."""
    if not access.restricted:
        return None
    return lambda path: access.may_read_resolved(Path(path))


def _note_count(db: sqlite3.Connection, access: Access) -> int:
    """How many notes of the index ``access`` may read: the notes under the prefixes its
    grants cover (the index holds real paths, so no link needs resolving), counted in SQLite."""
    if not access.restricted:
        return queries.note_count(db)
    if not isinstance(access, GrantedAccess):
        return 0
    within = [
        (str(folder), "/".join(grant.prefix))
        for folder, name in access.workspaces
        for grant in access.grants
        if grant.workspace == unicodedata.normalize("NFC", name)
    ]
    return queries.note_count(db, within)


def _unreadable(
    db: sqlite3.Connection, folder: str | None, limit: int, access: Access
) -> tuple[list[tuple[str, str]], int]:
    """The first ``limit`` (-1: all) files the index could not read, and how many: for an
    account, only those it may read."""
    if not access.restricted:
        return queries.unreadable(db, folder, limit)
    every = queries.unreadable(db, folder, -1)[0]
    shown = [item for item in every if access.may_read_resolved(Path(item[0]))]
    return (shown if limit < 0 else shown[:limit]), len(shown)
