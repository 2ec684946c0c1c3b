"""The one folder walker: its path rules, its limits, and what it reports it left out."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from quire.fs import walk as walker
from quire.fs.sandbox import is_document_name
from quire.fs.walk import Walk, walk_tree
from tests.support.unprivileged import shared_folder, unprivileged


def write(path: Path, text: str = "# Note\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def rel_paths(walk: Walk) -> list[str]:
    return [item.rel_path for item in walk.files]


def documents(root: Path, *, exclude: tuple[Path, ...] = (), spent: int = 0) -> Walk:
    return walk_tree(root, keep=is_document_name, exclude=exclude, spent=spent)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path.resolve() / "root"
    folder.mkdir()
    return folder


def test_the_rules_keep_documents_and_leave_out_hidden_and_skipped_folders(root: Path) -> None:
    for name in (
        "a.md",
        "sub/b.md",
        ".hidden.md",
        ".git/c.md",
        "sub/.obsidian/d.md",
        "node_modules/pkg/e.md",
        "target/doc/f.md",
        "notes.txt",
    ):
        write(root / name)
    walk = documents(root)
    assert rel_paths(walk) == ["a.md", "sub/b.md"]
    assert [item.path for item in walk.files] == [root / "a.md", root / "sub" / "b.md"]
    assert not walk.truncated
    assert walk.unreadable == []
    assert walk.too_deep == walk.links_out == walk.undecodable == []


def test_the_order_is_by_relative_path_whatever_order_files_were_made_in(root: Path) -> None:
    names = ["z.md", "b/y.md", "a.md", "b/a.md", "B.md", "é.md", "b.md"]
    for name in names:
        write(root / name)
    assert rel_paths(documents(root)) == sorted(names)


def test_a_folder_link_to_its_own_parent_is_not_entered(root: Path) -> None:
    write(root / "sub" / "a.md")
    (root / "sub" / "loop").symlink_to(root, target_is_directory=True)
    (root / "self").symlink_to(root / "self")
    walk = documents(root)
    assert rel_paths(walk) == ["sub/a.md"]
    assert not walk.truncated


def test_file_links_that_loop_are_reported_not_followed(root: Path) -> None:
    (root / "a.md").symlink_to(root / "b.md")
    (root / "b.md").symlink_to(root / "a.md")
    (root / "c.md").symlink_to(root / "c.md")
    walk = documents(root)
    assert walk.files == []
    assert walk.links_out == [root / "a.md", root / "b.md", root / "c.md"]


def test_links_out_of_the_root_are_not_followed(tmp_path: Path, root: Path) -> None:
    outside = write(tmp_path / "outside" / "x.md").parent
    (root / "folder").symlink_to(outside, target_is_directory=True)
    (root / "out.md").symlink_to(outside / "x.md")
    (root / "up.md").symlink_to(Path("..") / "outside" / "x.md")
    walk = documents(root)
    assert walk.files == []
    assert walk.links_out == [root / "out.md", root / "up.md"]


def test_a_file_link_inside_the_root_is_kept_under_its_own_name(root: Path) -> None:
    target = write(root / "real" / "a.md")
    write(root / ".secret" / "key.md")
    write(root / "node_modules" / "n.md")
    (root / "link.md").symlink_to(target)
    (root / "dot.md").symlink_to(root / ".secret" / "key.md")
    (root / "dep.md").symlink_to(root / "node_modules" / "n.md")
    (root / "env.md").symlink_to(write(root / ".env", "SECRET=1\n"))
    (root / "text.md").symlink_to(write(root / "notes.txt"))
    (root / "dangling.md").symlink_to(root / "missing.md")
    (root / "dir.md").symlink_to(root / "real", target_is_directory=True)
    walk = documents(root)
    assert [(item.rel_path, item.target) for item in walk.files] == [
        ("link.md", target),
        ("real/a.md", target),
    ]
    assert sorted(path.name for path in walk.links_out) == [
        "dangling.md",
        "dep.md",
        "dir.md",
        "dot.md",
        "env.md",
        "text.md",
    ]


def test_a_tree_deeper_than_the_limit_is_cut_at_the_limit_and_says_where(root: Path) -> None:
    folder = root
    for level in range(walker.MAX_DEPTH + 8):
        folder = folder / f"d{level}"
        write(folder / f"at-{level + 1}.md")
    walk = documents(root)
    depths = [item.rel_path.count("/") for item in walk.files]
    assert depths == list(range(1, walker.MAX_DEPTH + 1))
    assert walk.depth_cut
    assert walk.truncated
    assert [path.relative_to(root).as_posix().count("/") for path in walk.too_deep] == [
        walker.MAX_DEPTH
    ]
    assert walk.max_depth == walker.MAX_DEPTH


def test_the_entry_budget_stops_the_walk_and_counts_what_others_spent(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walker, "MAX_ENTRIES", 5)
    for index in range(4):
        write(root / f"{index}.md")
    whole = documents(root)
    assert len(whole.files) == 4
    assert not whole.budget_cut
    assert whole.entries == 4
    after = documents(root, spent=2)
    assert len(after.files) == 3
    assert after.budget_cut
    assert after.truncated
    assert after.max_entries == 5


def test_excluded_folders_are_not_entered(root: Path) -> None:
    write(root / "a.md")
    write(root / "inner" / "b.md")
    assert rel_paths(documents(root, exclude=(root / "inner",))) == ["a.md"]


def test_names_that_are_not_utf8_are_reported_and_left_out(root: Path) -> None:
    write(root / "good.md")
    base = os.fsencode(root)
    with open(base + b"/bad-\xff.md", "wb") as handle:  # noqa: PTH123 - a bytes path
        handle.write(b"# Bad\n")
    os.mkdir(base + b"/dir-\xfe")  # noqa: PTH102 - a bytes path cannot be a Path
    with open(base + b"/dir-\xfe/inside.md", "wb") as handle:  # noqa: PTH123
        handle.write(b"# Inside\n")
    walk = documents(root)
    assert rel_paths(walk) == ["good.md"]
    assert sorted(os.fsencode(path) for path in walk.undecodable) == [
        base + b"/bad-\xff.md",
        base + b"/dir-\xfe",
    ]


def test_files_and_folders_vanishing_mid_walk_are_left_out_without_error(root: Path) -> None:
    write(root / "a.md")
    write(root / "b.md")
    write(root / "c" / "d.md")
    write(root / "e.md")
    (root / "link.md").symlink_to(root / "e.md")

    def keep_and_delete(name: str) -> bool:
        # The walk asks about a.md first, after listing the root and before looking at the
        # rest: delete them then, as another program could.
        if name == "a.md":
            (root / "b.md").unlink()
            (root / "e.md").unlink()
            shutil.rmtree(root / "c")
        return is_document_name(name)

    walk = walk_tree(root, keep=keep_and_delete)
    assert rel_paths(walk) == ["a.md"]
    assert walk.unreadable == []
    assert walk.links_out == [root / "link.md"]


def test_a_folder_that_cannot_be_read_is_reported() -> None:
    with shared_folder() as root:
        for name in ("a.md", "locked/b.md", "open/c.md"):
            write(root / name).chmod(0o644)
        (root / "open").chmod(0o755)
        (root / "locked").chmod(0o000)
        walk = unprivileged(lambda: documents(root))
    assert rel_paths(walk) == ["a.md", "open/c.md"]
    assert [item.path for item in walk.unreadable] == [root / "locked"]
    assert "ermission denied" in walk.unreadable[0].reason


def test_a_root_that_is_missing_or_not_a_folder_walks_empty(tmp_path: Path) -> None:
    assert documents(tmp_path / "missing").files == []
    assert documents(tmp_path / "missing").unreadable == []
    file = write(tmp_path / "file.md")
    walk = documents(file)
    assert walk.files == []
    assert walk.unreadable == []
