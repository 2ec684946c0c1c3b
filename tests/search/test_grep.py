"""The bounded word search: the walk rules, matching and ranking, unreadable files, snippets."""

import os
from pathlib import Path

import pytest

from quire.fs import walk as walker
from quire.fs.folders import AllowedFolders
from quire.search import grep
from quire.search.grep import Unread, grep_files, unread_note, walk_folder
from quire.vault.workspaces import Workspaces


def write(path: Path, text: str | bytes = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_the_walk_takes_markdown_documents_and_skips_the_rest(tmp_path: Path) -> None:
    keep = [write(tmp_path / "a.md"), write(tmp_path / "sub" / "b.MARKDOWN")]
    write(tmp_path / ".hidden.md")
    write(tmp_path / "c.txt")
    write(tmp_path / ".git" / "d.md")
    write(tmp_path / "node_modules" / "e.md")
    write(tmp_path / "target" / "f.md")
    walk = walk_folder(tmp_path)
    assert sorted(walk.files) == sorted(keep)
    assert not walk.depth_cut
    assert not walk.file_cap


def test_a_folder_link_is_not_followed_and_a_file_link_only_inside_the_folder(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    target = write(outside / "t.md")
    root = tmp_path / "root"
    inside = write(root / "a.md")
    (root / "folder").symlink_to(outside, target_is_directory=True)
    (root / "out.md").symlink_to(target)
    (root / "link.md").symlink_to(inside)
    (root / ".dot.md").symlink_to(inside)
    (root / "env.md").symlink_to(write(root / ".env"))
    assert walk_folder(root).files == [inside]


def test_folders_deeper_than_the_limit_are_cut_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walker, "MAX_DEPTH", 2)
    deep = tmp_path
    for level in range(4):
        deep = deep / f"l{level}"
    write(deep / "deep.md")
    write(tmp_path / "l0" / "shallow.md")
    walk = walk_folder(tmp_path)
    assert walk.files == [tmp_path / "l0" / "shallow.md"]
    assert walk.depth_cut
    assert walk.max_depth == 2


def test_the_walk_keeps_the_first_files_up_to_the_search_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep, "MAX_FILES", 3)
    for index in range(5):
        write(tmp_path / f"{index}.md")
    walk = walk_folder(tmp_path)
    assert walk.files == [tmp_path / f"{index}.md" for index in range(3)]
    assert walk.file_cap


def test_the_search_walks_the_same_folders_as_the_file_tree(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    for name in ("a.md", "node_modules/b.md", "target/c.md", ".git/d.md", "sub/e.md"):
        write(root / name)
    listed = Workspaces([root]).all_files()
    assert walk_folder(root).files == [item.path for item in listed.files]


def test_grep_ignores_case_and_ranks_by_matching_lines(tmp_path: Path) -> None:
    one = write(tmp_path / "one.md", "# One\nalpha\n")
    two = write(tmp_path / "two.md", "# Two\nALPHA beta\nAlphabet\n")
    write(tmp_path / "none.md", "nothing\n")
    result = grep_files(sorted(tmp_path.iterdir()), "alpha", allowed=AllowedFolders([tmp_path]))
    assert [hit.path for hit in result.hits] == [str(two), str(one)]
    assert result.hits[0].title == "Two"
    assert result.hits[0].matches == 2
    assert [(line.line, line.text) for line in result.hits[0].lines] == [
        (2, "ALPHA beta"),
        (3, "Alphabet"),
    ]
    assert result.searched == 3


def test_files_that_cannot_be_read_are_reported(tmp_path: Path) -> None:
    latin = write(tmp_path / "latin.md", b"caf\xe9\n")
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    result = grep_files(
        [latin, fifo, tmp_path / "gone.md"], "x", allowed=AllowedFolders([tmp_path])
    )
    reasons = {item.path: item.reason for item in result.unread}
    assert reasons[str(latin)].startswith("not UTF-8 text (byte 4")
    assert reasons[str(fifo)] == "not a regular Markdown document"
    assert "does not exist" in reasons[str(tmp_path / "gone.md")]


def test_a_file_outside_the_allowed_folders_is_not_read(tmp_path: Path) -> None:
    inside = tmp_path / "in"
    outside = write(tmp_path / "out.md", "secret\n")
    inside.mkdir()
    result = grep_files([outside], "secret", allowed=AllowedFolders([inside]))
    assert result.hits == []
    assert result.unread == [Unread(str(outside), "outside the allowed folders")]


def test_the_byte_budget_stops_the_search(tmp_path: Path) -> None:
    files = [write(tmp_path / f"{i}.md", "word\n" * 10) for i in range(3)]
    result = grep_files(files, "word", max_total_bytes=60, allowed=AllowedFolders([tmp_path]))
    assert result.bytes_cut
    assert len(result.hits) == 1


def test_the_unread_note_names_three_files_and_counts_the_rest() -> None:
    unread = [Unread(f"/v/{i}.md", "larger than 16 MiB") for i in range(5)]
    note = unread_note(unread)
    assert note is not None
    assert note.startswith("5 files were not searched because they could not be read: ")
    assert "/v/2.md (larger than 16 MiB), and 2 more." in note
    assert "/v/3.md" not in note
    assert unread_note([]) is None
    single = unread_note(unread[:1])
    assert single is not None and single.startswith("1 file was not searched because it")


LONG = "x" * 500 + " the needle is here " + "y" * 500


@pytest.mark.parametrize(
    ("line", "query", "shown"),
    [
        ("short line with a needle", "needle", "short line with a needle"),
        ("  padded needle  ", "needle", "padded needle"),
        (LONG, "needle", "…" + LONG[505 - 60 : 505 - 60 + 200] + "…"),
        ("needle " + "z" * 300, "needle", ("needle " + "z" * 300)[:200] + "…"),
        ("z" * 300 + " needle", "needle", "…" + ("z" * 300 + " needle")[-200:]),
        ("ß" * 300 + "Needle", "NEEDLE", "…" + ("ß" * 300 + "Needle")[-200:]),
        ("Straße " * 40 + "Ende", "STRASSE ENDE", "…" + ("Straße " * 40 + "Ende")[-200:]),
    ],
)
def test_around_match_shows_the_part_of_a_long_line_that_holds_the_match(
    tmp_path: Path, line: str, query: str, shown: str
) -> None:
    path = write(tmp_path / "long.md", f"# Long\n{line}\n")
    result = grep_files([path], query, around_match=True, allowed=AllowedFolders([tmp_path]))
    assert [(item.line, item.text) for item in result.hits[0].lines] == [(2, shown)]
    assert query.casefold() in shown.casefold()


def test_without_around_match_a_long_line_shows_its_first_200_characters(tmp_path: Path) -> None:
    path = write(tmp_path / "long.md", LONG + "\n")
    result = grep_files([path], "needle", allowed=AllowedFolders([tmp_path]))
    assert result.hits[0].lines[0].text == LONG[:200]
