"""The person's window, per user: tabs, the active document, views, present mode and recents.

Owns which document is open and the path rules for opening one; it never edits a document's
text (LiveDocuments does) and never renders anything (the browser does, from its events). In
multi mode a window shows only what its account may read: opening needs read access, and a
tab or recent document whose read access was taken away is left out as if it were closed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from quire.api.events import OpenData, OpenEvent, PresentData, PresentEvent, WindowEvent
from quire.api.windows import (
    Presented,
    RecentDocument,
    RecentDocuments,
    Recents,
    Tab,
    Window,
)
from quire.core.errors import EditRefused, InvalidArgument, NotOpen, PathRefused
from quire.core.views import (
    DOC_ID_LENGTH,
    RECENT_LIMIT,
    VIEWS,
    OpenMode,
    View,
    whole_number,
)
from quire.db import windows as store
from quire.db.advisory_locks import AdvisoryLocks
from quire.fs.documents import find_file
from quire.services.document_access import readable, require_readable
from quire.services.recent_documents import describe_recent
from quire.services.replicas.fanout import Alone, Fanout, Wakeups
from quire.services.replicas.turns import Turns
from quire.services.users.access import current_access

if TYPE_CHECKING:
    from quire.db.engine import Database
    from quire.services.events import EventBus
    from quire.services.live.documents import LiveDocuments
    from quire.vault.workspaces import Workspaces

TOPIC = "windows"
"""The replicas' topic of changed windows: the user's name (their cached state is stale)."""
RECENTS_KEPT = RECENT_LIMIT[1]
MAX_LINE = 4_294_967_295
_DOC_ID = re.compile(f"[0-9a-f]{{{DOC_ID_LENGTH}}}")
NO_DOCUMENT = "No document is open in Quire; open one first (open_file)."


@dataclass(frozen=True)
class _CachedWindow:
    """A user's window as stored, and the account id (None: no account) it was read for."""

    state: WindowState
    account: str | None


@dataclass(frozen=True)
class TabState:
    """An open tab: its document id, the file's resolved path, its view and opening time."""

    doc_id: str
    path: Path
    view: View
    opened_at_ms: int


@dataclass(frozen=True)
class WindowState:
    """What the window shows: the tabs in order, the active document and its view (None
    with no tab open), and whether the active document is presented."""

    tabs: tuple[TabState, ...]
    active: str | None
    view: View | None
    present: bool


@dataclass(frozen=True)
class Opened:
    """A document the window shows: its resolved path, document id and view."""

    path: Path
    doc_id: str
    view: View


@dataclass(frozen=True)
class Current:
    """The active document and its live text (unsaved edits included); ``path`` is None
    (and ``content`` empty) only when no document is open."""

    path: Path | None
    content: str
    doc_id: str | None
    dirty: bool | None
    version: str | None = None
    """The version of ``content`` (the ``base`` a rewrite may name); None with nothing open."""


@dataclass(frozen=True)
class Recent:
    """A recently opened document: its path, file name and last opening (ms since epoch)."""

    path: Path
    file_name: str
    opened_at_ms: int


