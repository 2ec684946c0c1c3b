"""The server's composition: every service built once, over one database and one event bus.

Owns the order things open and close (reverse order, even after a failure); holds no
behaviour of its own and knows nothing of HTTP.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio

from quire.core.state import inbox_folder
from quire.db.advisory_locks import AdvisoryLocks
from quire.db.engine import Database, open_database
from quire.services.agents.machine import MachineFacts
from quire.services.approvals.chat_lines import AUTHOR, ChatLines, Post
from quire.services.approvals.notices import Notices
from quire.services.approvals.queue import Approvals
from quire.services.chat.chats import ChatService
from quire.services.events import EventBus
from quire.services.export import ExportService
from quire.services.files import FileService, TreeFeed
from quire.services.history.journal import JOURNAL_FILE, Journal
from quire.services.history.recorder import HistoryRecorder
from quire.services.history.repositories import open_repositories
from quire.services.history.service import HistoryService
from quire.services.live.documents import LiveDocuments
from quire.services.replicas.fanout import Fanout
from quire.services.replicas.opening import open_fanout
from quire.services.reviews.loop import Reviews
from quire.services.search import INDEX_FILE, SearchService
from quire.services.users.team import Team
from quire.services.windows import Windows
from quire.settings.model import Settings
from quire.vault.temp_files import remove_when_stale, sweep
from quire.vault.watch import FileChange
from quire.vault.workspaces import Workspaces


@dataclass(frozen=True)
class AppServices:
    """Everything a running server's transports call: one instance per server."""

    settings: Settings
    database: Database
    bus: EventBus
    workspaces: Workspaces
    documents: LiveDocuments
    windows: Windows
    reviews: Reviews
    token: str
    """The API token every request but /health must carry (or trade for a session cookie)."""
    clock: Callable[[], int]
    """Milliseconds since the epoch; tests pass a fake one."""
    machine: MachineFacts
    """The machine the agents page connects agents on (its home folder, PATH and ``quire``
    program): read once by the composition root; tests pass a temporary one."""
    chats: ChatService | None = None
    """The chats; None only in test harnesses that build the services by hand."""
    export: ExportService | None = None
    """Exports (PDF, HTML, DOCX, EPUB); None only in test harnesses that build them by hand."""
    search: SearchService | None = None
    """The search index; None only in test harnesses that build the services by hand."""
    files: FileService | None = None
    """The file operations; None only in test harnesses that build the services by hand."""
    history: HistoryService | None = None
    """History (git); None only in test harnesses that build the services by hand."""
    approvals: Approvals | None = None
    """Agent approvals; None only in test harnesses that build the services by hand."""
    notices: Notices | None = None
    """Agent notices; None only in test harnesses that build the services by hand."""
    team: Team | None = None
    """Accounts, sign-in and grants: set in multi mode only."""
    fanout: Fanout | None = None
    """The signals to the other replicas (None only in test harnesses)."""


