"""The walker's rule for one path (``walked_target``, ``is_walked_folder``) agrees with a walk:
what a watcher reports is in the index exactly when a walk of the workspace would list it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from watchfiles import Change

from quire.fs.sandbox import is_document_name
from quire.fs.walk import MAX_DEPTH, is_walked_folder, walk_tree, walked_target
from quire.vault.watch import fold_changes


def build(root: Path) -> list[Path]:
    """An adversarial folder: every path a walk must take or leave, returned in one list."""
    made: list[Path] = []

    def file(rel: str, text: str = "x\n") -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        made.append(path)

    for rel in ["a.md", "sub/b.md", ".hidden.md", ".git/c.md", "node_modules/d.md",
                "target/e.md", "notes.txt", "sub/.dot/f.md", "x.MARKDOWN"]:  # fmt: skip
        file(rel)
    file("/".join(f"d{n}" for n in range(MAX_DEPTH)) + "/ok.md")
    file("/".join(f"d{n}" for n in range(MAX_DEPTH + 1)) + "/deep.md")
    outside = root.parent / "outside.md"
    outside.write_text("secret\n", encoding="utf-8")
    links = {
        "in-link.md": root / "a.md",
        "out-link.md": outside,
        "dot-link.md": root / ".hidden.md",
        "txt-link.md": root / "notes.txt",
        "dangling.md": root / "nothing.md",
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
        made.append(root / name)
    (root / "loop.md").symlink_to(root / "loop.md")
    made.append(root / "loop.md")
    (root / "folder-link").symlink_to(root / "sub", target_is_directory=True)
    made.append(root / "folder-link" / "b.md")
    os.mkfifo(root / "fifo.md")
    made.append(root / "fifo.md")
    return made


def test_one_path_is_taken_exactly_when_a_walk_lists_it(tmp_path: Path) -> None:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    made = build(root)
    walked = {item.path: item.target for item in walk_tree(root, keep=is_document_name).files}
    judged = {
        path: target
        for path in made
        if (target := walked_target(root, path, keep=is_document_name)) is not None
    }
    assert judged == walked
    assert judged[root / "in-link.md"] == root / "a.md"


@pytest.mark.parametrize(
    ("rel", "entered"),
    [
        ("", True),
        ("sub", True),
        (".git", False),
        ("node_modules", False),
        ("sub/.dot", False),
        ("folder-link", False),
        ("/".join(f"d{n}" for n in range(MAX_DEPTH)), True),
        ("/".join(f"d{n}" for n in range(MAX_DEPTH + 1)), False),
    ],
)
def test_a_folder_is_entered_by_the_walks_rules(tmp_path: Path, rel: str, entered: bool) -> None:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    build(root)
    assert is_walked_folder(root, root / rel if rel else root) is entered


def test_a_watcher_can_be_told_of_folders_too(tmp_path: Path) -> None:
    folder = tmp_path / "moved-in"
    folder.mkdir()
    raw = [(Change.added, str(folder))]
    assert fold_changes(raw) == []
    assert [change.path for change in fold_changes(raw, folders=True)] == [folder]