class Windows:
    """The window of each user, persisted in the database and announced on the event bus."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        documents: LiveDocuments,
        workspaces: Workspaces,
        *,
        clock: Callable[[], int],
        fanout: Fanout | None = None,
    ) -> None:
        self._db = db
        self._bus = bus
        self._documents = documents
        self._workspaces = workspaces
        self._clock = clock
        self._fanout = fanout or Alone()
        self._turns = Turns("window", AdvisoryLocks(db, shared=self._fanout.state != "alone"))
        # Every change to a window goes through this class (in some replica), so its state is
        # cached in memory and forgotten on each change, here and, through the fanout, in the
        # other replicas; the version stops a read that started before a change from caching
        # what it read.
        self._states: dict[str, _CachedWindow] = {}
        self._versions: dict[str, int] = {}
        self._fanout.listen(TOPIC, Wakeups(self._forget_here, self._forget_everyone))

    async def open(
        self,
        user: str,
        path: Path,
        mode: OpenMode | None = None,
        line: int | None = None,
        *,
        verb: str = "open",
        author: str | None = None,
    ) -> Opened:
        """Open ``path`` (absolute) in a tab and make it the active document.

        The path must be a Markdown document that is not a dotfile (judged after resolving
        symlinks), exist, and read as UTF-8 text; in multi-user mode it must also lie in a
        workspace. ``mode`` sets the tab's view; without it a tab already open keeps its own
        and a new one takes the window's current view (read when nothing is open). ``line``
        (1-based) is passed to the browser to scroll to. ``verb`` names the action in refusals.
        Without read access the path is not found, as a missing file is.
        Publishes an ``open`` event (naming ``author``, the agent that opened it, when given)
        and a ``window`` event.
        """
        if mode is not None and mode not in ("read", "edit"):
            raise InvalidArgument(
                f'`mode` must be "read" or "edit", got {mode!r}.', argument="mode"
            )
        if line is not None:
            whole_number(line, "line", 1, MAX_LINE)
        require_readable(path, verb)
        resolved = await self._checked(path, verb)
        document = await self._documents.open(resolved)
        doc_id = document.doc_id
        async with self._lock(user):
            now = self._clock()
            async with self._db.session() as session, session.begin():
                window = await store.load_window(session, user)
                view = _view_for(window, doc_id, mode)
                await store.put_tab(
                    session, user, doc_id=doc_id, path=str(resolved), view=view, now_ms=now
                )
                await store.save_window(
                    session, user, active_doc_id=doc_id, present=window.present, now_ms=now
                )
                await store.touch_recent(
                    session,
                    user,
                    path=str(resolved),
                    name=resolved.name,
                    now_ms=now,
                    keep=RECENTS_KEPT,
                )
        data = OpenData(path=str(resolved), doc_id=doc_id, view=view, line=line, author=author)
        self._bus.publish(user, OpenEvent(data=data))
        await self._announce(user)
        return Opened(resolved, doc_id, view)

    async def current(self, user: str) -> Current:
        """The active document's path and live text, or ``path: None`` when none is open."""
        tab = await self._active(user)
        if tab is None:
            return Current(None, "", None, None)
        opened = await self._live(tab)
        text, version = await self._documents.read(opened.doc_id)
        dirty = self._documents.is_dirty(opened.doc_id)
        return Current(opened.path, text, opened.doc_id, dirty, version)

    async def target(self, user: str, path: Path | None = None) -> Opened:
        """The active document, loaded live, for an edit; ``path`` asserts which it must be.

        Raises NotOpen when no document is open, and EditRefused when ``path`` (compared
        after resolving symlinks) is not the open document.
        """
        tab = await self._active(user)
        if tab is None:
            raise NotOpen(NO_DOCUMENT)
        if path is not None:
            asserted = Path(await anyio.to_thread.run_sync(os.path.realpath, path))
            if asserted != tab.path:
                raise EditRefused(
                    f"`path` '{path}' is not the open document: the open document is "
                    f"'{tab.path}'. Open '{path}' first (open_file), or leave path out to "
                    "work on the open document."
                )
        return await self._live(tab)

    async def _live(self, tab: TabState) -> Opened:
        """The tab's document, loaded live if it is not yet."""
        if self._documents.get(tab.doc_id) is None:
            require_readable(tab.path, "open")
            await self._documents.open(await self._checked(tab.path, "open"))
        return Opened(tab.path, tab.doc_id, tab.view)

    async def present(
        self, user: str, path: Path | None = None, *, author: str | None = None
    ) -> Opened:
        """Show a document in Read view in present (zen) mode: ``path``, else the active one.

        Raises NotOpen when no ``path`` is given and no document is open. Publishes a
        ``present`` event (naming ``author``, the agent that asked, when given) and a
        ``window`` event.
        """
        if path is not None:
            opened = await self.open(user, path, "read", verb="present", author=author)
        else:
            tab = await self._active(user)
            if tab is None:
                raise NotOpen(
                    "No document is open to present. Pass `path` to present it, or open the "
                    "document first (open_file)."
                )
            opened = Opened(tab.path, tab.doc_id, "read")
        async with self._lock(user):
            now = self._clock()
            async with self._db.session() as session, session.begin():
                await store.set_tab_view(session, user, opened.doc_id, "read")
                await store.save_window(
                    session, user, active_doc_id=opened.doc_id, present=True, now_ms=now
                )
        data = PresentData(path=str(opened.path), doc_id=opened.doc_id, author=author)
        self._bus.publish(user, PresentEvent(data=data))
        await self._announce(user)
        return opened

    async def leave_present(self, user: str) -> WindowState:
        """Leave present mode (the person pressed Escape); the tabs stay as they are."""
        async with self._lock(user), self._db.session() as session, session.begin():
            window = await store.load_window(session, user)
            await store.save_window(
                session,
                user,
                active_doc_id=window.active_doc_id,
                present=False,
                now_ms=self._clock(),
            )
        return await self._announce(user)

    async def activate(self, user: str, doc_id: str) -> WindowState:
        """Make the open tab of ``doc_id`` the active document (the person clicked it)."""
        async with self._lock(user), self._db.session() as session, session.begin():
            window = await store.load_window(session, user)
            _require_tab(window, doc_id)
            await store.save_window(
                session,
                user,
                active_doc_id=doc_id,
                present=window.present,
                now_ms=self._clock(),
            )
        return await self._announce(user)

    async def set_view(self, user: str, doc_id: str, view: View) -> WindowState:
        """Set the view of the open tab of ``doc_id``. Raises InvalidArgument for an unknown
        view and NotOpen when no tab holds that document."""
        if view not in VIEWS:
            raise InvalidArgument(
                f"`view` must be one of {', '.join(VIEWS)}, got {view!r}.", argument="view"
            )
        if not _is_doc_id(doc_id):
            raise _no_tab(doc_id)
        async with self._lock(user), self._db.session() as session, session.begin():
            if current_access().restricted:
                _require_tab(await store.load_window(session, user), doc_id)
            if not await store.set_tab_view(session, user, doc_id, view):
                raise _no_tab(doc_id)
        return await self._announce(user)

    async def close_tab(self, user: str, doc_id: str) -> WindowState:
        """Close the tab of ``doc_id``; when it was active, the tab after it (else before it)
        becomes active, and with no tab left present mode ends. Raises NotOpen for no tab."""
        async with self._lock(user), self._db.session() as session, session.begin():
            window = await store.load_window(session, user)
            _require_tab(window, doc_id)
            await store.remove_tab(session, user, doc_id)
            active = window.active_doc_id
            if active == doc_id:
                active = _neighbour(window, doc_id)
            await store.save_window(
                session,
                user,
                active_doc_id=active,
                present=window.present and active is not None,
                now_ms=self._clock(),
            )
        return await self._announce(user)

    async def state(self, user: str) -> WindowState:
        """The user's window as the request may see it: as stored (cached between changes),
        without the tabs of documents it may not read (an active one of those leaves the
        window with no active document)."""
        state = await self._stored(user)
        access = current_access()
        return _readable_tabs(state) if access.restricted else state

    async def _active(self, user: str) -> TabState | None:
        """The user's active tab, when the request may read its document; no other tab is
        checked (each check resolves a path)."""
        tab = _active_tab(await self._stored(user))
        return tab if tab is not None and readable(tab.path) else None

    async def _stored(self, user: str) -> WindowState:
        """The user's window as stored (cached between changes, for the account it was read
        for: an account deleted and made again under the same name never gets the old one's)."""
        identity = current_access().identity
        account = None if identity is None else identity.user_id
        cached = self._states.get(user)
        if cached is not None and cached.account == account:
            return cached.state
        version = self._versions.get(user, 0)
        async with self._db.session() as session:
            window = await store.load_window(session, user)
        state = _state(window)
        if self._versions.get(user, 0) == version:
            self._states[user] = _CachedWindow(state, account)
        return state

    def _forget(self, user: str) -> None:
        self._forget_here(user)
        self._fanout.send(TOPIC, user)

    def _forget_here(self, user: str) -> None:
        self._versions[user] = self._versions.get(user, 0) + 1
        self._states.pop(user, None)

    def _forget_everyone(self) -> None:
        for user in list(self._states):
            self._forget_here(user)

    async def recent(self, user: str, limit: int = RECENT_LIMIT[2]) -> list[Recent]:
        """The user's recently opened documents, newest first; ``limit`` is 1 to 200. Those
        the request may not read are left out."""
        low, high, _ = RECENT_LIMIT
        whole_number(limit, "limit", low, high)
        restricted = current_access().restricted
        async with self._db.session() as session:
            rows = await store.list_recents(session, user, RECENTS_KEPT if restricted else limit)
        found = [Recent(Path(row.path), row.name, row.opened_at_ms) for row in rows]
        if restricted:
            found = [item for item in found if readable(item.path)][:limit]
        return found

    async def recent_documents(self, user: str, limit: int = RECENT_LIMIT[2]) -> RecentDocuments:
        """The user's recent documents (as ``recent``) that can still be read, each with its
        title, modification time and preview; those left out are counted by reason."""
        found = await self.recent(user, limit)
        paths = [item.path for item in found]
        folders = self._workspaces.openable
        return await anyio.to_thread.run_sync(describe_recent, paths, folders)

    async def _checked(self, path: Path, verb: str) -> Path:
        folders = self._workspaces.openable
        found = await anyio.to_thread.run_sync(lambda: find_file(folders, path, verb=verb))
        resolved = found.path
        if not _is_text(str(resolved)):
            raise PathRefused(
                f"Refusing to {verb} {str(resolved)!r}: its path is not UTF-8 text, which the "
                "window cannot show. Rename the file (or its folder) to a UTF-8 name."
            )
        return resolved

    async def follow_move(self, source: Path, target: Path) -> set[str]:
        """Every window's tabs (and recents) of ``source`` or of files below it show their new
        path below ``target``; each tab keeps its document id. Returns the users announced."""
        async with self._db.session() as session, session.begin():
            tabs = await store.tabs_under(session, str(source))
            for user, doc_id, old in tabs:
                new = target / Path(old).relative_to(source)
                await store.move_tab(session, user, doc_id, str(new))
                await store.move_recent(session, user, old, str(new), new.name)
        users = {user for user, _, _ in tabs}
        for user in users:
            await self._announce(user)
        return users

    async def close_deleted(self, path: Path) -> dict[str, list[str]]:
        """Close every window's tabs of ``path`` or of files below it (deleted), as close_tab
        does; returns the paths of the tabs closed, by user."""
        async with self._db.session() as session:
            tabs = await store.tabs_under(session, str(path))
        closed: dict[str, list[str]] = {}
        for user, doc_id, tab_path in tabs:
            try:
                await self.close_tab(user, doc_id)
            except NotOpen:
                continue
            closed.setdefault(user, []).append(tab_path)
        return closed

    async def _announce(self, user: str) -> WindowState:
        self._forget(user)
        # Every tab goes out: each subscription keeps the tabs its account may read.
        self._bus.publish(user, WindowEvent(data=window_answer(await self._stored(user))))
        return await self.state(user)

    def _lock(self, user: str) -> AbstractAsyncContextManager[None]:
        """The user's window's turn to change, in this server and across its replicas."""
        return self._turns.turn(user)


