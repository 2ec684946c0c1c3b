"""What a rename, move or delete through the file service does to chats and reviews: waits keep
waiting at the new path, read positions, presence, pins and sessions follow, a pending review
follows its document; a deleted chat ends its waits as chat deletion does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from quire.api.chats import Waited
from quire.core.views import OWNER
from quire.db import chats as store
from quire.db.engine import Database
from quire.services.files import FileService
from quire.services.reviews.loop import Reviews
from tests.support.chat_world import ChatWorld, open_chat_world

pytestmark = pytest.mark.anyio

WAKE_LIMIT_S = 30


@pytest.fixture
async def cw(database: Database, tmp_path: Path) -> AsyncIterator[ChatWorld]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    # The watcher runs: it sees the old path vanish, as it does in a server.
    async with open_chat_world(database, workspace, watch=True) as opened:
        yield opened


def files_of(cw: ChatWorld) -> FileService:
    world = cw.world
    return FileService(
        world.workspaces,
        world.documents,
        world.windows,
        world.bus,
        clock=world.clock,
        chats=cw.chats,
        reviews=world.reviews,
    )


async def _wait_while(
    cw: ChatWorld, path: Path, reader: str, during: Callable[[], Awaitable[None]], **options: object
) -> Waited:
    """Start a wait on ``path``, let it block, run ``during``, and return what the wait got."""
    sleeping = cw.held()
    results: list[Waited] = []

    async def wait() -> None:
        results.append(await cw.chats.wait(OWNER, path, reader, **options))  # type: ignore[arg-type]

    with anyio.fail_after(WAKE_LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await sleeping.wait()
            await during()
    return results[0]


async def test_a_move_while_an_agent_waits_keeps_the_wait_and_the_next_post_wakes_it(
    cw: ChatWorld,
) -> None:
    path = cw.write_chat(messages=2)
    new = cw.workspace / "Archive" / "Team renamed.md"
    (cw.workspace / "Archive").mkdir()

    async def move_then_post() -> None:
        await files_of(cw).move(OWNER, path, new)
        cw.held()  # the wait goes back to sleep at the new path
        await cw.post(new, "ann", "still there?")

    waited = await _wait_while(cw, path, "bot", move_then_post, session="s-1", command="w")
    assert waited.status == "messages"
    assert [message.body for message in waited.messages] == ["still there?"]
    assert waited.next == 3
    cw.world.sleep.hold = False
    again = await cw.chats.wait(OWNER, new, "bot", timeout_ms=1000)
    assert (again.status, again.next) == ("timeout", 3)  # its position is kept at the new path
    async with cw.world.db.session() as session:
        stored = await store.get_session(session, OWNER, "s-1")
    assert stored is not None and (stored.chat_path, stored.last_kind) == (str(new), "wait")


async def test_a_folder_move_takes_the_waits_on_its_chats_along(cw: ChatWorld) -> None:
    path = cw.write_chat("Chats/team.md", messages=1)
    new = cw.workspace / "Old chats" / "team.md"

    async def move_then_post() -> None:
        await files_of(cw).move(OWNER, cw.workspace / "Chats", cw.workspace / "Old chats")
        cw.held()
        await cw.post(new, "ann", "moved with its folder")

    waited = await _wait_while(cw, path, "bot", move_then_post)
    assert [message.body for message in waited.messages] == ["moved with its folder"]


async def test_read_positions_pins_and_presence_follow_a_renamed_chat(cw: ChatWorld) -> None:
    path = cw.write_chat(messages=3)
    await cw.chats.read(OWNER, path, reader="bot")
    await cw.chats.pin(OWNER, path, True)
    await cw.chats.post(OWNER, path, "bot", "/status reviewing the plan")
    new = cw.workspace / "Chats" / "renamed.md"
    await files_of(cw).move(OWNER, path, new)
    await cw.post(new, "ann", "after the rename")
    cw.world.sleep.hold = False
    waited = await cw.chats.wait(OWNER, new, "bot", timeout_ms=1000)
    assert [message.body for message in waited.messages] == ["after the rename"]
    listed = await cw.chats.list_chats(OWNER, reader="bot")
    assert [(item.path, item.pinned) for item in listed] == [(str(new), True)]
    view = await cw.chats.read(OWNER, new)
    assert [(item.name, item.status) for item in view.presence] == [("bot", "reviewing the plan")]


async def test_deleting_a_chat_through_the_file_service_ends_its_waits_as_chat_deletion_does(
    cw: ChatWorld,
) -> None:
    path = cw.write_chat(messages=1)
    await cw.chats.read(OWNER, path, reader="bot")

    async def delete() -> None:
        await files_of(cw).delete(OWNER, path)

    waited = await _wait_while(cw, path, "bot", delete, session="s-1", command="w")
    assert waited.status == "gone"
    assert cw.world.bus.of_kind("chat-deleted") == [{"path": str(path)}]
    async with cw.world.db.session() as session:
        assert await store.get_cursor(session, OWNER, str(path), "bot") is None
        stored = await store.get_session(session, OWNER, "s-1")
    assert stored is not None and stored.last_kind == "leave"


async def test_deleting_a_folder_ends_the_waits_on_the_chats_inside(cw: ChatWorld) -> None:
    path = cw.write_chat("Chats/team.md", messages=1)

    async def delete() -> None:
        await files_of(cw).delete(OWNER, cw.workspace / "Chats")

    waited = await _wait_while(cw, path, "bot", delete)
    assert waited.status == "gone"
    assert cw.world.bus.of_kind("chat-deleted") == [{"path": str(path)}]


async def test_deleting_a_plain_note_says_nothing_about_chats(cw: ChatWorld) -> None:
    path = cw.world.write("plain.md")
    await files_of(cw).delete(OWNER, path)
    assert cw.world.bus.of_kind("chat-deleted") == []


async def test_a_pending_review_follows_its_renamed_document(cw: ChatWorld) -> None:
    world = cw.world
    path = world.write("plan.md", "# Plan\n")
    review = await world.reviews.request(OWNER, path=path, requested_by="bot")
    new = world.workspace / "Plan v2.md"
    await files_of(cw).move(OWNER, path, new)
    active = await world.reviews.active(OWNER)
    assert active is not None and (active.id, active.path) == (review.id, str(new))
    assert not await world.reviews.is_stale(active)
    latest = await world.reviews.latest_for_path(OWNER, new)
    assert latest is not None and latest.id == review.id
    assert await world.reviews.latest_for_path(OWNER, path) is None
    decided = await world.reviews.decide(OWNER, review.id, "approved")
    assert decided.path == str(new) and not decided.late
    # Stored too: a server started afterwards finds it at the new path.
    restarted = Reviews(world.db, world.bus, world.windows, world.documents, clock=world.clock)
    stored = await restarted.get(OWNER, review.id)
    assert stored.path == str(new)


async def test_the_reviews_of_notes_in_a_moved_folder_follow_them(cw: ChatWorld) -> None:
    world = cw.world
    path = world.write("drafts/plan.md", "# Plan\n")
    review = await world.reviews.request(OWNER, path=path, requested_by="bot")
    await files_of(cw).move(OWNER, world.workspace / "drafts", world.workspace / "final")
    active = await world.reviews.active(OWNER)
    assert active is not None and active.id == review.id
    assert active.path == str(world.workspace / "final" / "plan.md")
