"""The link updates of a rename or move: which notes it would rewrite, and rewriting them.

Which notes may link to the moved file or folder comes from the search index's links table
once its first build is done (and, for a folder or a file that is not a note, the notes that
hold its name); before that every note of the workspaces is read. Each candidate's current
text (the live one when it is open) then goes through the pure rule
``quire.markdown.relink``, which decides. A rewrite goes through the live document when the
note is open (merged with typing, then saved), else it is an atomic write through
``quire.fs``; it always starts from the note's text at that moment. An account's plan holds
only the notes it may change (links in the others are left as they are), and names only the
unreadable files it may read.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from urllib.parse import quote

import anyio

from quire.api.files import LinkUpdate, LinkUpdates
from quire.core.errors import QuireError
from quire.core.limits import is_markdown_name
from quire.fs.documents import read_document, write_document
from quire.fs.resolve import resolve_leniently
from quire.markdown.relink import Relinked, Relocation, relink
from quire.markdown.titles import document_title
from quire.services.live.document import LiveDocument
from quire.services.live.documents import LiveDocuments
from quire.services.search import SearchService
from quire.services.users.access import current_access
from quire.vault import files as ops
from quire.vault.workspaces import Workspaces

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plan:
    """A move being considered: the relocation (real paths) and the notes it would rewrite
    (their paths before the move) with what would change, and those that could not be read."""

    move: Relocation
    notes: tuple[tuple[Path, str, Relinked], ...]
    unreadable: tuple[str, ...]

    def moved_to(self, old: Path, new: Path) -> Plan:
        """This plan for the move as it happened (its real paths)."""
        move = replace(self.move, old=PurePosixPath(old), new=PurePosixPath(new))
        return replace(self, move=move)

    def answer(self) -> LinkUpdates:
        """The plan as the ``/api/files/links`` answer."""
        return LinkUpdates(
            path=str(self.move.old),
            to=str(self.move.new),
            notes=tuple(
                LinkUpdate(path=str(path), title=title, links=found.links, lines=found.lines)
                for path, title, found in self.notes
            ),
            unreadable=self.unreadable,
        )


class LinkUpdater:
    """Plans and applies the link updates of moves in ``workspaces``."""

    def __init__(
        self,
        workspaces: Workspaces,
        documents: LiveDocuments,
        search: SearchService | None,
        *,
        on_written: Callable[[Path], None],
    ) -> None:
        self._workspaces = workspaces
        self._folders = workspaces.inside
        self._documents = documents
        self._search = search
        self._on_written = on_written

    async def plan(self, path: Path, to: Path) -> Plan:
        """What moving ``path`` to ``to`` would rewrite; writes nothing. Refuses what the move
        would refuse for its source (missing, a dotfile, a served folder) and a bad new name."""
        move = await anyio.to_thread.run_sync(self._relocation, path, to)
        candidates, unreadable = await self._candidates(move)
        access = current_access()
        if access.restricted:
            candidates, unreadable = await anyio.to_thread.run_sync(
                lambda: (
                    {note for note in candidates if access.may_write(note)},
                    [item for item in unreadable if access.may_read(Path(item))],
                )
            )
        notes: list[tuple[Path, str, Relinked]] = []
        for note in sorted(candidates):
            text = await self._current_text(note)
            if text is None:
                unreadable.append(str(note))
                continue
            root = self._workspaces.workspace_of(note)
            if root is None:
                continue
            found = relink(text, PurePosixPath(note), PurePosixPath(root), move)
            if found.links:
                notes.append((note, document_title(text, note.name), found))
        return Plan(move, tuple(notes), tuple(sorted(set(unreadable))))

    async def apply(self, plan: Plan, user: str) -> tuple[str, ...]:
        """Rewrite, after the move, every note ``plan`` lists, from its text now; the paths
        written (after the move). A note that cannot be rewritten is logged and left as is."""
        written: list[str] = []
        for before, _title, _found in plan.notes:
            root = self._workspaces.workspace_of(before)
            if root is None:
                continue
            now = Path(plan.move.place(PurePosixPath(before)))
            try:
                if await self._rewrite(now, before, root, plan.move, user):
                    written.append(str(now))
            except QuireError as exc:
                logger.warning("The links in '%s' were not updated: %s", now, exc)
        return tuple(written)

    def _relocation(self, path: Path, to: Path) -> Relocation:
        src, info = ops.reach_entry(self._folders, path, verb="move")
        with src:
            is_folder = stat.S_ISDIR(info.st_mode)
            old = src.path
        with ops.reach_new(self._folders, to, verb="move") as dst:
            new = dst.path
        old_root = self._workspaces.workspace_of(old)
        new_root = self._workspaces.workspace_of(new)
        return Relocation(
            PurePosixPath(old),
            PurePosixPath(new),
            None if old_root is None else PurePosixPath(old_root),
            None if new_root is None else PurePosixPath(new_root),
            is_folder,
        )

    async def _candidates(self, move: Relocation) -> tuple[set[Path], list[str]]:
        old = Path(move.old)
        rel = None if move.old_root is None else old.relative_to(move.old_root).as_posix()
        needles: list[str] = []
        if move.is_folder or not is_markdown_name(old.name):
            # The links table holds links to notes only: a link to a picture (or into the
            # folder) names the file or folder somewhere in its text, as written or encoded.
            needles = list(dict.fromkeys((old.name, quote(old.name, safe=""))))
        indexed = None
        if self._search is not None:
            indexed = await self._search.linking(old, rel, folder=move.is_folder, needles=needles)
        if indexed is not None:
            found, unreadable = indexed
            return {Path(item) for item in found}, list(unreadable)
        listing = await anyio.to_thread.run_sync(self._workspaces.all_files)
        paths = await anyio.to_thread.run_sync(
            lambda: {resolve_leniently(item.path) for item in listing.files}
        )
        return paths, []

    async def _current_text(self, note: Path) -> str | None:
        live = self._live(note)
        if live is not None:
            return live.text()
        try:
            _found, text = await anyio.to_thread.run_sync(read_document, self._folders, note)
        except QuireError:
            return None
        return text

    async def _rewrite(
        self, now: Path, before: Path, root: Path, move: Relocation, user: str
    ) -> bool:
        note, workspace = PurePosixPath(before), PurePosixPath(root)
        live = self._live(now)
        if live is not None:
            text, version = await self._documents.read(live.doc_id)
            found = relink(text, note, workspace, move)
            if not found.links:
                return False
            await self._documents.set_content(
                live.doc_id, found.text, author=user, save=True, base=version
            )
            return True

        def run() -> bool:
            got, text = read_document(self._folders, now)
            result = relink(text, note, workspace, move)
            if not result.links:
                return False
            write_document(self._folders, got.path, result.text, folder=got.folder)
            return True

        changed = await anyio.to_thread.run_sync(run)
        if changed:
            self._on_written(now)
        return changed

    def _live(self, path: Path) -> LiveDocument | None:
        for live in self._documents.open_documents():
            if live.path == path:
                return live
        return None
