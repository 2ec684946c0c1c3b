"""The file service against another program and against symlinks: a file made meanwhile at
the destination of create, upload, copy and restore is never replaced (and a note changed
meanwhile keeps that change under an append); a symlink in the workspace is the link itself,
pointing inside or out: moved or trashed as a link, never copied or downloaded, its target
never touched. The trash keeps what is younger than 30 days when only the expired is emptied."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from quire.core.errors import NameTaken, PathRefused, QuireError
from quire.core.views import OWNER
from quire.db.engine import Database
from quire.services.files import FileService
from tests.support.disk import snapshot
from tests.support.world import World, open_world

pytestmark = pytest.mark.anyio

MEANWHILE = b"made meanwhile by another program"


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


def racing(real: Callable[..., object], target: Path) -> Callable[..., object]:
    """``real``, with another program creating ``target`` just before it runs (once)."""

    def run(*args: object, **kwargs: object) -> object:
        if not target.exists():
            target.write_bytes(MEANWHILE)
        return real(*args, **kwargs)

    return run


# A file made meanwhile at the destination: (operation, the function that publishes the name)
RACES = [
    ("create", "quire.fs.atomic._publish_new"),
    ("upload", "quire.vault.files.rename_noreplace"),
    ("copy", "quire.fs.moves.rename_noreplace"),
    ("copy folder", "quire.fs.moves.rename_noreplace"),
    ("restore", "quire.vault.trash.rename_noreplace"),
]


@pytest.mark.parametrize(("operation", "publisher"), RACES, ids=[row[0] for row in RACES])
async def test_a_file_made_meanwhile_at_the_destination_is_kept_and_the_operation_refused(
    world: World, monkeypatch: pytest.MonkeyPatch, operation: str, publisher: str
) -> None:
    files = files_of(world)
    ws = world.workspace
    source = world.write("a.md", "A")
    world.write("folder/in.md", "I")
    trashed = await files.delete(OWNER, world.write("gone.md", "G"))
    target = {
        "create": ws / "new.md",
        "upload": ws / "picture.png",
        "copy": ws / "copy.md",
        "copy folder": ws / "copied",
        "restore": ws / "gone.md",
    }[operation]
    module, name = publisher.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[name]), name)
    monkeypatch.setattr(publisher, racing(real, target))
    expected = snapshot(ws.parent) | {str(target.relative_to(ws.parent)): MEANWHILE}
    with pytest.raises(NameTaken):
        match operation:
            case "create":
                await files.create_note(OWNER, target, content="# New\n")
            case "upload":
                await files.upload(OWNER, target, [b"\x89PNG", b"data"])
            case "copy":
                await files.copy(OWNER, source, target)
            case "copy folder":
                await files.copy(OWNER, ws / "folder", target)
            case _:
                await files.restore(OWNER, trashed.trash_id)
    assert snapshot(ws.parent) == expected  # no temp file left, nothing replaced
    assert [item.id for item in (await files.trash_list()).items] == [trashed.trash_id]


async def test_an_append_to_a_note_changed_meanwhile_keeps_that_change(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quire.fs.documents import read_document

    files = files_of(world)
    note = world.write("log.md", "# Log\n")
    changed: list[bool] = []

    def read_then_changed(*args: object, **kwargs: object) -> object:
        read = read_document(*args, **kwargs)  # type: ignore[arg-type]
        if not changed:  # another program saves the note right after Quire read it
            note.write_text("# Log\nfrom the other program\n", encoding="utf-8")
            changed.append(True)
        return read

    monkeypatch.setattr("quire.services.files.operations.read_document", read_then_changed)
    before = snapshot(world.workspace.parent)
    await files.append(OWNER, note, "from the agent\n")
    text = note.read_text(encoding="utf-8")
    assert text == "# Log\nfrom the other program\nfrom the agent\n"
    assert snapshot(world.workspace.parent) == before | {"workspace/log.md": text.encode()}


# Symlinks in the workspace: (operation, link, error or None when the link itself is handled)
LINKS: list[tuple[str, str, type[QuireError] | None]] = [
    ("move", "in-link.md", None),
    ("move", "out-link.md", None),
    ("move", "in-dir", None),
    ("move", "out-dir", None),
    ("copy", "in-link.md", PathRefused),
    ("copy", "out-link.md", PathRefused),
    ("copy", "in-dir", PathRefused),
    ("copy", "out-dir", PathRefused),
    ("delete", "in-link.md", None),
    ("delete", "out-link.md", None),
    ("delete", "in-dir", None),
    ("delete", "out-dir", None),
    ("download", "in-link.md", PathRefused),
    ("download", "out-link.md", PathRefused),
    ("download", "in-dir", PathRefused),
    ("download", "out-dir", PathRefused),
]


@pytest.mark.parametrize(
    ("operation", "link", "error"), LINKS, ids=[f"{op}-{link}" for op, link, _ in LINKS]
)
async def test_a_symlinked_source_is_the_link_itself_and_its_target_is_never_touched(
    world: World, operation: str, link: str, error: type[QuireError] | None
) -> None:
    files = files_of(world)
    ws = world.workspace
    outside = ws.parent / "outside"
    world.write("a.md", "A")
    world.write("d/in.md", "I")
    (outside / "x.md").write_text("X", encoding="utf-8")
    (ws / "in-link.md").symlink_to(ws / "a.md")
    (ws / "out-link.md").symlink_to(outside / "x.md")
    (ws / "in-dir").symlink_to(ws / "d")
    (ws / "out-dir").symlink_to(outside)
    before = snapshot(ws.parent)
    key = f"workspace/{link}"
    if error is not None:
        with pytest.raises(error, match="symbolic link"):
            match operation:
                case "copy":
                    await files.copy(OWNER, ws / link, ws / "copied")
                case _:
                    await files.download(ws / link)
        assert snapshot(ws.parent) == before
        return
    if operation == "move":
        await files.move(OWNER, ws / link, ws / "moved")
        expected = {k: v for k, v in before.items() if k != key} | {"workspace/moved": before[key]}
        assert snapshot(ws.parent) == expected
        return
    deleted = await files.delete(OWNER, ws / link)
    after = snapshot(ws.parent)
    trashed = f"workspace/.quire/trash/{deleted.trash_id}/{link}"
    assert after[trashed] == before[key]  # the link went to the trash, not what it points to
    assert {k: v for k, v in after.items() if not k.startswith("workspace/.quire")} == {
        k: v for k, v in before.items() if k != key
    }
    await files.restore(OWNER, deleted.trash_id)
    restored = snapshot(ws.parent)
    assert {k: v for k, v in restored.items() if not k.startswith("workspace/.quire")} == before


async def test_emptying_only_the_expired_trash_keeps_what_is_younger_than_30_days(
    world: World,
) -> None:
    files = files_of(world)
    ws = world.workspace
    old = await files.delete(OWNER, world.write("old.md", "O"))
    world.clock.advance(29 * 24 * 3600 * 1000)
    young = await files.delete(OWNER, world.write("young.md", "Y"))
    world.clock.advance(2 * 24 * 3600 * 1000)  # old is 31 days in the trash, young 2
    trash = ws / ".quire" / "trash"
    assert (await files.empty_trash(expired_only=True)).removed == 1
    assert not (trash / old.trash_id).exists()
    assert (trash / young.trash_id / "young.md").read_text(encoding="utf-8") == "Y"
    assert (await files.empty_trash(expired_only=True)).removed == 0  # nothing else expired
    assert [item.id for item in (await files.trash_list()).items] == [young.trash_id]
    assert (await files.empty_trash()).removed == 1
    assert sorted(p.name for p in ws.iterdir()) == [".quire"]
    assert list(trash.iterdir()) == []
