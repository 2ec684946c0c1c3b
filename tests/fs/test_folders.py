"""AllowedFolders: containment judged on resolved paths, one refusal for everything outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quire.core.errors import InvalidArgument, PathRefused
from quire.core.paths import expand_path
from quire.fs.sandbox import AllowedFolders, resolve_folder

HOME = Path("/home/nobody")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Documents (allowed) with links in and out, a sibling Documents2, and an outside folder."""
    root = tmp_path.resolve()
    docs = root / "Documents"
    (docs / "sub").mkdir(parents=True)
    (root / "Documents2").mkdir()
    (root / "outside" / "sub").mkdir(parents=True)
    for path in (docs / "x.md", root / "Documents2" / "x.md", root / "outside" / "x.md"):
        path.write_text(f"{path}", encoding="utf-8")
    (docs / "in.md").symlink_to(docs / "x.md")
    (docs / "out.md").symlink_to(root / "outside" / "x.md")
    (docs / "outdir").symlink_to(root / "outside")
    (docs / "up").symlink_to(root / "outside" / "sub")
    (docs / "dangling.md").symlink_to(docs / "nothing.md")
    (docs / "loop.md").symlink_to(docs / "loop2.md")
    (docs / "loop2.md").symlink_to(docs / "loop.md")
    (root / "outside" / "back.md").symlink_to(docs / "x.md")
    (root / "outside" / "backdir").symlink_to(docs)
    return root


ALLOWED = [
    "Documents/x.md",
    "Documents/missing.md",
    "Documents/new/deeper/x.md",
    "Documents/sub/../x.md",
    "Documents/in.md",
    "Documents/sub",
    "Documents/missing/../x.md",
    "outside/backdir/x.md",  # the folder resolves into Documents, and so does the file
]

REFUSED = [
    "Documents2/x.md",
    "Documents2/missing.md",
    "outside/x.md",
    "outside/missing.md",
    "outside/new/x.md",
    "Documents/../outside/x.md",
    "Documents/../Documents2/x.md",
    "Documents/out.md",
    "Documents/outdir/x.md",
    "Documents/outdir/missing.md",
    "Documents/up/../x.md",
    "outside/back.md",
    "Documents/dangling.md",
    "Documents/loop.md",
    "Documents/missing/../../outside/x.md",
    "Documents",
    "x.md",
]


@pytest.mark.parametrize("relative", ALLOWED)
def test_a_path_inside_an_allowed_folder_passes_resolved(tree: Path, relative: str) -> None:
    folders = AllowedFolders([tree / "Documents"])
    judged = folders.check(tree / relative)
    assert judged == Path(os.path.realpath(tree / relative))
    assert folders.contains(tree / relative)


@pytest.mark.parametrize("relative", REFUSED)
def test_a_path_outside_gets_the_one_refusal_naming_the_folders(tree: Path, relative: str) -> None:
    folders = AllowedFolders([tree / "Documents"])
    path = tree / relative
    with pytest.raises(PathRefused) as caught:
        folders.check(path, verb="read")
    assert str(caught.value) == (
        f"Refusing to read '{path}': it is not inside an allowed folder. "
        f"The allowed folders are '{tree / 'Documents'}'; pass a path inside one of them."
    )
    assert not folders.contains(path)


def test_the_refusal_is_the_same_whether_or_not_the_path_exists(tree: Path) -> None:
    folders = AllowedFolders([tree / "Documents"])
    messages = []
    for name in ("x.md", "missing.md"):
        with pytest.raises(PathRefused) as caught:
            folders.check(tree / "outside" / name)
        messages.append(str(caught.value).replace(name, "NAME"))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    ("raw", "allowed"),
    [
        ("Documents//x.md", True),
        ("Documents/./x.md", True),
        ("Documents/x.md/", True),
        ("./Documents/x.md", True),
        ("Documents/sub/../x.md", True),
        ("Documents/../outside/x.md", False),
        ("Documents/../Documents2/x.md", False),
        ("Documents/up/../x.md", False),
        ("Documents/outdir/../x.md", False),
        ("Documents/outdir/../Documents/x.md", True),
        ("../outside/x.md", False),
    ],
)
def test_traversal_strings_are_judged_after_full_resolution(
    tree: Path, raw: str, allowed: bool
) -> None:
    folders = AllowedFolders([tree / "Documents"])
    expanded = expand_path(raw, cwd=tree, home=HOME)
    assert folders.contains(expanded) is allowed


