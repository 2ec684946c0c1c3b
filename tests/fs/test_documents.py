"""Finding a document beneath allowed folders: the document rule, links, and what is missing.

The rules every reader shares (``quire.fs.documents.find_file``), judged here with the whole
disk allowed (as a person's own command is); confinement is ``test_anchored.py``'s.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from quire.core.errors import FileMissing, PathRefused
from quire.core.paths import expand_path
from quire.fs.documents import find_file
from quire.fs.folders import AllowedFolders

CWD = Path("/work/cwd")
HOME = Path("/home/ann")
RULE = "only Markdown documents (.md, .markdown, .mdown, .mkd, .mdx) that are not dotfiles"


def find(path: Path, *, verb: str = "read") -> Path:
    return find_file(AllowedFolders.whole_disk(), path, verb=verb).path


@pytest.mark.parametrize(
    "name", ["notes.md", "NOTES.MD", "a.Markdown", "b.mdown", "c.mkd", "d.mdx"]
)
def test_a_markdown_document_passes_and_comes_back_resolved(tmp_path: Path, name: str) -> None:
    document = tmp_path / name
    document.write_text("# hi\n", encoding="utf-8")
    assert find(document) == document.resolve()


@pytest.mark.parametrize(
    "name", ["notes.txt", ".notes.md", ".env", "notes.md.bak", "Makefile", "x.md~"]
)
def test_a_file_that_is_not_a_markdown_document_is_refused(tmp_path: Path, name: str) -> None:
    document = tmp_path / name
    document.write_text("secret", encoding="utf-8")
    with pytest.raises(PathRefused) as caught:
        find(document)
    assert str(caught.value) == f"Refusing to read '{document}': {RULE} can be read."


def test_the_name_is_judged_before_the_disk_so_a_missing_key_file_is_refused_not_missing(
    tmp_path: Path,
) -> None:
    with pytest.raises(PathRefused):
        find(tmp_path / "missing.pem")


@pytest.mark.parametrize(
    ("verb", "participle"),
    [("open", "opened"), ("present", "presented"), ("review", "reviewed"), ("write", "written")],
)
def test_the_refusal_names_the_action(tmp_path: Path, verb: str, participle: str) -> None:
    path = tmp_path / "a.txt"
    with pytest.raises(PathRefused, match=f"^Refusing to {verb} .* can be {participle}\\.$"):
        find(path, verb=verb)


def test_a_missing_document_says_it_does_not_exist(tmp_path: Path) -> None:
    path = tmp_path / "gone.md"
    with pytest.raises(FileMissing, match=f"^Cannot read '{path}': the file does not exist\\."):
        find(path)


@pytest.mark.parametrize("relative", ["nofolder/gone.md", "file.md/inside.md"])
def test_a_document_under_a_missing_or_file_folder_is_missing(
    tmp_path: Path, relative: str
) -> None:
    (tmp_path / "file.md").write_text("x", encoding="utf-8")
    with pytest.raises(FileMissing, match="does not exist"):
        find(tmp_path / relative)


def test_a_folder_named_like_a_document_is_refused_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "x.md").mkdir()
    with pytest.raises(PathRefused, match="it is a folder, not a document"):
        find(tmp_path / "x.md")


def test_a_fifo_named_like_a_document_is_refused_without_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.md")
    with pytest.raises(PathRefused, match=r"named pipe \(FIFO\), not a regular file"):
        find(tmp_path / "x.md", verb="open")


def test_a_markdown_link_to_a_dotfile_is_refused_after_resolving(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=1", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to(tmp_path / ".env")
    with pytest.raises(PathRefused, match=r"it is a symbolic link to .*/\.env', and only Markdown"):
        find(tmp_path / "notes.md")


def test_a_markdown_link_to_a_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "id_ed25519").write_text("key", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to("id_ed25519")
    with pytest.raises(PathRefused, match="symbolic link"):
        find(tmp_path / "notes.md")


def test_a_link_named_as_a_dotfile_is_refused_by_its_own_name(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("x", encoding="utf-8")
    (tmp_path / ".notes.md").symlink_to("real.md")
    with pytest.raises(PathRefused, match=re.escape(RULE)):
        find(tmp_path / ".notes.md")


def test_a_link_to_a_document_resolves_to_that_document(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("x", encoding="utf-8")
    (tmp_path / "link.md").symlink_to("real.md")
    assert find(tmp_path / "link.md") == (tmp_path / "real.md").resolve()


def test_a_link_to_a_folder_is_refused_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    (tmp_path / "link.md").symlink_to("dir.md")
    with pytest.raises(PathRefused, match="folder"):
        find(tmp_path / "link.md")


def test_a_dangling_link_is_missing_and_says_it_is_a_link(tmp_path: Path) -> None:
    (tmp_path / "link.md").symlink_to("nowhere.md")
    with pytest.raises(FileMissing, match="symbolic link to a file that does not exist"):
        find(tmp_path / "link.md")


def test_a_loop_of_links_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").symlink_to("b.md")
    (tmp_path / "b.md").symlink_to("a.md")
    with pytest.raises(PathRefused, match="loop of symbolic links"):
        find(tmp_path / "a.md")


def test_only_the_file_name_is_judged_so_a_document_in_a_hidden_folder_passes(
    tmp_path: Path,
) -> None:
    # Walks skip hidden folders; a direct path into one is judged by the file's own name only.
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "notes.md").write_text("x", encoding="utf-8")
    assert find(tmp_path / ".hidden" / "notes.md").name == "notes.md"


def test_dot_dot_after_a_folder_link_is_judged_where_the_link_leads(tmp_path: Path) -> None:
    (tmp_path / "a" / "sub").mkdir(parents=True)
    (tmp_path / "a" / "x.md").write_text("under a", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "a" / "sub")
    raw = f"{tmp_path}/link/../x.md"
    expanded = expand_path(raw, cwd=CWD, home=HOME)
    assert find(expanded) == (tmp_path / "a" / "x.md").resolve()


def test_the_file_found_carries_the_identity_of_its_folder(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("x", encoding="utf-8")
    found = find_file(AllowedFolders.whole_disk(), document)
    info = tmp_path.stat()
    assert (found.path, found.folder) == (document.resolve(), (info.st_dev, info.st_ino))


def test_a_relative_document_path_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="absolute"):
        find(Path("notes.md"))