def window_answer(state: WindowState) -> Window:
    """The window state as the API answers it (``GET /api/window`` and the ``window`` event)."""
    tabs = tuple(
        Tab(
            doc_id=tab.doc_id,
            path=str(tab.path),
            file_name=tab.path.name,
            view=tab.view,
            opened_at=tab.opened_at_ms,
        )
        for tab in state.tabs
    )
    return Window(tabs=tabs, active=state.active, view=state.view, present=state.present)


def presented_answer(opened: Opened) -> Presented:
    """The answer of ``POST /api/window/present``: the document now presented."""
    return Presented(path=str(opened.path), doc_id=opened.doc_id)


def recents_answer(documents: list[Recent]) -> Recents:
    """The answer of ``GET /api/recent``: the recently opened documents, newest first."""
    return Recents(
        recent=tuple(
            RecentDocument(
                path=str(item.path), file_name=item.file_name, opened_at=item.opened_at_ms
            )
            for item in documents
        )
    )


def _state(window: store.StoredWindow) -> WindowState:
    tabs = tuple(
        TabState(tab.doc_id, Path(tab.path), tab.view, tab.opened_at_ms) for tab in window.tabs
    )
    active = next((tab for tab in tabs if tab.doc_id == window.active_doc_id), None)
    if active is None:
        return WindowState(tabs, None, None, False)
    return WindowState(tabs, active.doc_id, active.view, window.present)


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _active_tab(state: WindowState) -> TabState | None:
    return next((tab for tab in state.tabs if tab.doc_id == state.active), None)


