"""Confinement by descriptors: links inside are followed, links out never, and a swapped folder
is noticed, on adversarial trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import FileMissing, PathRefused
from quire.fs import anchored
from quire.fs.documents import delete_file, find_file, read_document, write_document
from quire.fs.folders import AllowedFolders


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """ws/ (allowed) with a/doc.md, and out/ (not allowed) with d/doc.md holding a secret."""
    (tmp_path / "ws" / "a").mkdir(parents=True)
    (tmp_path / "ws" / "a" / "doc.md").write_text("inside", encoding="utf-8")
    (tmp_path / "out" / "d").mkdir(parents=True)
    (tmp_path / "out" / "d" / "doc.md").write_text("secret", encoding="utf-8")
    return tmp_path


def allowed(tree: Path, *names: str) -> AllowedFolders:
    return AllowedFolders([tree / name for name in names or ("ws",)])


def test_a_folder_link_inside_the_workspace_is_followed(tree: Path) -> None:
    (tree / "ws" / "alias").symlink_to("a")
    found, text = read_document(allowed(tree), tree / "ws" / "alias" / "doc.md")
    assert (found.path, text) == ((tree / "ws" / "a" / "doc.md").resolve(), "inside")


def test_an_absolute_link_that_stays_inside_is_followed(tree: Path) -> None:
    (tree / "ws" / "abs.md").symlink_to(tree / "ws" / "a" / "doc.md")
    assert read_document(allowed(tree), tree / "ws" / "abs.md")[1] == "inside"


@pytest.mark.parametrize("target", ["../out/d", "ABS"])
def test_a_folder_link_out_of_the_workspace_is_refused(tree: Path, target: str) -> None:
    (tree / "ws" / "escape").symlink_to(tree / "out" / "d" if target == "ABS" else f"../{target}")
    with pytest.raises(PathRefused, match=r"not inside an allowed folder .*symbolic link|climbs"):
        read_document(allowed(tree), tree / "ws" / "escape" / "doc.md")


def test_a_file_link_out_of_the_workspace_is_refused(tree: Path) -> None:
    (tree / "ws" / "secret.md").symlink_to(tree / "out" / "d" / "doc.md")
    with pytest.raises(PathRefused, match="not inside an allowed folder"):
        find_file(allowed(tree), tree / "ws" / "secret.md")


def test_dot_dot_cannot_climb_out(tree: Path) -> None:
    with pytest.raises(PathRefused, match="climbs out"):
        read_document(allowed(tree), tree / "ws" / "a" / ".." / ".." / "out" / "d" / "doc.md")


def test_a_link_into_another_allowed_folder_is_followed(tree: Path) -> None:
    (tree / "ws" / "other").symlink_to(tree / "out" / "d")
    both = allowed(tree, "ws", "out")
    assert read_document(both, tree / "ws" / "other" / "doc.md")[1] == "secret"


def test_a_path_outside_every_folder_names_them(tree: Path) -> None:
    with pytest.raises(PathRefused, match=r"The allowed folders are '.*/ws'"):
        find_file(allowed(tree), tree / "out" / "d" / "doc.md")


def test_a_document_in_a_hidden_folder_is_refused_unless_the_folder_is_allowed_itself(
    tree: Path,
) -> None:
    (tree / "ws" / ".git").mkdir()
    (tree / "ws" / ".git" / "notes.md").write_text("x", encoding="utf-8")
    with pytest.raises(PathRefused, match=r"hidden folder '\.git'"):
        find_file(allowed(tree), tree / "ws" / ".git" / "notes.md")
    (tree / "ws" / "tricky.md").symlink_to(".git/notes.md")
    with pytest.raises(PathRefused, match=r"hidden folder '\.git'"):
        find_file(allowed(tree), tree / "ws" / "tricky.md")
    assert find_file(allowed(tree, "ws/.git"), tree / "ws" / ".git" / "notes.md")


def test_a_loop_of_folder_links_is_refused(tree: Path) -> None:
    (tree / "ws" / "x").symlink_to("y")
    (tree / "ws" / "y").symlink_to("x")
    with pytest.raises(PathRefused, match="loop of symbolic links"):
        find_file(allowed(tree), tree / "ws" / "x" / "doc.md")


def test_a_missing_folder_is_missing_and_made_only_when_asked(tree: Path) -> None:
    target = tree / "ws" / "new" / "deeper" / "n.md"
    with pytest.raises(FileMissing, match="does not exist"):
        write_document(allowed(tree), target, "x")
    write_document(allowed(tree), target, "x", make_folders=True)
    assert target.read_text(encoding="utf-8") == "x"


def test_folders_are_never_made_through_a_link_out(tree: Path) -> None:
    (tree / "ws" / "escape").symlink_to(tree / "out")
    with pytest.raises(PathRefused):
        write_document(
            allowed(tree), tree / "ws" / "escape" / "new" / "n.md", "x", make_folders=True
        )
    assert not (tree / "out" / "new").exists()


def test_a_write_into_a_swapped_folder_is_refused_and_writes_nothing(tree: Path) -> None:
    folders = allowed(tree)
    found = find_file(folders, tree / "ws" / "a" / "doc.md")
    (tree / "ws" / "a").rename(tree / "ws" / "a-old")
    (tree / "ws" / "b").mkdir()
    (tree / "ws" / "a").symlink_to("b")
    with pytest.raises(PathRefused, match="its folder was replaced"):
        write_document(folders, tree / "ws" / "a" / "doc.md", "new", folder=found.folder)
    assert (tree / "ws" / "a-old" / "doc.md").read_text(encoding="utf-8") == "inside"
    assert list((tree / "ws" / "b").iterdir()) == []
    # The same folder reached another way is the same folder: the write goes there.
    (tree / "ws" / "a").unlink()
    (tree / "ws" / "a").symlink_to("a-old")
    write_document(folders, tree / "ws" / "a" / "doc.md", "new", folder=found.folder)
    assert (tree / "ws" / "a-old" / "doc.md").read_text(encoding="utf-8") == "new"


def test_delete_removes_the_file_and_says_when_nothing_was_there(tree: Path) -> None:
    path = tree / "ws" / "a" / "doc.md"
    assert delete_file(allowed(tree), path) is True
    assert not path.exists()
    assert delete_file(allowed(tree), path) is False


def test_delete_through_a_link_out_is_refused_and_deletes_nothing(tree: Path) -> None:
    (tree / "ws" / "escape").symlink_to(tree / "out" / "d")
    with pytest.raises(PathRefused):
        delete_file(allowed(tree), tree / "ws" / "escape" / "doc.md")
    assert (tree / "out" / "d" / "doc.md").exists()


def test_a_folder_moved_while_it_was_walked_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = anchored._descriptor_path

    def moved(folder: int) -> str | None:
        where = real(folder)
        return None if where is None else where + "-moved"

    monkeypatch.setattr(anchored, "_descriptor_path", moved)
    with pytest.raises(PathRefused, match="moved while it was being opened"):
        find_file(allowed(tree), tree / "ws" / "a" / "doc.md")


def test_no_descriptor_is_left_open(tree: Path) -> None:
    descriptors = Path("/proc/self/fd")
    before = len(list(descriptors.iterdir())) if descriptors.exists() else None
    folders = allowed(tree)
    for _ in range(200):
        read_document(folders, tree / "ws" / "a" / "doc.md")
        with pytest.raises(PathRefused):
            read_document(folders, tree / "ws" / "a" / ".." / ".." / "out" / "d" / "doc.md")
        with pytest.raises(FileMissing):
            read_document(folders, tree / "ws" / "nope" / "x.md")
    if before is not None:
        assert len(list(descriptors.iterdir())) == before
