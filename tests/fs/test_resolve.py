"""resolve_leniently gives what os.path.realpath gives, for every kind of path: the kernel's
quick answer where it can open the path, the portable one where it cannot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quire.fs import resolve
from quire.fs.resolve import resolve_leniently, resolve_leniently_as_text


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "real" / "deep" / "note.md").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "relative").symlink_to("real/deep")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "else")
    (tmp_path / "real" / "up").symlink_to("..")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "rom än").mkdir()
    return tmp_path


CASES = [
    "real/deep/note.md",
    "link/deep/note.md",
    "relative/note.md",
    "link/deep/../deep/note.md",
    "real/up/real/up/link",
    "link/deep/missing.md",
    "missing/folder/note.md",
    "loop",
    "loop/inside.md",
    "dangling",
    "dangling/inside.md",
    "pipe",
    "rom än",
    "real/deep/note.md/",
    "real/deep/note.md/inside",
]


@pytest.mark.parametrize("relative", CASES)
@pytest.mark.parametrize("quick", [True, False], ids=["kernel", "portable"])
def test_every_path_resolves_as_realpath_does(
    tree: Path, relative: str, quick: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resolve, "_BY_DESCRIPTOR", quick and resolve._BY_DESCRIPTOR)
    path = tree / relative
    assert resolve_leniently(path) == Path(os.path.realpath(path))
    assert resolve_leniently_as_text(path) == os.path.realpath(path)


def test_a_relative_path_resolves_against_the_working_folder(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    assert resolve_leniently(Path("link/deep/note.md")) == tree / "real" / "deep" / "note.md"


def test_a_file_deleted_while_it_is_resolved_is_named_by_its_path(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/proc`` names a deleted file 'PATH (deleted)': that is never taken as its path."""
    note = tree / "link" / "deep" / "note.md"
    real_readlink = os.readlink

    def deleted_meanwhile(path: str) -> str:
        found = real_readlink(path)
        return found + " (deleted)" if str(path).startswith("/proc/self/fd/") else found

    monkeypatch.setattr(os, "readlink", deleted_meanwhile)
    assert resolve_leniently(note) == tree / "real" / "deep" / "note.md"
