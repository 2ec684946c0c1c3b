"""Workspaces: the served folders, which one holds a path, and the paginated document listing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from quire.core.errors import InvalidArgument
from quire.fs import walk as walker
from quire.vault.workspaces import CONTINUE_S, FilePage, Workspaces
from tests.support.unprivileged import shared_folder, unprivileged


def write(path: Path, text: str = "# Note\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A workspace with documents, hidden and skipped folders, links in and out."""
    root = tmp_path.resolve() / "notes"
    for name in (
        "a.md",
        "b.markdown",
        "c.MD",
        "sub/d.md",
        "sub/deeper/e.mdx",
        ".hidden.md",
        ".git/f.md",
        ".obsidian/g.md",
        "node_modules/pkg/readme.md",
        "sub/.secret/h.md",
        "notes.txt",
        "image.png",
    ):
        write(root / name)
    outside = write(tmp_path.resolve() / "outside" / "x.md")
    (root / "linked-dir").symlink_to(outside.parent)
    (root / "link.md").symlink_to(root / "a.md")
    (root / "env.md").symlink_to(tmp_path / "outside" / ".env")
    write(tmp_path / "outside" / ".env", "SECRET=1\n")
    (root / "dangling.md").symlink_to(root / "missing.md")
    (root / "folder.md").mkdir()
    return root


def rel_paths(page: FilePage) -> list[str]:
    return [item.rel_path for item in page.files]


def test_the_listing_holds_every_markdown_document_and_nothing_else(tree: Path) -> None:
    page = Workspaces([tree]).list_files(None, 1000)
    assert rel_paths(page) == [
        "a.md",
        "b.markdown",
        "c.MD",
        "link.md",
        "sub/d.md",
        "sub/deeper/e.mdx",
    ]
    assert page.total == 6
    assert page.next_cursor is None
    assert not page.truncated
    assert page.note is None


def test_a_listed_file_carries_its_workspace_size_and_mtime(tree: Path) -> None:
    page = Workspaces([tree]).list_files(None, 1)
    first = page.files[0]
    info = (tree / "a.md").stat()
    assert first.path == tree / "a.md"
    assert first.workspace == tree
    assert first.size == info.st_size
    assert first.mtime_ms == info.st_mtime_ns // 1_000_000


def test_pages_follow_each_other_without_gaps_or_repeats(tree: Path) -> None:
    workspaces = Workspaces([tree])
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = workspaces.list_files(cursor, 4)
        assert page.total == 6
        seen.extend(rel_paths(page))
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == rel_paths(workspaces.list_files(None, 1000))


