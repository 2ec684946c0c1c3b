"""Windows: opening under the path rules, tabs and views, the current document, present mode,
recents, and all of it surviving a restart."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from quire.core.errors import (
    EditRefused,
    FileMissing,
    FileTooLarge,
    InvalidArgument,
    NotOpen,
    NotUtf8,
    PathRefused,
    QuireError,
)
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.views import OWNER, document_id
from quire.db.engine import Database
from quire.services.live.versions import version_of
from quire.services.windows import Current, window_answer
from tests.support.world import World, open_world


@pytest.fixture
async def world(database: Database, tmp_path: Path) -> AsyncIterator[World]:
    workspace = (tmp_path / "workspace").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as opened:
        yield opened


@pytest.mark.anyio
async def test_opening_a_document_makes_it_the_active_tab_in_read_view(world: World) -> None:
    path = world.write("plan.md", "# Plan\n")
    opened = await world.windows.open(OWNER, path)
    assert opened.path == path
    assert opened.doc_id == document_id(path)
    assert opened.view == "read"
    state = await world.windows.state(OWNER)
    assert [tab.path for tab in state.tabs] == [path]
    assert state.active == opened.doc_id
    assert state.view == "read"
    assert not state.present


@pytest.mark.anyio
async def test_opening_publishes_an_open_and_a_window_event(world: World) -> None:
    path = world.write("plan.md")
    await world.windows.open(OWNER, path, "edit", 12)
    assert world.bus.kinds() == ["open", "window"]
    assert world.bus.of_kind("open") == [
        {"path": str(path), "docId": document_id(path), "view": "edit", "line": 12}
    ]
    window = world.bus.of_kind("window")[0]
    assert window["active"] == document_id(path)


@pytest.mark.anyio
async def test_a_tab_keeps_its_own_view_and_a_new_one_takes_the_windows(world: World) -> None:
    first = world.write("a.md")
    second = world.write("b.md")
    assert (await world.windows.open(OWNER, first, "edit")).view == "edit"
    assert (await world.windows.open(OWNER, first)).view == "edit"
    assert (await world.windows.open(OWNER, second)).view == "edit"
    await world.windows.set_view(OWNER, document_id(second), "source")
    assert (await world.windows.open(OWNER, first)).view == "edit"
    assert (await world.windows.open(OWNER, second, "read")).view == "read"
    state = await world.windows.state(OWNER)
    assert [(tab.path.name, tab.view) for tab in state.tabs] == [("a.md", "edit"), ("b.md", "read")]


@pytest.mark.anyio
async def test_opening_through_a_symlink_opens_the_file_it_names(world: World) -> None:
    target = world.write("real.md")
    link = world.workspace / "link.md"
    link.symlink_to(target)
    opened = await world.windows.open(OWNER, link)
    assert opened.path == target
    assert opened.doc_id == document_id(target)


def _make(world: World, name: str) -> Path:
    """The adversarial files the path rules refuse, built on demand."""
    base = world.workspace
    if name == "notes.txt":
        return world.write(name, "text")
    if name == ".hidden.md":
        return world.write(name)
    if name == "missing.md":
        return base / name
    if name == "folder.md":
        (base / name).mkdir()
        return base / name
    if name == "env-link.md":
        secret = world.write(".env", "TOKEN=1\n")
        (base / name).symlink_to(secret)
        return base / name
    if name == "dangling.md":
        (base / name).symlink_to(base / "nowhere.md")
        return base / name
    if name == "latin1.md":
        (base / name).write_bytes(b"caf\xe9\n")
        return base / name
    if name == "fifo.md":
        os.mkfifo(base / name)
        return base / name
    if name == "huge.md":
        with (base / name).open("wb") as handle:
            handle.truncate(MAX_DOCUMENT_BYTES + 1)
        return base / name
    raise AssertionError(name)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "error", "words"),
    [
        ("notes.txt", PathRefused, "Refusing to open"),
        (".hidden.md", PathRefused, "not dotfiles"),
        ("missing.md", FileMissing, "missing.md"),
        ("folder.md", PathRefused, "it is a folder"),
        ("env-link.md", PathRefused, "symbolic link to"),
        ("dangling.md", FileMissing, "symbolic link to a file that does not exist"),
        ("latin1.md", NotUtf8, "not UTF-8"),
        ("fifo.md", PathRefused, "named pipe"),
        ("huge.md", FileTooLarge, "16 MiB"),
    ],
)
async def test_a_path_the_rules_refuse_opens_nothing(
    world: World, name: str, error: type[QuireError], words: str
) -> None:
    path = _make(world, name)
    with pytest.raises(error, match=words):
        await world.windows.open(OWNER, path)
    state = await world.windows.state(OWNER)
    assert state.tabs == ()
    assert await world.windows.recent(OWNER) == []
    assert world.bus.published == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("mode", "line", "argument"),
    [
        ("source", None, "mode"),
        ("READ", None, "mode"),
        ("", None, "mode"),
        (None, 0, "line"),
        (None, -3, "line"),
        (None, True, "line"),
        (None, 2**32, "line"),
        (None, 1.5, "line"),
    ],
)
async def test_a_bad_mode_or_line_is_refused_naming_it(
    world: World, mode: object, line: object, argument: str
) -> None:
    path = world.write("a.md")
    with pytest.raises(InvalidArgument) as caught:
        await world.windows.open(OWNER, path, mode, line)  # type: ignore[arg-type]
    assert caught.value.argument == argument


@pytest.mark.anyio
async def test_a_document_outside_the_workspaces_is_refused_with_how_to_serve_it(
    world: World, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Elsewhere\n", encoding="utf-8")
    with pytest.raises(PathRefused, match="not inside an allowed folder") as caught:
        await world.windows.open(OWNER, outside)
    assert "quire serve --allow DIR" in str(caught.value)


@pytest.mark.anyio
async def test_an_allowed_folder_opens_beside_the_workspaces(
    database: Database, tmp_path: Path
) -> None:
    workspace = (tmp_path / "w").resolve()
    workspace.mkdir()
    extra = (tmp_path / "extra").resolve()
    extra.mkdir()
    allowed = extra / "plan.md"
    allowed.write_text("# Plan\n", encoding="utf-8")
    async with open_world(database, workspace, allowed=(extra,)) as world:
        assert (await world.windows.open(OWNER, allowed)).path == allowed
        assert world.workspaces.workspace_of(allowed) is None


@pytest.mark.anyio
async def test_a_document_in_a_hidden_folder_of_a_workspace_is_refused(world: World) -> None:
    hidden = world.write(".git/notes.md")
    with pytest.raises(PathRefused, match="hidden folder"):
        await world.windows.open(OWNER, hidden)


@pytest.mark.anyio
async def test_with_nothing_open_the_current_document_is_none(world: World) -> None:
    assert await world.windows.current(OWNER) == Current(None, "", None, None)


@pytest.mark.anyio
async def test_the_current_document_holds_its_unsaved_edits(world: World) -> None:
    path = world.write("a.md", "# Title\n\nold words\n")
    opened = await world.windows.open(OWNER, path)
    current = await world.windows.current(OWNER)
    expected = "# Title\n\nold words\n"
    assert current == Current(path, expected, opened.doc_id, False, version_of(expected))
    await world.documents.replace_unique(opened.doc_id, "old", "new", author="agent")
    current = await world.windows.current(OWNER)
    assert current.content == "# Title\n\nnew words\n"
    assert current.dirty is True
    assert path.read_text(encoding="utf-8") == "# Title\n\nold words\n"


@pytest.mark.anyio
async def test_the_target_of_an_edit_must_be_the_open_document(world: World) -> None:
    with pytest.raises(NotOpen, match="No document is open in Quire; open one first"):
        await world.windows.target(OWNER)
    first = world.write("a.md")
    other = world.write("b.md")
    link = world.workspace / "alias.md"
    link.symlink_to(first)
    await world.windows.open(OWNER, first)
    assert (await world.windows.target(OWNER)).path == first
    assert (await world.windows.target(OWNER, first)).path == first
    assert (await world.windows.target(OWNER, link)).path == first
    with pytest.raises(EditRefused, match="is not the open document") as caught:
        await world.windows.target(OWNER, other)
    assert caught.value.match_count is None
    assert str(first) in caught.value.message


@pytest.mark.anyio
async def test_present_opens_a_path_in_read_view_and_presents_it(world: World) -> None:
    path = world.write("a.md")
    await world.windows.open(OWNER, path, "edit")
    opened = await world.windows.present(OWNER, path)
    assert opened.view == "read"
    state = await world.windows.state(OWNER)
    assert state.present
    assert state.view == "read"
    assert world.bus.of_kind("present") == [{"path": str(path), "docId": document_id(path)}]


@pytest.mark.anyio
async def test_present_without_a_path_presents_the_open_document(world: World) -> None:
    with pytest.raises(NotOpen, match=r"No document is open to present\. Pass `path`"):
        await world.windows.present(OWNER)
    path = world.write("a.md")
    await world.windows.open(OWNER, path, "edit")
    assert (await world.windows.present(OWNER)).path == path
    assert (await world.windows.state(OWNER)).present
    state = await world.windows.leave_present(OWNER)
    assert not state.present
    assert state.view == "read"


@pytest.mark.anyio
@pytest.mark.parametrize("doc_id", ["nope", "", "a\0b", "0" * 24, "A" * 24, "0" * 25, "\udcff"])
async def test_views_and_tabs_refuse_a_document_that_has_no_tab(world: World, doc_id: str) -> None:
    world.write("other.md")
    await world.windows.open(OWNER, world.workspace / "other.md")
    with pytest.raises(NotOpen, match="No open tab holds the document"):
        await world.windows.set_view(OWNER, doc_id, "edit")
    with pytest.raises(NotOpen):
        await world.windows.close_tab(OWNER, doc_id)
    with pytest.raises(NotOpen):
        await world.windows.activate(OWNER, doc_id)


@pytest.mark.anyio
async def test_an_unknown_view_is_refused(world: World) -> None:
    path = world.write("a.md")
    await world.windows.open(OWNER, path)
    with pytest.raises(InvalidArgument, match="`view` must be one of read, edit, source"):
        await world.windows.set_view(OWNER, document_id(path), "zen")  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_closing_the_active_tab_activates_the_next_then_the_previous(world: World) -> None:
    a, b, c = (world.write(name) for name in ("a.md", "b.md", "c.md"))
    for path in (a, b, c):
        await world.windows.open(OWNER, path)
    await world.windows.activate(OWNER, document_id(b))
    await world.windows.present(OWNER)
    state = await world.windows.close_tab(OWNER, document_id(b))
    assert state.active == document_id(c)
    assert state.present
    state = await world.windows.close_tab(OWNER, document_id(c))
    assert state.active == document_id(a)
    state = await world.windows.close_tab(OWNER, document_id(a))
    assert state.active is None
    assert state.tabs == ()
    assert not state.present
    assert await world.windows.current(OWNER) == Current(None, "", None, None)


@pytest.mark.anyio
async def test_closing_another_tab_keeps_the_active_one(world: World) -> None:
    a, b = world.write("a.md"), world.write("b.md")
    await world.windows.open(OWNER, a)
    await world.windows.open(OWNER, b)
    state = await world.windows.close_tab(OWNER, document_id(a))
    assert state.active == document_id(b)
    assert window_answer(state).dump()["tabs"] == [
        {
            "docId": document_id(b),
            "path": str(b),
            "fileName": "b.md",
            "view": "read",
            "openedAt": world.clock.now,
        }
    ]


@pytest.mark.anyio
async def test_recents_are_newest_first_once_each_with_their_file_name(world: World) -> None:
    a, b = world.write("a.md"), world.write("sub/b.md")
    await world.windows.open(OWNER, a)
    world.clock.advance(10)
    await world.windows.open(OWNER, b)
    world.clock.advance(10)
    await world.windows.open(OWNER, a)
    recents = await world.windows.recent(OWNER)
    assert [(item.path, item.file_name, item.opened_at_ms) for item in recents] == [
        (a, "a.md", world.clock.now),
        (b, "b.md", world.clock.now - 10),
    ]
    assert [item.path for item in await world.windows.recent(OWNER, 1)] == [a]


@pytest.mark.anyio
@pytest.mark.parametrize("limit", [0, -1, 201, True, 2.5, "5", None])
async def test_a_recent_limit_outside_one_to_two_hundred_is_refused(
    world: World, limit: object
) -> None:
    with pytest.raises(InvalidArgument, match="`limit` must be a whole number from 1 to 200"):
        await world.windows.recent(OWNER, limit)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_recents_keep_the_two_hundred_newest(world: World) -> None:
    paths = [world.write(f"n{index:03}.md") for index in range(203)]
    for path in paths:
        world.clock.advance(1)
        await world.windows.open(OWNER, path)
        await world.windows.close_tab(OWNER, document_id(path))
    recents = await world.windows.recent(OWNER, 200)
    assert [item.path for item in recents] == paths[::-1][:200]


@pytest.mark.anyio
async def test_users_have_windows_of_their_own(world: World) -> None:
    path = world.write("a.md")
    await world.windows.open("alice", path)
    assert (await world.windows.state(OWNER)).tabs == ()
    assert (await world.windows.current(OWNER)).path is None
    assert (await world.windows.current("alice")).path == path


@pytest.mark.anyio
async def test_the_window_and_unsaved_text_survive_a_restart(
    database: Database, tmp_path: Path
) -> None:
    workspace = (tmp_path / "w").resolve()
    workspace.mkdir()
    async with open_world(database, workspace) as first:
        a = first.write("a.md", "one two\n")
        b = first.write("b.md")
        await first.windows.open(OWNER, a)
        opened = await first.windows.open(OWNER, b, "edit")
        await first.windows.activate(OWNER, document_id(a))
        await first.windows.present(OWNER)
        await first.documents.replace_unique(document_id(a), "two", "three", author="agent")
        before = await first.windows.state(OWNER)
    async with open_world(database, workspace) as second:
        assert await second.windows.state(OWNER) == before
        assert [tab.view for tab in before.tabs] == ["read", opened.view]
        current = await second.windows.current(OWNER)
        assert current == Current(a, "one three\n", document_id(a), True, version_of("one three\n"))
        assert [item.path for item in await second.windows.recent(OWNER)] == [a, b]