@asynccontextmanager
async def open_services(
    settings: Settings,
    *,
    token: str,
    clock: Callable[[], int],
    machine: MachineFacts,
    environ: Mapping[str, str] | None = None,
) -> AsyncIterator[AppServices]:
    """``async with open_services(settings, token=…, clock=…, machine=…) as services``.

    Removes the stale temp files a killed server left in the workspaces (those not stale yet
    once they are), opens (and migrates) the database, starts the live documents' file
    watcher, builds the window and review services, opens the search index (its first build
    runs in the background) (restoring pending reviews and starting their deadline timer),
    and on exit closes them in reverse order: unsaved edits are flushed to the database
    before it closes, and pending history commits are made. ``environ`` is the environment
    git runs with (default: this process's).
    """
    async with AsyncExitStack() as stack:
        workspaces = Workspaces(
            settings.workspaces,
            allowed=(*settings.allowed_folders, *_inbox(settings.state_dir)),
        )
        await _clean_temp_files(stack, workspaces)
        database = await open_database(settings.database_url)
        stack.push_async_callback(database.close)
        fanout = await stack.enter_async_context(open_fanout(settings, database))
        bus = EventBus(fanout)
        stack.callback(bus.close)
        repositories = await anyio.to_thread.run_sync(
            open_repositories,
            settings,
            workspaces.folders,
            os.environ if environ is None else environ,
        )
        recorder = await stack.enter_async_context(
            HistoryRecorder(
                repositories,
                Journal(settings.state_dir / JOURNAL_FILE),
                window_s=settings.history_window_s,
                clock=clock,
                shared_locks=AdvisoryLocks(database, shared=fanout.state != "alone"),
            )
        )
        documents = await stack.enter_async_context(
            LiveDocuments(database, bus, folders=workspaces.openable, clock=clock, fanout=fanout)
        )
        documents.on_written(
            lambda path, author, text: recorder.saved(path, author, text.encode("utf-8"))
        )
        windows = Windows(database, bus, documents, workspaces, clock=clock, fanout=fanout)
        reviews = await stack.enter_async_context(
            Reviews(database, bus, windows, documents, clock=clock, fanout=fanout)
        )
        chats = await stack.enter_async_context(
            ChatService(
                database,
                bus,
                documents,
                workspaces,
                clock=clock,
                history=recorder,
                multi=settings.multi,
                fanout=fanout,
            )
        )
        export = ExportService(browser=settings.export_browser)
        stack.push_async_callback(export.aclose)
        search = await stack.enter_async_context(
            SearchService(workspaces, settings.state_dir / INDEX_FILE)
        )
        documents.on_saved(search.refresh)
        files = FileService(
            workspaces,
            documents,
            windows,
            bus,
            clock=clock,
            search=search,
            history=recorder,
            chats=chats,
            reviews=reviews,
        )
        documents.on_saved(files.saved)
        feed = await stack.enter_async_context(TreeFeed(workspaces, bus, files.recent))
        search.on_watched(feed.watched)

        async def listing_changed(changes: list[FileChange]) -> None:
            workspaces.changed()  # the next file listing reads sizes and times anew

        search.on_watched(listing_changed)
        lines = ChatLines(_chat_poster(chats) if settings.chat_enabled else None, clock=clock)
        approvals = Approvals(database, bus, clock=clock, lines=lines, fanout=fanout)
        notices = Notices(database, bus, approvals, clock=clock, lines=lines)
        if settings.approvals_enabled:
            chats.sessions.on_released(notices.agent_stopped)
        yield AppServices(
            settings=settings,
            database=database,
            bus=bus,
            workspaces=workspaces,
            documents=documents,
            windows=windows,
            reviews=reviews,
            token=token,
            clock=clock,
            machine=machine,
            chats=chats,
            export=export,
            search=search,
            files=files,
            history=HistoryService(recorder, documents),
            approvals=approvals,
            notices=notices,
            team=Team(database, workspaces.folders, clock=clock) if settings.multi else None,
            fanout=fanout,
        )


def _chat_poster(chats: ChatService) -> Post:
    """Posts an approval's neutral line into a chat as Quire, through the chat's one append."""

    async def post(user: str, chat_path: str, text: str) -> object:
        return await chats.post(user, Path(chat_path), AUTHOR, text)

    return post


def _inbox(state_dir: Path) -> tuple[Path, ...]:
    """The inbox of ``quire open -`` (created owner-only when missing), whose documents the
    server opens too; none when it cannot be made (then only piped documents fail to open)."""
    folder = inbox_folder(state_dir)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        logging.getLogger(__name__).warning("Cannot create the inbox '%s': %s", folder, exc)
        return ()
    return (folder,)


async def _clean_temp_files(stack: AsyncExitStack, workspaces: Workspaces) -> None:
    """Remove the workspaces' stale Quire temp files now, and the fresh ones once stale (in
    the background, until the services close)."""
    swept = await anyio.to_thread.run_sync(lambda: sweep(workspaces.folders))
    if not swept.fresh:
        return
    group = await stack.enter_async_context(anyio.create_task_group())
    stack.callback(group.cancel_scope.cancel)
    for path in swept.fresh:
        group.start_soon(remove_when_stale, path)