def test_a_leading_double_slash_is_judged_as_the_same_path(tree: Path) -> None:
    folders = AllowedFolders([tree / "Documents"])
    assert folders.contains(expand_path(f"/{tree}/Documents/x.md", cwd=tree, home=HOME))
    assert not folders.contains(expand_path(f"/{tree}/outside/x.md", cwd=tree, home=HOME))


def test_a_file_under_any_of_several_folders_passes(tree: Path) -> None:
    folders = AllowedFolders([tree / "Documents", tree / "outside"])
    assert folders.contains(tree / "outside" / "x.md")
    assert folders.contains(tree / "Documents" / "out.md")
    assert not folders.contains(tree / "Documents2" / "x.md")


def test_the_refusal_lists_every_allowed_folder(tree: Path) -> None:
    folders = AllowedFolders([tree / "Documents", tree / "outside"])
    with pytest.raises(PathRefused, match=r"'.*/Documents', '.*/outside'; pass a path"):
        folders.check(tree / "Documents2" / "x.md")


def test_with_no_folders_every_check_is_refused_saying_how_to_add_one(tree: Path) -> None:
    hint = "Add one with `quire serve --allow DIR`."
    folders = AllowedFolders([], how_to_add=hint)
    for path in (tree / "Documents" / "x.md", tree / "nothing.md"):
        with pytest.raises(PathRefused, match="no folder is allowed yet") as caught:
            folders.check(path)
        assert str(caught.value).endswith(hint)
        assert not folders.contains(path)


def test_with_no_folders_and_no_hint_the_refusal_still_says_what_to_do(tree: Path) -> None:
    with pytest.raises(PathRefused, match="Add a folder to the allowed folders"):
        AllowedFolders([]).check(tree / "x.md")


def test_folders_are_resolved_and_deduplicated_in_order(tree: Path) -> None:
    (tree / "docs-link").symlink_to(tree / "Documents")
    folders = AllowedFolders([tree / "outside", tree / "docs-link", tree / "Documents"])
    assert folders.folders == (tree / "outside", tree / "Documents")
    assert folders.check(tree / "docs-link" / "x.md") == tree / "Documents" / "x.md"


def test_a_sibling_with_a_longer_name_is_not_inside(tree: Path) -> None:
    assert not AllowedFolders([tree / "Documents"]).contains(tree / "Documents2" / "x.md")


@pytest.mark.parametrize("folder", [Path("/"), Path("//"), Path("/tmp/..")])
def test_the_root_of_the_file_system_is_never_allowed(folder: Path) -> None:
    with pytest.raises(InvalidArgument, match="root of the file system") as caught:
        AllowedFolders([folder])
    assert caught.value.argument == "folders"


def test_a_link_to_the_root_is_not_allowed_either(tmp_path: Path) -> None:
    (tmp_path / "everything").symlink_to("/")
    with pytest.raises(InvalidArgument, match="root of the file system"):
        resolve_folder(tmp_path / "everything")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing", "does not exist"),
        ("file.md", "is not a folder"),
        ("dangling", "does not exist"),
    ],
)
def test_an_unusable_folder_is_refused_when_the_set_is_built(
    tmp_path: Path, name: str, message: str
) -> None:
    (tmp_path / "file.md").write_text("x", encoding="utf-8")
    (tmp_path / "dangling").symlink_to("nowhere")
    with pytest.raises(InvalidArgument, match=message):
        AllowedFolders([tmp_path / name])


def test_a_relative_folder_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="absolute path"):
        AllowedFolders([Path("Documents")])


def test_a_relative_path_is_a_programming_error_for_check_and_outside_for_contains(
    tree: Path,
) -> None:
    folders = AllowedFolders([tree / "Documents"])
    with pytest.raises(ValueError, match="absolute"):
        folders.check(Path("Documents/x.md"))
    assert not folders.contains(Path("Documents/x.md"))


def test_a_deeply_nested_missing_path_is_judged_without_recursion_limits(tree: Path) -> None:
    deep = tree / "Documents" / Path(*(["d"] * 1500)) / "x.md"
    assert AllowedFolders([tree / "Documents"]).contains(deep)