def test_a_cursor_survives_files_added_and_removed_before_it(tree: Path) -> None:
    workspaces = Workspaces([tree])
    first = workspaces.list_files(None, 2)
    assert rel_paths(first) == ["a.md", "b.markdown"]
    assert first.next_cursor is not None
    (tree / "b.markdown").unlink()
    write(tree / "0-new.md")
    second = workspaces.list_files(first.next_cursor, 2)
    assert rel_paths(second) == ["c.MD", "link.md"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_pages_after_a_first_page_are_read_from_its_walk_for_a_while(tree: Path) -> None:
    clock = Clock()
    workspaces = Workspaces([tree], clock=clock)
    first = workspaces.list_files(None, 2)
    assert first.next_cursor is not None
    write(tree / "zz-late.md")
    clock.now += CONTINUE_S - 0.1
    second = workspaces.list_files(first.next_cursor, 1000)
    # The same walk answered: the note written after the first page is not in it yet, and the
    # total agrees with the first page's.
    assert "zz-late.md" not in rel_paths(second)
    assert second.total == first.total
    assert rel_paths(first) + rel_paths(second) == rel_paths(workspaces.list_files(None, 1000))[:-1]


def test_a_cursor_from_an_old_or_another_walk_walks_again(tree: Path) -> None:
    clock = Clock()
    workspaces = Workspaces([tree], clock=clock)
    first = workspaces.list_files(None, 2)
    assert first.next_cursor is not None
    write(tree / "zz-late.md")
    clock.now += CONTINUE_S
    late = workspaces.list_files(first.next_cursor, 1000)
    assert "zz-late.md" in rel_paths(late)
    assert late.total == first.total + 1
    # A cursor that walk never gave out (made by another server, say) is not read from it.
    other = Workspaces([tree], clock=clock).list_files(None, 3)
    write(tree / "zzz-later.md")
    assert other.next_cursor is not None
    assert "zzz-later.md" in rel_paths(workspaces.list_files(other.next_cursor, 1000))


def test_several_workspaces_are_listed_in_the_order_given(tmp_path: Path) -> None:
    one = write(tmp_path / "one" / "z.md").parent
    two = write(tmp_path / "two" / "a.md").parent
    page = Workspaces([one, two]).list_files(None, 10)
    assert [(item.workspace.name, item.rel_path) for item in page.files] == [
        ("one", "z.md"),
        ("two", "a.md"),
    ]


def test_a_workspace_inside_another_lists_its_files_once_under_itself(tmp_path: Path) -> None:
    outer = write(tmp_path / "outer" / "a.md").parent
    inner = write(outer / "inner" / "b.md").parent
    workspaces = Workspaces([outer, inner])
    page = workspaces.list_files(None, 10)
    assert [(item.workspace, item.rel_path) for item in page.files] == [
        (outer.resolve(), "a.md"),
        (inner.resolve(), "b.md"),
    ]
    assert workspaces.workspace_of(inner / "b.md") == inner.resolve()
    assert workspaces.workspace_of(outer / "a.md") == outer.resolve()


def test_duplicate_and_linked_workspace_folders_count_once(tmp_path: Path) -> None:
    folder = write(tmp_path / "w" / "a.md").parent
    (tmp_path / "alias").symlink_to(folder)
    workspaces = Workspaces([folder, tmp_path / "alias", folder])
    assert workspaces.folders == (folder.resolve(),)
    assert workspaces.list_files(None, 10).total == 1


@pytest.mark.parametrize(
    ("relative", "inside"),
    [
        ("a.md", True),
        ("sub/d.md", True),
        ("missing/new.md", True),
        ("link.md", True),
        ("linked-dir/x.md", False),
        ("../outside/x.md", False),
        ("../notes-sibling/a.md", False),
    ],
)
def test_workspace_of_judges_the_resolved_path(tree: Path, relative: str, inside: bool) -> None:
    write(tree.parent / "notes-sibling" / "a.md")
    found = Workspaces([tree]).workspace_of(tree / relative)
    assert (found == tree) is inside
    assert found is None or found == tree


@pytest.mark.parametrize("limit", [0, -1, 1001, True, 2.0, "5", None])
def test_a_limit_outside_one_to_a_thousand_is_refused(tree: Path, limit: object) -> None:
    with pytest.raises(InvalidArgument, match="`limit` must be a whole number from 1 to 1,000"):
        Workspaces([tree]).list_files(None, limit)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "cursor", ["", "not a cursor", "!!!", "bnVsbA", "WzEsMl0", "x" * 20_000, "\0", "\udcff"]
)
def test_a_cursor_the_server_did_not_give_is_refused(tree: Path, cursor: str) -> None:
    with pytest.raises(InvalidArgument, match="is not a cursor this server gave out") as caught:
        Workspaces([tree]).list_files(cursor, 10)
    assert caught.value.argument == "cursor"


def test_a_cursor_into_a_folder_no_longer_served_is_refused(tmp_path: Path) -> None:
    one = write(tmp_path / "one" / "a.md").parent
    write(one / "b.md")
    two = write(tmp_path / "two" / "a.md").parent
    cursor = Workspaces([one]).list_files(None, 1).next_cursor
    assert cursor is not None
    with pytest.raises(InvalidArgument, match="no longer served"):
        Workspaces([two]).list_files(cursor, 1)


def test_an_empty_workspace_lists_nothing(tmp_path: Path) -> None:
    page = Workspaces([tmp_path]).list_files(None, 10)
    assert page == FilePage([], None, 0)


@pytest.mark.parametrize("folder", ["missing", "file.md"])
def test_a_workspace_must_be_an_existing_folder(tmp_path: Path, folder: str) -> None:
    write(tmp_path / "file.md")
    with pytest.raises(InvalidArgument, match="Cannot allow"):
        Workspaces([tmp_path / folder])


def test_folders_past_the_depth_limit_are_not_entered_and_the_page_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walker, "MAX_DEPTH", 2)
    write(tmp_path / "a" / "b" / "shallow.md")
    write(tmp_path / "a" / "b" / "c" / "deep.md")
    page = Workspaces([tmp_path]).list_files(None, 10)
    assert rel_paths(page) == ["a/b/shallow.md"]
    assert page.truncated
    assert page.note is not None
    assert "nested more than 2 levels" in page.note


