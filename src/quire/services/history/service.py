"""Looking back: a note's history, a version, a diff, blame, restore and the timeline.

Reads git through ``quire.vault.versions`` off the event loop; a restore goes through the live
document (every open editor merges it, as any edit) and is committed as its own commit.
Paths are absolute; only workspaces with history on answer.

For a signed-in account, reading a note's history, a version, a diff or blame needs read access
to the note, and a restore write access; without read the note is "not found". Commits that
name a path it may not read (a rename from a hidden folder, a commit touching a hidden note)
are left out of its pages, and a version found under a hidden former name is not found.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

import anyio

from quire.api.history import (
    Blame,
    BlameLine,
    HistoryEntry,
    HistoryPage,
    Restored,
    Version,
    VersionDiff,
)
from quire.core.errors import FileMissing, InvalidArgument, NotUtf8, PathRefused
from quire.core.history import check_rev, restore_message
from quire.core.views import document_id
from quire.fs.resolve import resolve_leniently
from quire.fs.sandbox import is_document_name
from quire.markdown.diff import unified_diff
from quire.services.history.recorder import HistoryRecorder
from quire.services.live.documents import LiveDocuments
from quire.services.users.access import Access, current_access
from quire.vault import versions
from quire.vault.commits import Repository
from quire.vault.versions import LogEntry

PAGE: Final = (1, 200, 20)
"""The fewest, most and default commits of one page."""

_MAX_SKIP: Final = 10_000_000

_MOST_LOOKED_AT: Final = 100_000
"""How many commits a page for an account reads at most to find its visible ones."""

_T = TypeVar("_T")


class HistoryService:
    """History of the workspaces that keep it (see ``HistoryRecorder``)."""

    def __init__(self, recorder: HistoryRecorder, documents: LiveDocuments) -> None:
        self.recorder = recorder
        self._documents = documents

    async def note_history(
        self, path: Path, *, limit: int | None = None, cursor: str | None = None
    ) -> HistoryPage:
        """The commits of the note ``path``, newest first, renames followed (for an account,
        those naming only paths it may read; its cursor counts those)."""
        access = current_access()
        access.require_read(path)
        repository, rel = self._repository(path)
        count, skip = _limit(limit), _skip(cursor)
        if not access.restricted:
            found = await anyio.to_thread.run_sync(
                lambda: versions.note_log(repository.git, rel, skip=skip, limit=count + 1)
            )
            return _page(repository, found, count, skip, path=str(path))

        def fetch(most: int) -> list[LogEntry]:
            return versions.note_log(repository.git, rel, skip=0, limit=most)

        shown = await anyio.to_thread.run_sync(
            lambda: _visible(fetch, lambda entry: _readable(access, repository, entry), skip, count)
        )
        return _page(repository, shown[skip:], count, skip, path=str(path))

    async def timeline(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        author: str | None = None,
        agent: str | None = None,
    ) -> HistoryPage:
        """Recent commits across every workspace with history (the first repository's, then
        the next's), newest first; ``author`` keeps a person's (their own and their agents'),
        ``agent`` an agent's."""
        count, skip = _limit(limit), _skip(cursor)
        roots = {repo.root: repo for repo in map(self._repo_of_workspace, self.recorder.workspaces)}
        access = current_access()

        def fetch(most: int) -> list[tuple[Repository, LogEntry]]:
            found = [
                (repo, entry)
                for repo in roots.values()
                for entry in versions.timeline(
                    repo.git, "", skip=0, limit=most, account=author, agent=agent
                )
            ]
            found.sort(key=lambda pair: -pair[1].time_s)
            return found[:most]

        def run() -> list[tuple[Repository, LogEntry]]:
            if not access.restricted:
                return fetch(skip + count + 1)[skip:]
            shown = _visible(fetch, lambda pair: _readable(access, *pair), skip, count)
            return shown[skip:]

        picked = await anyio.to_thread.run_sync(run)
        return HistoryPage(
            entries=tuple(_entry(repo, entry) for repo, entry in picked[:count]),
            next_cursor=str(skip + count) if len(picked) > count else None,
        )

    async def version(self, path: Path, rev: str) -> Version:
        """The note ``path`` as it was at ``rev``, byte for byte."""
        access = current_access()
        access.require_read(path)
        repository, rel = self._repository(path)
        commit, data = await anyio.to_thread.run_sync(lambda: _read(repository, rel, rev, access))
        return Version(
            path=str(path), rev=commit, content=_text(data, path, commit), size=len(data)
        )

    async def diff(self, path: Path, from_rev: str, to_rev: str) -> VersionDiff:
        """The unified diff of the note from ``from_rev`` to ``to_rev``."""
        old = await self.version(path, from_rev)
        new = await self.version(path, to_rev)
        made = unified_diff(
            old.content,
            new.content,
            label_a=f"{path}@{old.rev[:7]}",
            label_b=f"{path}@{new.rev[:7]}",
        )
        return VersionDiff(
            path=str(path),
            from_rev=old.rev,
            to_rev=new.rev,
            diff=made.diff,
            added=made.added,
            removed=made.removed,
        )

    async def blame(self, path: Path, rev: str = "HEAD") -> Blame:
        """Each line of the note at ``rev`` and who last changed it."""
        access = current_access()
        access.require_read(path)
        repository, rel = self._repository(path)
        check_rev(rev)

        def run() -> tuple[str, list[versions.BlameLine]]:
            commit, _data = _read(repository, rel, rev, access)
            return commit, versions.blame(repository.git, commit, rel)

        commit, lines = await anyio.to_thread.run_sync(run)
        return Blame(
            path=str(path),
            rev=commit,
            lines=tuple(
                BlameLine(
                    line=item.line,
                    text=item.text,
                    commit=item.commit,
                    author=item.author.name,
                    agent=item.author.agent,
                    time_ms=item.time_s * 1000,
                )
                for item in lines
            ),
        )

    async def restore(self, path: Path, rev: str, *, author: str) -> Restored:
        """Make the note hold its text at ``rev`` again, through its live document (opened if
        needed), saved and committed as ``Restore to REV``; waits for that commit. An account
        needs write access to the note."""
        current_access().require_write(path)
        version = await self.version(path, rev)
        live = self._documents.get(document_id(path)) or await self._documents.open(path)
        was_open = live.connections > 0
        commit = await self.recorder.labelled(
            live.path,
            restore_message(version.rev),
            lambda: self._documents.set_content(
                live.doc_id, version.content, author=author, save=True
            ),
        )
        return Restored(path=str(path), rev=version.rev, commit=commit, live=was_open)

    def _repository(self, path: Path) -> tuple[Repository, str]:
        if not isinstance(path, Path) or not path.is_absolute():
            raise InvalidArgument(f"`path` must be absolute, got {str(path)!r}.", argument="path")
        if not is_document_name(path.name):
            raise PathRefused(
                f"'{path}' is not a Markdown document (.md .markdown .mdown .mkd .mdx, not a "
                "dotfile): only notes' history is shown here."
            )
        found = self.recorder.repository_of(resolve_leniently(path))
        if found is None:
            raise InvalidArgument(
                f"No history is kept for '{path}': it is not in a workspace whose history is "
                "on. Serve a folder that is a git repository, or set `history.enabled = true` "
                "in quire.toml and restart the server.",
                argument="path",
            )
        return found

    def _repo_of_workspace(self, workspace: Path) -> Repository:
        return self._repository(workspace / "x.md")[0]


def _read(repository: Repository, rel: str, rev: str, access: Access) -> tuple[str, bytes]:
    commit = versions.resolve(repository.git, check_rev(rev))
    blob = versions.blob_at(repository.git, commit, rel)
    if blob is None:
        # Renamed since: the name it had at that commit is in its followed history (a name
        # the account may not read is no way to it).
        for entry in versions.note_log(repository.git, rel, skip=0, limit=1000):
            for name in (entry.path, entry.old_path):
                if (
                    name
                    and name != rel
                    and (not access.restricted or access.may_read(repository.root / name))
                ):
                    blob = versions.blob_at(repository.git, commit, name)
                    if blob is not None:
                        return commit, versions.read_blob(repository.git, blob)
        raise FileMissing(
            f"'{rel}' did not exist at {commit[:7]}. Pick a revision from its history "
            "(quire history PATH, or get_history)."
        )
    return commit, versions.read_blob(repository.git, blob)


def _text(data: bytes, path: Path, commit: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8(
            f"'{path}' at {commit[:7]} is not UTF-8 text (byte {exc.start}), so it cannot be "
            "shown or restored here; read it with `git show`."
        ) from None


def _limit(limit: int | None) -> int:
    low, high, default = PAGE
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int) or not low <= limit <= high:
        raise InvalidArgument(
            f"`limit` must be a whole number from {low} to {high}, got {limit!r}.",
            argument="limit",
        )
    return limit


def _skip(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not isinstance(cursor, str) or not cursor.isascii() or not cursor.isdigit():
        raise InvalidArgument(
            f"`cursor` {cursor!r} is not a cursor this server gave out: pass the nextCursor "
            "of the previous page, or leave it out for the newest commits.",
            argument="cursor",
        )
    skip = int(cursor)
    if skip > _MAX_SKIP:
        raise InvalidArgument(f"`cursor` {cursor!r} is past the end.", argument="cursor")
    return skip


def _readable(access: Access, repository: Repository, entry: LogEntry) -> bool:
    """Whether every path ``entry`` names may be read (a commit naming none is not shown)."""
    names = entry.paths or tuple(name for name in (entry.path, entry.old_path) if name)
    return bool(names) and all(access.may_read(repository.root / name) for name in names)


def _visible(
    fetch: Callable[[int], list[_T]], keep: Callable[[_T], bool], skip: int, count: int
) -> list[_T]:
    """The first ``skip + count + 1`` items ``keep`` accepts of the newest ``fetch(n)`` gives,
    reading more (up to ``_MOST_LOOKED_AT``) while too few are accepted. Blocking."""
    wanted = skip + count + 1
    most = wanted
    while True:
        found = fetch(most)
        shown = [item for item in found if keep(item)]
        if len(shown) >= wanted or len(found) < most or most >= _MOST_LOOKED_AT:
            return shown[:wanted]
        most = min(most * 4, _MOST_LOOKED_AT)


def _page(
    repository: Repository, found: list[LogEntry], count: int, skip: int, *, path: str | None
) -> HistoryPage:
    more = len(found) > count
    return HistoryPage(
        path=path,
        entries=tuple(_entry(repository, item) for item in found[:count]),
        next_cursor=str(skip + count) if more else None,
    )


def _entry(repository: Repository, item: LogEntry) -> HistoryEntry:
    status = item.status if item.status in "AMDRCTUX" and item.status else "M"
    return HistoryEntry(
        commit=item.commit,
        short=item.commit[:7],
        author=item.author.name,
        email=item.author.email,
        agent=item.author.agent,
        account=item.author.account,
        time_ms=item.time_s * 1000,
        message=item.message,
        path=None if item.path is None else str(repository.root / item.path),
        status=status,  # type: ignore[arg-type]
        old_path=None if item.old_path is None else str(repository.root / item.old_path),
    )
