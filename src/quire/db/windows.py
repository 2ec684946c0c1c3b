"""Queries over users' windows: the window row, its tabs and the recent documents.

Plain functions over a session the caller opened and commits; no rules about what may be
opened (services decide) and no locking (the windows service serialises each user).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.views import View
from quire.db.models import Recent, Tab, User, Window
from quire.db.paths import at_or_below


@dataclass(frozen=True)
class StoredTab:
    """A tab as stored: its document, path, view, place in the tab strip and opening time."""

    doc_id: str
    path: str
    view: View
    position: int
    opened_at_ms: int


@dataclass(frozen=True)
class StoredWindow:
    """A user's window: the active document (None with no tab), present mode and the tabs
    in display order."""

    active_doc_id: str | None
    present: bool
    tabs: tuple[StoredTab, ...]


@dataclass(frozen=True)
class StoredRecent:
    """A recently opened document: its path, file name and last opening time."""

    path: str
    name: str
    opened_at_ms: int


async def ensure_user(session: AsyncSession, user_id: str, now_ms: int) -> None:
    """Create the user's row (named after its id) when it does not exist yet."""
    if await session.get(User, user_id) is None:
        session.add(User(id=user_id, name=user_id, created_at_ms=now_ms))
        await session.flush()


async def load_window(session: AsyncSession, user_id: str) -> StoredWindow:
    """The user's window; an empty one (no tabs, not presenting) when none was stored."""
    window = await session.get(Window, user_id)
    rows = await session.scalars(
        select(Tab).where(Tab.user_id == user_id).order_by(Tab.position, Tab.opened_at_ms)
    )
    tabs = tuple(
        StoredTab(row.doc_id, row.path, _view(row.view), row.position, row.opened_at_ms)
        for row in rows
    )
    if window is None:
        return StoredWindow(None, False, tabs)
    return StoredWindow(window.active_doc_id, window.present, tabs)


async def save_window(
    session: AsyncSession, user_id: str, *, active_doc_id: str | None, present: bool, now_ms: int
) -> None:
    """Store the user's active document and present mode (creating the user when needed)."""
    await ensure_user(session, user_id, now_ms)
    window = await session.get(Window, user_id)
    if window is None:
        session.add(
            Window(
                user_id=user_id,
                active_doc_id=active_doc_id,
                present=present,
                updated_at_ms=now_ms,
            )
        )
    else:
        window.active_doc_id = active_doc_id
        window.present = present
        window.updated_at_ms = now_ms
    await session.flush()


async def put_tab(
    session: AsyncSession, user_id: str, *, doc_id: str, path: str, view: View, now_ms: int
) -> None:
    """Add a tab at the end of the strip, or update the path, view and time of an open one."""
    tab = await session.get(Tab, (user_id, doc_id))
    if tab is not None:
        tab.path = path
        tab.view = view
        tab.opened_at_ms = now_ms
    else:
        last = await session.scalar(select(func.max(Tab.position)).where(Tab.user_id == user_id))
        session.add(
            Tab(
                user_id=user_id,
                doc_id=doc_id,
                path=path,
                view=view,
                position=0 if last is None else last + 1,
                opened_at_ms=now_ms,
            )
        )
    await session.flush()


async def set_tab_view(session: AsyncSession, user_id: str, doc_id: str, view: View) -> bool:
    """Set a tab's view; False when the user has no tab of that document."""
    result = await session.execute(
        update(Tab).where(Tab.user_id == user_id, Tab.doc_id == doc_id).values(view=view)
    )
    return _count(result) > 0


async def remove_tab(session: AsyncSession, user_id: str, doc_id: str) -> bool:
    """Close a tab; False when the user has no tab of that document."""
    result = await session.execute(delete(Tab).where(Tab.user_id == user_id, Tab.doc_id == doc_id))
    return _count(result) > 0


async def touch_recent(
    session: AsyncSession, user_id: str, *, path: str, name: str, now_ms: int, keep: int
) -> None:
    """Record an opening of ``path`` and keep only the user's ``keep`` newest recents."""
    recent = await session.get(Recent, (user_id, path))
    if recent is None:
        session.add(Recent(user_id=user_id, path=path, name=name, opened_at_ms=now_ms))
    else:
        recent.name = name
        recent.opened_at_ms = now_ms
    await session.flush()
    stale = await session.scalars(
        select(Recent.path)
        .where(Recent.user_id == user_id)
        .order_by(Recent.opened_at_ms.desc(), Recent.path)
        .offset(keep)
    )
    old = list(stale)
    if old:
        await session.execute(delete(Recent).where(Recent.user_id == user_id, Recent.path.in_(old)))


async def list_recents(session: AsyncSession, user_id: str, limit: int) -> list[StoredRecent]:
    """The user's recent documents, most recently opened first, at most ``limit``."""
    rows = await session.scalars(
        select(Recent)
        .where(Recent.user_id == user_id)
        .order_by(Recent.opened_at_ms.desc(), Recent.path)
        .limit(limit)
    )
    return [StoredRecent(row.path, row.name, row.opened_at_ms) for row in rows]


async def tabs_under(session: AsyncSession, path: str) -> list[tuple[str, str, str]]:
    """Every user's tabs showing ``path`` or a file below it: (user, doc id, path)."""
    rows = await session.execute(
        select(Tab.user_id, Tab.doc_id, Tab.path).where(at_or_below(Tab.path, path))
    )
    return [(user, doc_id, tab_path) for user, doc_id, tab_path in rows]


async def move_tab(session: AsyncSession, user_id: str, doc_id: str, path: str) -> None:
    """Show the tab of ``doc_id`` under its file's new ``path``."""
    await session.execute(
        update(Tab).where(Tab.user_id == user_id, Tab.doc_id == doc_id).values(path=path)
    )


async def move_recent(session: AsyncSession, user_id: str, old: str, new: str, name: str) -> None:
    """Rename a recent document's entry (its file moved); a newer entry of ``new`` wins."""
    if await session.get(Recent, (user_id, new)) is not None:
        await session.execute(delete(Recent).where(Recent.user_id == user_id, Recent.path == old))
        return
    await session.execute(
        update(Recent)
        .where(Recent.user_id == user_id, Recent.path == old)
        .values(path=new, name=name)
    )


def _view(value: str) -> View:
    match value:
        case "read" | "edit" | "source":
            return value
        case _:
            # The table's check constraint allows only the three views.
            raise ValueError(f"unknown view {value!r} in the tabs table")


def _count(result: object) -> int:
    rowcount = getattr(result, "rowcount", 0)
    return rowcount if isinstance(rowcount, int) else 0