def _view_for(window: store.StoredWindow, doc_id: str, mode: OpenMode | None) -> View:
    if mode is not None:
        return mode
    own = next((tab.view for tab in window.tabs if tab.doc_id == doc_id), None)
    if own is not None:
        return own
    active = next((tab.view for tab in window.tabs if tab.doc_id == window.active_doc_id), None)
    return active if active is not None else "read"


def _neighbour(window: store.StoredWindow, doc_id: str) -> str | None:
    ids = [tab.doc_id for tab in window.tabs]
    index = ids.index(doc_id)
    rest = ids[index + 1 :] + ids[:index][::-1]
    return rest[0] if rest else None


def _require_tab(window: store.StoredWindow, doc_id: str) -> None:
    """Raise NotOpen unless a tab the request may read holds ``doc_id``."""
    tab = next((tab for tab in window.tabs if tab.doc_id == doc_id), None)
    if not _is_doc_id(doc_id) or tab is None or not readable(Path(tab.path)):
        raise _no_tab(doc_id)


def _readable_tabs(state: WindowState) -> WindowState:
    """``state`` without the tabs the request may not read; with the active one among them,
    no document is active (nor presented)."""
    tabs = tuple(tab for tab in state.tabs if readable(tab.path))
    if len(tabs) == len(state.tabs):
        return state
    if all(tab.doc_id != state.active for tab in tabs):
        return WindowState(tabs, None, None, False)
    return WindowState(tabs, state.active, state.view, state.present)


def _is_doc_id(value: object) -> bool:
    return isinstance(value, str) and _DOC_ID.fullmatch(value) is not None


def _no_tab(doc_id: str) -> NotOpen:
    return NotOpen(
        f"No open tab holds the document '{doc_id}'. Read the window (GET /api/window) for "
        "the docId of each open tab, or open the document first (open_file)."
    )
