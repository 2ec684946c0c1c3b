"""Link updates of a rename or move: the preview (from the search index, or by reading every
note before its first build), the rewrite after the move (files, and open documents merged
with typing), the moved note's own links, and the notes that cannot be checked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from quire.core.errors import FileMissing, InvalidArgument, NameTaken, PathRefused
from quire.core.views import OWNER
from quire.db.engine import Database
from quire.services.files import FileService
from quire.services.search import SearchService
from tests.support.world import World, open_world

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["index", "scan"])
async def world(
    request: pytest.FixtureRequest, database: Database, tmp_path: Path
) -> AsyncIterator[World]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as opened:
        _seed(opened)
        if request.param == "scan":
            opened.extra["files"] = FileService(
                opened.workspaces, opened.documents, opened.windows, opened.bus, clock=opened.clock
            )
            yield opened
            return
        async with SearchService(opened.workspaces, tmp_path / "search.sqlite3") as search:
            await search.built.wait()
            opened.extra["search"] = search
            opened.extra["files"] = FileService(
                opened.workspaces,
                opened.documents,
                opened.windows,
                opened.bus,
                clock=opened.clock,
                search=search,
            )
            yield opened


def _seed(world: World) -> None:
    world.write("a/Plan.md", "# Plan\n\n[back](../index.md) ![p](pic.png)\n")
    world.write("a/pic.png", "png")
    world.write("index.md", "# Index\n\nsee [[Plan]]\n\nand [the plan](a/Plan.md#goals)\n")
    world.write("b/deep.md", "# Deep\n`[[Plan]]`\n[[a/Plan|the plan]]\n")
    world.write("c/other.md", "# Other\n[[Planning]] [x](../a/Plans.md)\n")


async def _caught_up(world: World) -> None:
    """The index holds what was just written (the watcher would, within a second)."""
    search = world.extra.get("search")
    if isinstance(search, SearchService):
        await search.catch_up()


def files_of(world: World) -> FileService:
    service = world.extra["files"]
    assert isinstance(service, FileService)
    return service


async def test_the_preview_lists_each_linking_note_with_its_lines_and_writes_nothing(
    world: World,
) -> None:
    before = {path: path.read_bytes() for path in world.workspace.rglob("*") if path.is_file()}
    plan_path, to = world.workspace / "a/Plan.md", world.workspace / "d/Goals.md"
    (world.workspace / "d").mkdir()
    updates = await files_of(world).link_updates(plan_path, to)
    listed = {
        Path(note.path).relative_to(world.workspace).as_posix(): note for note in updates.notes
    }
    assert sorted(listed) == ["a/Plan.md", "b/deep.md", "index.md"]
    assert (listed["index.md"].links, listed["index.md"].lines) == (2, (3, 5))
    assert (listed["b/deep.md"].links, listed["b/deep.md"].lines) == (1, (3,))
    assert listed["index.md"].title == "Index"
    # The moved note's own relative links are rebased: it is listed too.
    assert (listed["a/Plan.md"].links, listed["a/Plan.md"].lines) == (1, (3,))
    assert updates.path == str(plan_path) and updates.to == str(to)
    assert updates.unreadable == ()
    after = {path: path.read_bytes() for path in world.workspace.rglob("*") if path.is_file()}
    assert after == before


async def test_a_move_with_update_links_rewrites_every_listed_note(world: World) -> None:
    (world.workspace / "d").mkdir()
    moved = await files_of(world).move(
        OWNER, world.workspace / "a/Plan.md", world.workspace / "d/Goals.md", update_links=True
    )
    ws = world.workspace
    assert sorted(moved.links_updated) == sorted(
        str(ws / name) for name in ("d/Goals.md", "b/deep.md", "index.md")
    )
    assert (ws / "index.md").read_text(encoding="utf-8") == (
        "# Index\n\nsee [[Goals]]\n\nand [the plan](d/Goals.md#goals)\n"
    )
    assert (ws / "b/deep.md").read_text(encoding="utf-8") == (
        "# Deep\n`[[Plan]]`\n[[d/Goals|the plan]]\n"
    )
    assert (ws / "d/Goals.md").read_text(encoding="utf-8") == (
        "# Plan\n\n[back](../index.md) ![p](../a/pic.png)\n"
    )
    assert (ws / "c/other.md").read_text(encoding="utf-8") == (
        "# Other\n[[Planning]] [x](../a/Plans.md)\n"
    )


async def test_a_move_without_update_links_leaves_the_links(world: World) -> None:
    moved = await files_of(world).move(
        OWNER, world.workspace / "a/Plan.md", world.workspace / "Goals.md"
    )
    assert moved.links_updated == ()
    assert "[[Plan]]" in (world.workspace / "index.md").read_text(encoding="utf-8")


async def test_a_folder_move_rewrites_links_into_it_pictures_too(world: World) -> None:
    world.write("e/pics.md", "# Pics\n![p](../a/pic.png) [[a/Plan]] [[Plan]]\n")
    await _caught_up(world)
    ws = world.workspace
    moved = await files_of(world).move(OWNER, ws / "a", ws / "b/a2", update_links=True)
    assert str(ws / "e/pics.md") in moved.links_updated
    assert (ws / "e/pics.md").read_text(encoding="utf-8") == (
        "# Pics\n![p](../b/a2/pic.png) [[b/a2/Plan]] [[Plan]]\n"
    )
    assert (
        (ws / "index.md").read_text(encoding="utf-8").endswith("[the plan](b/a2/Plan.md#goals)\n")
    )
    # Inside the moved folder the picture link stays, its link out is rebased.
    assert (ws / "b/a2/Plan.md").read_text(encoding="utf-8") == (
        "# Plan\n\n[back](../../index.md) ![p](pic.png)\n"
    )


async def test_an_open_document_is_rewritten_live_keeping_the_persons_unsaved_typing(
    world: World,
) -> None:
    index = world.workspace / "index.md"
    opened = await world.windows.open(OWNER, index, "edit")
    typed = "# Index typed\n\nsee [[Plan]]\n\nand [the plan](a/Plan.md#goals)\nmore typing\n"
    await world.documents.set_content(opened.doc_id, typed, author="person")
    preview = await files_of(world).link_updates(
        world.workspace / "a/Plan.md", world.workspace / "Goals.md"
    )
    assert str(index) in [note.path for note in preview.notes]
    await files_of(world).move(
        OWNER, world.workspace / "a/Plan.md", world.workspace / "Goals.md", update_links=True
    )
    live = world.documents.get(opened.doc_id)
    assert live is not None
    expected = "# Index typed\n\nsee [[Goals]]\n\nand [the plan](Goals.md#goals)\nmore typing\n"
    assert live.text() == expected
    assert index.read_text(encoding="utf-8") == expected  # saved


async def test_a_note_changed_after_the_preview_is_rewritten_from_its_text_now(
    world: World,
) -> None:
    files = files_of(world)
    ws = world.workspace
    await files.link_updates(ws / "a/Plan.md", ws / "Goals.md")
    (ws / "index.md").write_text("# Index\nnew line\nsee [[Plan]] again\n", encoding="utf-8")
    await files.move(OWNER, ws / "a/Plan.md", ws / "Goals.md", update_links=True)
    assert (ws / "index.md").read_text(
        encoding="utf-8"
    ) == "# Index\nnew line\nsee [[Goals]] again\n"


async def test_a_note_that_cannot_be_read_is_named_not_skipped(world: World) -> None:
    (world.workspace / "bad.md").write_bytes(b"# Bad\n[[Plan]] \xff\n")
    await _caught_up(world)
    updates = await files_of(world).link_updates(
        world.workspace / "a/Plan.md", world.workspace / "Goals.md"
    )
    assert str(world.workspace / "bad.md") in updates.unreadable
    assert str(world.workspace / "bad.md") not in [note.path for note in updates.notes]


@pytest.mark.parametrize(
    ("source", "to", "error"),
    [
        ("missing.md", "x.md", FileMissing),
        (".hidden.md", "x.md", PathRefused),
        ("a/Plan.md", "../outside.md", PathRefused),
        ("a/Plan.md", ".dot.md", InvalidArgument),
        ("a/Plan.md", "no/such/folder/x.md", FileMissing),
        ("a/Plan.md", "bad|name.md", InvalidArgument),
    ],
)
async def test_the_preview_refuses_what_the_move_refuses(
    world: World, source: str, to: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        await files_of(world).link_updates(world.workspace / source, world.workspace / to)


async def test_a_refused_move_rewrites_nothing(world: World) -> None:
    world.write("Goals.md", "# Taken\n")
    before = (world.workspace / "index.md").read_bytes()
    with pytest.raises(NameTaken):
        await files_of(world).move(
            OWNER, world.workspace / "a/Plan.md", world.workspace / "Goals.md", update_links=True
        )
    assert (world.workspace / "index.md").read_bytes() == before