def test_a_walk_past_the_entry_budget_stops_and_the_page_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walker, "MAX_ENTRIES", 3)
    for index in range(6):
        write(tmp_path / f"{index}.md")
    page = Workspaces([tmp_path]).list_files(None, 10)
    assert page.total == 3
    assert page.truncated
    assert page.note is not None
    assert "stopped after reading 3 folder entries" in page.note


def test_a_name_that_is_not_utf8_is_left_out_and_counted(tmp_path: Path) -> None:
    write(tmp_path / "good.md")
    bad = os.fsencode(tmp_path) + b"/bad-\xff.md"
    with open(bad, "wb") as handle:  # noqa: PTH123 - a bytes path cannot be a Path
        handle.write(b"# Bad\n")
    page = Workspaces([tmp_path]).list_files(None, 10)
    assert rel_paths(page) == ["good.md"]
    assert not page.truncated
    assert page.note is not None
    assert "1 name(s) are not UTF-8" in page.note


def test_the_whole_listing_in_one_walk_matches_the_pages(tree: Path) -> None:
    workspaces = Workspaces([tree])
    paged: list[Path] = []
    cursor: str | None = None
    while True:
        page = workspaces.list_files(cursor, 2)
        paged.extend(item.path for item in page.files)
        cursor = page.next_cursor
        if cursor is None:
            break
    whole = workspaces.all_files()
    assert [item.path for item in whole.files] == paged
    assert whole.total == len(paged)
    assert whole.next_cursor is None


def test_the_whole_listing_says_when_the_walk_was_cut(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walker, "MAX_ENTRIES", 2)
    whole = Workspaces([tree]).all_files()
    assert whole.truncated
    assert whole.note is not None


def test_a_folder_that_cannot_be_read_is_named_in_the_note() -> None:
    with shared_folder() as root:
        for name in ("a.md", "locked/b.md"):
            write(root / name).chmod(0o644)
        (root / "locked").chmod(0o000)
        page = unprivileged(lambda: Workspaces([root]).list_files(None, 10))
    assert rel_paths(page) == ["a.md"]
    assert not page.truncated
    assert page.note is not None
    assert f"The folder {root / 'locked'} (Permission denied) could not be read" in page.note


def settle(tree: Path) -> None:
    """Date every folder of ``tree`` an hour back, as in a workspace no one touched lately."""
    old = time.time() - 3600
    for folder in [tree, *(path for path in tree.rglob("*") if path.is_dir())]:
        if not folder.is_symlink():
            os.utime(folder, (old, old))


def test_a_folder_changed_just_before_a_walk_makes_the_next_first_page_walk_again(
    tree: Path,
) -> None:
    workspaces = Workspaces([tree])  # the tree was just written: no walk of it is trusted yet
    workspaces.list_files(None, 1000)
    (tree / "a.md").write_text("# A much longer note than before\n", encoding="utf-8")
    sizes = {item.rel_path: item.size for item in workspaces.list_files(None, 1000).files}
    assert sizes["a.md"] == len("# A much longer note than before\n")


def test_a_first_page_reuses_the_last_walk_only_while_its_folders_are_unchanged(
    tree: Path,
) -> None:
    settle(tree)
    workspaces = Workspaces([tree])
    for change in (
        lambda: write(tree / "sub" / "deeper" / "new.md"),
        lambda: (tree / "sub" / "deeper" / "new.md").rename(tree / "sub" / "deeper" / "n2.md"),
        lambda: (tree / "sub" / "deeper" / "n2.md").unlink(),
        lambda: write(tree / "fresh" / "folder.md"),
    ):
        before = rel_paths(workspaces.list_files(None, 1000))
        change()
        after = rel_paths(workspaces.list_files(None, 1000))
        assert after != before
        assert after == rel_paths(Workspaces([tree]).list_files(None, 1000))
        settle(tree)


def test_after_a_watched_change_a_first_page_reads_sizes_and_times_anew(tree: Path) -> None:
    settle(tree)
    workspaces = Workspaces([tree])
    workspaces.list_files(None, 1000)
    (tree / "a.md").write_text("# A much longer note than before\n", encoding="utf-8")
    sizes = {item.rel_path: item.size for item in workspaces.list_files(None, 1000).files}
    assert sizes["a.md"] == len("# Note\n")  # a content change alone leaves the folder as it was
    workspaces.changed()
    sizes = {item.rel_path: item.size for item in workspaces.list_files(None, 1000).files}
    assert sizes["a.md"] == len("# A much longer note than before\n")
