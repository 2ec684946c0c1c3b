"""The file service: every rule of create, move, copy, delete and restore, and open documents
following a rename (live buffer, unsaved edits, tabs) or closing on a delete."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from quire.core.errors import FileMissing, InvalidArgument, NameTaken, PathRefused, QuireError
from quire.core.views import OWNER
from quire.db.engine import Database
from quire.services.files import FileService
from tests.support.disk import snapshot
from tests.support.world import World, open_world

pytestmark = pytest.mark.anyio


@pytest.fixture
async def world(database: Database, tmp_path: Path) -> AsyncIterator[World]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    (tmp_path / "outside").mkdir()
    async with open_world(database, workspace) as opened:
        opened.extra["files"] = FileService(
            opened.workspaces, opened.documents, opened.windows, opened.bus, clock=opened.clock
        )
        yield opened


def files_of(world: World) -> FileService:
    service = world.extra["files"]
    assert isinstance(service, FileService)
    return service


async def test_a_rename_keeps_the_live_buffer_its_unsaved_edits_and_the_tab(world: World) -> None:
    files = files_of(world)
    path = world.write("plan.md", "# Plan\n")
    opened = await world.windows.open(OWNER, path, "edit")
    await world.documents.set_content(opened.doc_id, "# Plan\n\nunsaved\n", author="me")
    (world.workspace / "sub").mkdir()
    moved = await files.move(OWNER, path, world.workspace / "sub" / "Renamed.md")
    assert moved.documents_followed == 1
    new = world.workspace / "sub" / "Renamed.md"
    live = world.documents.get(opened.doc_id)
    assert live is not None and live.path == new
    assert live.text() == "# Plan\n\nunsaved\n" and live.is_dirty
    state = await world.windows.state(OWNER)
    assert [(tab.doc_id, tab.path) for tab in state.tabs] == [(opened.doc_id, new)]
    again = await world.windows.open(OWNER, new)
    assert again.doc_id == opened.doc_id
    await world.documents.save(opened.doc_id)
    assert new.read_text(encoding="utf-8") == "# Plan\n\nunsaved\n"
    assert not path.exists()
    assert "tree" in world.bus.kinds()


async def test_a_folder_move_takes_its_open_documents_along(world: World) -> None:
    files = files_of(world)
    (world.workspace / "a").mkdir()
    inner = world.write("a/n.md", "# N\n")
    opened = await world.windows.open(OWNER, inner)
    moved = await files.move(OWNER, world.workspace / "a", world.workspace / "b")
    assert moved.is_folder and moved.documents_followed == 1
    live = world.documents.get(opened.doc_id)
    assert live is not None and live.path == world.workspace / "b" / "n.md"


async def test_deleting_an_open_document_closes_its_tab_and_trash_restores_it(
    world: World,
) -> None:
    files = files_of(world)
    path = world.write("gone.md", "# Gone\n")
    opened = await world.windows.open(OWNER, path)
    deleted = await files.delete(OWNER, path)
    assert deleted.tabs_closed == 1 and not path.exists()
    assert world.documents.get(opened.doc_id) is None
    assert (await world.windows.state(OWNER)).tabs == ()
    listed = await files.trash_list()
    assert [item.path for item in listed.items] == [str(path)]
    restored = await files.restore(OWNER, deleted.trash_id)
    assert restored.path == str(path) and path.read_text(encoding="utf-8") == "# Gone\n"
    assert (await files.trash_list()).items == ()


async def test_the_windows_whose_tabs_a_folder_delete_closed_are_told_what_and_why(
    world: World,
) -> None:
    files = files_of(world)
    first, second = world.write("d/a.md"), world.write("d/b.md")
    await world.windows.open(OWNER, first)
    await world.windows.open(OWNER, second)
    world.write("elsewhere.md")
    deleted = await files.delete(OWNER, world.workspace / "d")
    assert deleted.tabs_closed == 2
    assert world.bus.of_kind("deleted") == [
        {
            "path": str(world.workspace / "d"),
            "trashId": deleted.trash_id,
            "paths": [str(first), str(second)],
        }
    ]
    await files.delete(OWNER, world.workspace / "elsewhere.md")
    assert len(world.bus.of_kind("deleted")) == 1  # no tab showed it: nothing to say


async def test_a_restore_never_replaces_a_file_made_meanwhile(world: World) -> None:
    files = files_of(world)
    path = world.write("n.md", "old")
    deleted = await files.delete(OWNER, path)
    path.write_text("new", encoding="utf-8")
    with pytest.raises(NameTaken):
        await files.restore(OWNER, deleted.trash_id)
    assert path.read_text(encoding="utf-8") == "new"
    assert len((await files.trash_list()).items) == 1


async def test_the_trash_forgets_entries_after_30_days(world: World) -> None:
    files = files_of(world)
    await files.delete(OWNER, world.write("old.md"))
    world.clock.advance(31 * 24 * 3600 * 1000)
    await files.delete(OWNER, world.write("new.md"))
    assert [Path(item.path).name for item in (await files.trash_list()).items] == ["new.md"]
    assert (await files.empty_trash()).removed == 1


async def test_a_new_note_gets_a_safe_name_and_md_and_never_replaces(world: World) -> None:
    files = files_of(world)
    made = await files.create_note(OWNER, world.workspace / 'Plan: "Q3"?', content="# Q3\n")
    assert Path(made.path).name == "Plan- -Q3.md"
    template = world.write("t.md", "# Template\n")
    copy = await files.create_note(OWNER, world.workspace / "from t", template=template)
    assert (world.workspace / "from t.md").read_text(encoding="utf-8") == "# Template\n"
    assert copy.path == str(world.workspace / "from t.md")
    with pytest.raises(NameTaken):
        await files.create_note(OWNER, world.workspace / "from t.md")


async def test_append_goes_through_the_live_document_when_open(world: World) -> None:
    files = files_of(world)
    path = world.write("log.md", "# Log")
    assert not (await files.append(OWNER, path, "one\n")).live
    assert path.read_text(encoding="utf-8") == "# Log\none\n"
    opened = await world.windows.open(OWNER, path)
    assert (await files.append(OWNER, path, "two\n")).live
    live = world.documents.get(opened.doc_id)
    assert live is not None and live.text() == "# Log\none\ntwo\n"


async def test_an_upload_lands_in_assets_beside_the_note_with_its_link(world: World) -> None:
    files = files_of(world)
    note = world.write("n.md")
    where = files.assets_path(note, "my pic.png")
    uploaded = await files.upload(OWNER, where, [b"\x89PNG", b"data"], note=note)
    assert uploaded.size == 8 and uploaded.link == "![my pic](<assets/my pic.png>)"
    with pytest.raises(NameTaken):
        await files.upload(OWNER, where, [b"x"], note=note)
    assert (world.workspace / "assets" / "my pic.png").read_bytes() == b"\x89PNGdata"


async def test_a_folder_downloads_as_a_zip_without_links_or_dotfiles(world: World) -> None:
    import io
    import zipfile

    files = files_of(world)
    world.write("d/a.md", "# A\n")
    world.write("d/.secret.md", "no")
    (world.workspace / "d" / "out").symlink_to(world.workspace.parent / "outside")
    got = await files.download(world.workspace / "d")
    data = b"".join(got.chunks)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["d/a.md"]
        assert archive.read("d/a.md") == b"# A\n"


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("a.png", "image/png"),
        ("b.JPG", "image/jpeg"),
        ("c.jpeg", "image/jpeg"),
        ("d.gif", "image/gif"),
        ("e.webp", "image/webp"),
        ("f.svg", "application/octet-stream"),
        ("g.html", "application/octet-stream"),
        ("h.md", "application/octet-stream"),
        ("png", "application/octet-stream"),
        ("i.png.html", "application/octet-stream"),
    ],
)
async def test_a_downloaded_picture_says_what_it_is_and_nothing_else_does(
    world: World, name: str, media_type: str
) -> None:
    path = world.workspace / name
    path.write_bytes(b"bytes")
    got = await files_of(world).download(path)
    assert (got.media_type, b"".join(got.chunks)) == (media_type, b"bytes")


# The adversarial table: (operation, source, destination, error) for names and paths.
LONG = "a" * 252 + ".md"  # 255 bytes


def _table(ws: Path) -> list[tuple[str, str, str, type[QuireError]]]:
    return [
        ("move", "a.md", "../outside/a.md", PathRefused),
        ("move", "a.md", "/etc/a.md", PathRefused),
        ("move", "a.md", ".hidden.md", InvalidArgument),
        ("move", ".env", "env.md", PathRefused),
        ("move", "a.md", "b.md", NameTaken),
        ("move", "a.md", "CON.md", InvalidArgument),
        ("move", "a.md", "nul", InvalidArgument),
        ("move", "a.md", "a" * 253 + ".md", InvalidArgument),
        ("move", "a.md", "x\x00.md", InvalidArgument),
        ("move", "a.md", "bad\udcff.md", InvalidArgument),
        ("move", "a.md", "what?.md", InvalidArgument),
        ("move", "a.md", "trailing.", InvalidArgument),
        ("move", "dir", "dir/inner", PathRefused),
        ("move", "dir", "dir", PathRefused),
        ("move", "missing.md", "m.md", FileMissing),
        ("move", "a.md", "linkout/a.md", PathRefused),
        ("move", "linkout/x.md", "x.md", PathRefused),
        ("move", "a.md", ".quire/trash/a.md", PathRefused),
        ("copy", "a.md", "b.md", NameTaken),
        ("copy", "dir", "dir/copy", PathRefused),
        ("copy", "a.md", "../outside/a.md", PathRefused),
        ("copy", "a.md", "linkout/a.md", PathRefused),
        ("delete", ".env", "", PathRefused),
        ("delete", "linkout/x.md", "", PathRefused),
        ("delete", "../outside/x.md", "", PathRefused),
        ("delete", "", "", PathRefused),
        ("folder", "", "CON", InvalidArgument),
        ("folder", "", "dir", NameTaken),
        ("folder", "", ".git", InvalidArgument),
        ("note", "", "b.md", NameTaken),
        ("note", "", "linkout/n.md", PathRefused),
    ]


@pytest.mark.parametrize("row", range(31))
async def test_the_adversarial_table_is_refused_and_changes_nothing(world: World, row: int) -> None:
    files = files_of(world)
    ws = world.workspace
    world.write("a.md", "A")
    world.write("b.md", "B")
    world.write("dir/in.md", "I")
    (ws / ".env").write_text("SECRET", encoding="utf-8")
    outside = ws.parent / "outside"
    (outside / "x.md").write_text("X", encoding="utf-8")
    (ws / "linkout").symlink_to(outside)
    table = _table(ws)
    assert len(table) == 31
    operation, source, target, error = table[row]
    before = snapshot(ws.parent)
    source_path, target_path = _place(ws, source), _place(ws, target)
    with pytest.raises(error):
        match operation:
            case "move":
                await files.move(OWNER, source_path, target_path)
            case "copy":
                await files.copy(OWNER, source_path, target_path)
            case "delete":
                await files.delete(OWNER, source_path)
            case "folder":
                await files.create_folder(OWNER, target_path)
            case _:
                await files.create_note(OWNER, target_path)
    assert snapshot(ws.parent) == before


def _more(ws: Path) -> list[tuple[str, str, str, type[QuireError]]]:
    """Upload, download, append, template and restore (with a destination): (operation,
    path, second path, error)."""
    return [
        ("upload", "../outside/p.png", "", PathRefused),
        ("upload", "linkout/p.png", "", PathRefused),
        ("upload", ".hidden.png", "", InvalidArgument),
        ("upload", "b.md", "", NameTaken),
        ("upload", "p\x00.png", "", InvalidArgument),
        ("upload", "bad\udcff.png", "", InvalidArgument),
        ("upload", ".quire/trash/p.png", "", PathRefused),
        ("download", "../outside/x.md", "", PathRefused),
        ("download", "linkout/x.md", "", PathRefused),
        ("download", ".env", "", PathRefused),
        ("download", "missing.md", "", FileMissing),
        ("append", "../outside/x.md", "", PathRefused),
        ("append", "linkout/x.md", "", PathRefused),
        ("append", ".env", "", PathRefused),
        ("append", "missing.md", "", FileMissing),
        ("template", "n.md", "../outside/x.md", PathRefused),
        ("template", "n.md", "linkout/x.md", PathRefused),
        ("template", "n.md", ".env", PathRefused),
        ("restore", "../outside/r.md", "", PathRefused),
        ("restore", "linkout/r.md", "", PathRefused),
        ("restore", ".r.md", "", InvalidArgument),
        ("restore", "b.md", "", NameTaken),
        ("restore", "r\x00.md", "", InvalidArgument),
    ]


@pytest.mark.parametrize("row", range(23))
async def test_the_other_operations_refuse_the_adversarial_names_and_change_nothing(
    world: World, row: int
) -> None:
    files = files_of(world)
    ws = world.workspace
    world.write("b.md", "B")
    (ws / ".env").write_text("SECRET", encoding="utf-8")
    outside = ws.parent / "outside"
    (outside / "x.md").write_text("X", encoding="utf-8")
    (ws / "linkout").symlink_to(outside)
    trashed = await files.delete(OWNER, world.write("r.md", "R"))
    table = _more(ws)
    assert len(table) == 23
    operation, first, second, error = table[row]
    before = snapshot(ws.parent)
    path = _place(ws, first)
    with pytest.raises(error):
        match operation:
            case "upload":
                await files.upload(OWNER, path, [b"data"])
            case "download":
                await files.download(path)
            case "append":
                await files.append(OWNER, path, "more")
            case "template":
                await files.create_note(OWNER, path, template=_place(ws, second))
            case _:
                await files.restore(OWNER, trashed.trash_id, to=path)
    assert snapshot(ws.parent) == before


async def test_a_case_only_rename_works(world: World) -> None:
    files = files_of(world)
    path = world.write("note.md", "n")
    moved = await files.move(OWNER, path, world.workspace / "Note.md")
    assert moved.to.endswith("Note.md")
    assert sorted(p.name for p in world.workspace.iterdir()) == ["Note.md"]


async def test_a_255_byte_name_is_fine(world: World) -> None:
    files = files_of(world)
    path = world.write("a.md", "n")
    moved = await files.move(OWNER, path, world.workspace / LONG)
    assert Path(moved.to).name == LONG


async def test_a_file_created_meanwhile_at_the_destination_is_never_replaced(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quire.fs import moves

    files = files_of(world)
    source = world.write("a.md", "A")
    target = world.workspace / "b.md"
    real = moves.rename_noreplace

    def racing(*args: object, **kwargs: object) -> None:
        target.write_text("made meanwhile", encoding="utf-8")
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("quire.vault.files.rename_noreplace", racing)
    with pytest.raises(NameTaken):
        await files.move(OWNER, source, target)
    assert target.read_text(encoding="utf-8") == "made meanwhile"
    assert source.read_text(encoding="utf-8") == "A"


def _place(ws: Path, name: str) -> Path:
    """``name`` below the workspace (``..`` taken lexically), or itself when absolute."""
    return Path(os.path.normpath(ws / name))
