"""Moves between two workspaces of one server: the note, its open document and its tab follow,
and the rules of a move inside one workspace hold at the destination."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from quire.core.errors import NameTaken, PathRefused
from quire.core.views import OWNER
from quire.db.engine import Database
from quire.services.files import FileService
from tests.support.world import World, open_world

pytestmark = pytest.mark.anyio


@pytest.fixture
async def world(database: Database, tmp_path: Path) -> AsyncIterator[World]:
    first, second = (tmp_path / "first").resolve(), (tmp_path / "second").resolve()
    first.mkdir()
    second.mkdir()
    async with open_world(database, first, more_workspaces=(second,)) as opened:
        opened.extra["files"] = FileService(
            opened.workspaces, opened.documents, opened.windows, opened.bus, clock=opened.clock
        )
        opened.extra["second"] = second
        yield opened


def files_of(world: World) -> FileService:
    service = world.extra["files"]
    assert isinstance(service, FileService)
    return service


def second_of(world: World) -> Path:
    second = world.extra["second"]
    assert isinstance(second, Path)
    return second


async def test_an_open_note_moved_to_another_workspace_keeps_its_buffer_and_tab(
    world: World,
) -> None:
    files, second = files_of(world), second_of(world)
    path = world.write("plan.md", "# Plan\n")
    opened = await world.windows.open(OWNER, path, "edit")
    await world.documents.set_content(opened.doc_id, "# Plan\n\nunsaved\n", author="me")
    moved = await files.move(OWNER, path, second / "plan.md")
    assert moved.documents_followed == 1
    live = world.documents.get(opened.doc_id)
    assert live is not None and live.path == second / "plan.md" and live.is_dirty
    state = await world.windows.state(OWNER)
    assert [(tab.doc_id, tab.path) for tab in state.tabs] == [(opened.doc_id, second / "plan.md")]
    await world.documents.save(opened.doc_id)
    assert (second / "plan.md").read_text(encoding="utf-8") == "# Plan\n\nunsaved\n"
    assert not path.exists()


async def test_a_folder_moves_to_another_workspace_with_its_notes(world: World) -> None:
    files, second = files_of(world), second_of(world)
    (world.workspace / "area").mkdir()
    world.write("area/a.md", "# A\n")
    moved = await files.move(OWNER, world.workspace / "area", second / "area")
    assert moved.is_folder
    assert (second / "area" / "a.md").read_text(encoding="utf-8") == "# A\n"
    assert not (world.workspace / "area").exists()


async def test_a_name_taken_in_the_other_workspace_is_refused_and_both_notes_stay(
    world: World,
) -> None:
    files, second = files_of(world), second_of(world)
    path = world.write("plan.md", "# Mine\n")
    (second / "plan.md").write_text("# Theirs\n", encoding="utf-8")
    with pytest.raises(NameTaken):
        await files.move(OWNER, path, second / "plan.md")
    assert path.read_text(encoding="utf-8") == "# Mine\n"
    assert (second / "plan.md").read_text(encoding="utf-8") == "# Theirs\n"


async def test_a_move_out_of_every_workspace_is_refused(world: World, tmp_path: Path) -> None:
    files = files_of(world)
    path = world.write("plan.md", "# Plan\n")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(PathRefused):
        await files.move(OWNER, path, tmp_path / "elsewhere" / "plan.md")
    assert path.exists()
