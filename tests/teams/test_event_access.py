"""Which events an account's window hears, kind by kind: trimmed to what it may read, and
nothing of a kind without a rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.api.events import (
    ChatData,
    ChatEvent,
    DeletedData,
    DeletedEvent,
    Event,
    NoticeEvent,
    OpenData,
    OpenEvent,
    ReviewData,
    ReviewEvent,
    TreeEvent,
    WindowEvent,
)
from quire.api.files import TreeChange, TreeData
from quire.api.reviews import ReviewRecord
from quire.api.windows import Tab, Window
from quire.core.teams.grants import Grant
from quire.services.event_access import visible_event
from quire.services.events import EventBus
from quire.services.users.access import EVERYTHING, GrantedAccess, acting_as
from quire.services.users.identity import Identity

pytestmark = pytest.mark.anyio


@pytest.fixture
def team(tmp_path: Path) -> Path:
    folder = tmp_path / "team"
    for name in ("open", "secret", "notes-old"):
        (folder / name).mkdir(parents=True)
    return folder.resolve()


def reader(team: Path, *prefixes: str) -> GrantedAccess:
    grants = tuple(Grant("team", tuple(p.split("/")), "read") for p in prefixes)
    return GrantedAccess(Identity("u1", "alice", "collaborator"), grants, ((team, "team"),))


def opened(path: Path) -> OpenEvent:
    return OpenEvent(data=OpenData(path=str(path), doc_id="a" * 24, view="read"))


def tree(team: Path, *changes: TreeChange, rescan: bool = False) -> TreeEvent:
    return TreeEvent(data=TreeData(workspace=str(team), changes=changes, rescan=rescan))


def test_an_event_about_one_note_goes_only_to_its_readers(team: Path) -> None:
    access = reader(team, "open")
    plan, keys = opened(team / "open/plan.md"), opened(team / "secret/keys.md")
    assert visible_event(plan, access) == plan
    assert visible_event(keys, access) is None
    assert visible_event(opened(team / "open/../secret/keys.md"), access) is None
    assert visible_event(opened(team / "notes-old/a.md"), reader(team, "notes")) is None
    chat = ChatEvent(data=ChatData(path=str(team / "secret/c.md"), number=1, author="x"))
    assert visible_event(chat, access) is None
    assert visible_event(keys, EVERYTHING) == keys


def test_a_symlink_to_a_secret_note_is_judged_by_where_it_leads(team: Path) -> None:
    (team / "secret/keys.md").write_text("# Keys\n", encoding="utf-8")
    (team / "open/link.md").symlink_to(team / "secret/keys.md")
    assert visible_event(opened(team / "open/link.md"), reader(team, "open")) is None


def test_a_window_event_keeps_the_readable_tabs_only(team: Path) -> None:
    tabs = (
        Tab(
            doc_id="a" * 24,
            path=str(team / "open/p.md"),
            file_name="p.md",
            view="read",
            opened_at=1,
        ),
        Tab(
            doc_id="b" * 24,
            path=str(team / "secret/k.md"),
            file_name="k.md",
            view="edit",
            opened_at=2,
        ),
    )
    on_secret = WindowEvent(data=Window(tabs=tabs, active="b" * 24, view="edit", present=True))
    shown = visible_event(on_secret, reader(team, "open"))
    assert isinstance(shown, WindowEvent)
    assert [tab.file_name for tab in shown.data.tabs] == ["p.md"]
    assert (shown.data.active, shown.data.view, shown.data.present) == (None, None, False)
    on_open = WindowEvent(data=Window(tabs=tabs, active="a" * 24, view="read", present=False))
    shown = visible_event(on_open, reader(team, "open"))
    assert isinstance(shown, WindowEvent)
    assert shown.data.active == "a" * 24


def test_tree_changes_are_trimmed_and_moves_across_the_line_become_one_side(team: Path) -> None:
    access = reader(team, "open")
    into = TreeChange(
        action="moved", path=str(team / "secret/a.md"), to=str(team / "open/a.md"), is_folder=False
    )
    out = TreeChange(
        action="moved", path=str(team / "open/b.md"), to=str(team / "secret/b.md"), is_folder=False
    )
    hidden = TreeChange(action="created", path=str(team / "secret/c.md"), is_folder=False)
    folder = TreeChange(action="created", path=str(team / "secret"), is_folder=True)
    shown = visible_event(tree(team, into, out, hidden, folder), access)
    assert isinstance(shown, TreeEvent)
    assert [(c.action, Path(c.path).name, c.to) for c in shown.data.changes] == [
        ("created", "a.md", None),
        ("deleted", "b.md", None),
    ]
    assert visible_event(tree(team, hidden, folder), access) is None
    deep = reader(team, "secret/inner")
    seen = visible_event(tree(team, folder), deep)
    assert isinstance(seen, TreeEvent)  # a folder on the way to a grant shows by name
    assert visible_event(tree(team, rescan=True), access) == tree(team, rescan=True)
    assert visible_event(tree(team, rescan=True), reader(team)) is None


def test_review_deleted_and_notice_events(team: Path) -> None:
    access = reader(team, "open")

    def review(path: str | None) -> ReviewEvent:
        record = ReviewRecord(
            review_id="r",
            status="pending",
            verdict=None,
            comments=None,
            late=False,
            superseded_by=None,
            path=path,
            content=None if path else "inline",
            content_hash="h",
            requested_by="agent",
            timeout_ms=5000,
            created_at=1,
            deadline=2,
            decided_at=None,
        )
        return ReviewEvent(data=ReviewData(action="new", review=record))

    assert visible_event(review(None), access) is not None
    assert visible_event(review(str(team / "open/p.md")), access) is not None
    assert visible_event(review(str(team / "secret/k.md")), access) is None
    deleted = DeletedEvent(
        data=DeletedData(
            path=str(team / "open"),
            trash_id="t",
            paths=(str(team / "open/p.md"),),
        )
    )
    assert visible_event(deleted, access) == deleted
    gone = DeletedEvent(
        data=DeletedData(
            path=str(team / "secret"), trash_id="t", paths=(str(team / "secret/k.md"),)
        )
    )
    assert visible_event(gone, access) is None
    notice = NoticeEvent.model_validate(
        {
            "data": {
                "action": "removed",
                "notice": {
                    "session_id": "s",
                    "kind": "idle",
                    "harness": "claude-code",
                    "machine_label": "m",
                    "message": "m",
                    "created_at": 1,
                    "expires_at": 2,
                },
            }
        }
    )
    assert visible_event(notice, access) == notice


def test_a_kind_without_a_rule_is_never_delivered_to_an_account(team: Path) -> None:
    class Unknown:
        kind = "future"

    strange: Event = Unknown()  # type: ignore[assignment]
    assert visible_event(strange, reader(team, "open")) is None
    assert visible_event(strange, EVERYTHING) is strange


async def test_a_subscription_made_as_an_account_filters_what_it_hears(team: Path) -> None:
    bus = EventBus()
    with acting_as(reader(team, "open")):
        subscription = bus.subscribe("alice")
    async with subscription as events:
        bus.publish("alice", opened(team / "secret/k.md"))
        bus.publish("alice", opened(team / "open/p.md"))
        bus.close()
        heard = [event async for event in events]
    assert heard == [opened(team / "open/p.md")]
