"""expand_path, the document name rule and check_document, on adversarial paths."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import cast

import pytest

from quire.core.errors import FileMissing, InvalidArgument, PathRefused
from quire.core.paths import expand_path
from quire.fs.sandbox import (
    check_document,
    inspect_document,
    is_document_name,
    is_dotfile_name,
    is_markdown_name,
)

CWD = Path("/work/cwd")
HOME = Path("/home/ann")
RULE = "only Markdown documents (.md, .markdown, .mdown, .mkd, .mdx) that are not dotfiles"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/abs/x.md", "/abs/x.md"),
        ("x.md", "/work/cwd/x.md"),
        ("notes/plan.md", "/work/cwd/notes/plan.md"),
        ("~", "/home/ann"),
        ("~/", "/home/ann"),
        ("~/x.md", "/home/ann/x.md"),
        ("~//x.md", "/home/ann/x.md"),
        ("~/notes/plan.md", "/home/ann/notes/plan.md"),
        ("~user/x.md", "/work/cwd/~user/x.md"),
        ("~x.md", "/work/cwd/~x.md"),
        ("a/~/x.md", "/work/cwd/a/~/x.md"),
        ("/a/~", "/a/~"),
        ("/a//b///x.md", "/a/b/x.md"),
        ("//a/x.md", "/a/x.md"),
        ("///a/x.md", "/a/x.md"),
        ("/a/./x.md", "/a/x.md"),
        ("./x.md", "/work/cwd/x.md"),
        ("/a/b/", "/a/b"),
        ("~/notes/", "/home/ann/notes"),
        ("/a/b/../x.md", "/a/b/../x.md"),
        ("../x.md", "/work/cwd/../x.md"),
        ("..", "/work/cwd/.."),
        (" x.md", "/work/cwd/ x.md"),
        ("x.md ", "/work/cwd/x.md "),
        (" ~/x.md", "/work/cwd/ ~/x.md"),
        ("café/ノート.md", "/work/cwd/café/ノート.md"),
        ("\udcffbad.md", "/work/cwd/\udcffbad.md"),
    ],
)
def test_a_path_argument_expands_like_a_shell_would(raw: str, expected: str) -> None:
    assert str(expand_path(raw, cwd=CWD, home=HOME)) == expected


def test_dot_dot_is_kept_because_a_symlink_before_it_changes_its_meaning() -> None:
    expanded = expand_path("/docs/link/../x.md", cwd=CWD, home=HOME)
    assert expanded.parts == ("/", "docs", "link", "..", "x.md")


@pytest.mark.parametrize("raw", ["", " ", "\t\n", "\u3000", "   \r"])
def test_an_empty_or_blank_path_is_refused_naming_the_argument(raw: str) -> None:
    with pytest.raises(InvalidArgument, match=r"^`vault` must not be empty") as caught:
        expand_path(raw, cwd=CWD, home=HOME, argument="vault")
    assert caught.value.argument == "vault"


@pytest.mark.parametrize("raw", ["\0", "x\0.md", "/a/b.md\0", "~/\0"])
def test_a_nul_byte_is_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument, match="NUL") as caught:
        expand_path(raw, cwd=CWD, home=HOME)
    assert caught.value.argument == "path"


def test_an_unpaired_surrogate_is_refused_as_no_file_name() -> None:
    with pytest.raises(InvalidArgument, match="cannot be part of a file name"):
        expand_path("\ud800.md", cwd=CWD, home=HOME)


@pytest.mark.parametrize("value", [None, 42, b"x.md", Path("x.md")])
def test_a_path_that_is_not_a_string_is_refused(value: object) -> None:
    with pytest.raises(InvalidArgument, match="must be a string"):
        expand_path(cast(str, value), cwd=CWD, home=HOME)


def test_home_comes_from_the_argument_not_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/somewhere/else")
    assert expand_path("~/x.md", cwd=CWD, home=HOME) == Path("/home/ann/x.md")


@pytest.mark.parametrize(("cwd", "home"), [(Path("rel"), HOME), (CWD, Path("rel"))])
def test_a_relative_cwd_or_home_is_a_programming_error(cwd: Path, home: Path) -> None:
    with pytest.raises(ValueError, match="absolute"):
        expand_path("x.md", cwd=cwd, home=home)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.md", True),
        ("NOTES.MD", True),
        ("a.Markdown", True),
        ("x.mdown", True),
        ("x.MKD", True),
        ("x.mdx", True),
        ("a.b.md", True),
        ("ノート.md", True),
        (".hidden.md", True),
        ("a.txt", False),
        ("a.md.txt", False),
        ("a.md.bak", False),
        ("md", False),
        (".md", False),
        ("a.md ", False),
        ("a.md.", False),
        ("a.mdx2", False),
        ("a.markdow", False),
        ("amd", False),
        ("", False),
        ("a.m\u212ad", False),  # Kelvin sign, which lowercases to "k"
        ("a.\uff4d\uff44", False),  # fullwidth "md"
    ],
)
def test_markdown_names_match_the_extensions_in_any_ascii_case(name: str, expected: bool) -> None:
    assert is_markdown_name(name) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [(".env", True), (".notes.md", True), ("..", True), ("notes.md", False), ("", False)],
)
def test_a_dotfile_is_a_name_that_starts_with_a_dot(name: str, expected: bool) -> None:
    assert is_dotfile_name(name) is expected


@pytest.mark.parametrize(("name", "expected"), [("a.md", True), (".a.md", False), ("a.txt", False)])
def test_a_document_name_is_markdown_and_not_a_dotfile(name: str, expected: bool) -> None:
    assert is_document_name(name) is expected


@pytest.mark.parametrize(
    "name", ["notes.md", "NOTES.MD", "a.Markdown", "b.mdown", "c.mkd", "d.mdx"]
)
def test_a_markdown_document_passes_and_comes_back_resolved(tmp_path: Path, name: str) -> None:
    document = tmp_path / name
    document.write_text("# hi\n", encoding="utf-8")
    assert check_document(document) == document.resolve()


@pytest.mark.parametrize(
    "name", ["notes.txt", ".notes.md", ".env", "notes.md.bak", "Makefile", "x.md~"]
)
def test_a_file_that_is_not_a_markdown_document_is_refused(tmp_path: Path, name: str) -> None:
    document = tmp_path / name
    document.write_text("secret", encoding="utf-8")
    with pytest.raises(PathRefused) as caught:
        check_document(document)
    assert str(caught.value) == f"Refusing to read '{document}': {RULE} can be read."


def test_the_name_is_judged_before_the_disk_so_a_missing_key_file_is_refused_not_missing(
    tmp_path: Path,
) -> None:
    with pytest.raises(PathRefused):
        check_document(tmp_path / "missing.pem")


@pytest.mark.parametrize(
    ("verb", "participle"),
    [("open", "opened"), ("present", "presented"), ("review", "reviewed"), ("write", "written")],
)
def test_the_refusal_names_the_action(tmp_path: Path, verb: str, participle: str) -> None:
    path = tmp_path / "a.txt"
    with pytest.raises(PathRefused, match=f"^Refusing to {verb} .* can be {participle}\\.$"):
        check_document(path, verb=verb)


def test_a_missing_document_says_it_does_not_exist(tmp_path: Path) -> None:
    path = tmp_path / "gone.md"
    with pytest.raises(FileMissing, match=f"^Cannot read '{path}': the file does not exist\\."):
        check_document(path)


@pytest.mark.parametrize("relative", ["nofolder/gone.md", "file.md/inside.md"])
def test_a_document_under_a_missing_or_file_folder_is_missing(
    tmp_path: Path, relative: str
) -> None:
    (tmp_path / "file.md").write_text("x", encoding="utf-8")
    with pytest.raises(FileMissing, match="does not exist"):
        check_document(tmp_path / relative)


def test_a_folder_named_like_a_document_is_refused_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "x.md").mkdir()
    with pytest.raises(PathRefused, match="it is a folder, not a document"):
        check_document(tmp_path / "x.md")


def test_a_fifo_named_like_a_document_is_refused_without_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.md")
    with pytest.raises(PathRefused, match=r"named pipe \(FIFO\), not a regular file"):
        check_document(tmp_path / "x.md", verb="open")


def test_a_markdown_link_to_a_dotfile_is_refused_after_resolving(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=1", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to(tmp_path / ".env")
    with pytest.raises(PathRefused, match=r"it is a symbolic link to .*/\.env', and only Markdown"):
        check_document(tmp_path / "notes.md")


def test_a_markdown_link_to_a_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "id_ed25519").write_text("key", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to("id_ed25519")
    with pytest.raises(PathRefused, match="symbolic link"):
        check_document(tmp_path / "notes.md")


def test_a_link_named_as_a_dotfile_is_refused_by_its_own_name(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("x", encoding="utf-8")
    (tmp_path / ".notes.md").symlink_to("real.md")
    with pytest.raises(PathRefused, match=re.escape(RULE)):
        check_document(tmp_path / ".notes.md")


def test_a_link_to_a_document_resolves_to_that_document(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("x", encoding="utf-8")
    (tmp_path / "link.md").symlink_to("real.md")
    assert check_document(tmp_path / "link.md") == (tmp_path / "real.md").resolve()


def test_a_link_to_a_folder_is_refused_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    (tmp_path / "link.md").symlink_to("dir.md")
    with pytest.raises(PathRefused, match="folder"):
        check_document(tmp_path / "link.md")


def test_a_dangling_link_is_missing_and_says_it_is_a_link(tmp_path: Path) -> None:
    (tmp_path / "link.md").symlink_to("nowhere.md")
    with pytest.raises(FileMissing, match="symbolic link to a file that does not exist"):
        check_document(tmp_path / "link.md")


def test_a_loop_of_links_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").symlink_to("b.md")
    (tmp_path / "b.md").symlink_to("a.md")
    with pytest.raises(PathRefused, match="loop of symbolic links"):
        check_document(tmp_path / "a.md")


def test_only_the_file_name_is_judged_so_a_document_in_a_hidden_folder_passes(
    tmp_path: Path,
) -> None:
    # Walks skip hidden folders; a direct path into one is judged by the file's own name only.
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "notes.md").write_text("x", encoding="utf-8")
    assert check_document(tmp_path / ".hidden" / "notes.md").name == "notes.md"


def test_dot_dot_after_a_folder_link_is_judged_where_the_link_leads(tmp_path: Path) -> None:
    (tmp_path / "a" / "sub").mkdir(parents=True)
    (tmp_path / "a" / "x.md").write_text("under a", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "a" / "sub")
    raw = f"{tmp_path}/link/../x.md"
    expanded = expand_path(raw, cwd=CWD, home=HOME)
    assert check_document(expanded) == (tmp_path / "a" / "x.md").resolve()


def test_inspect_document_records_the_identity_of_the_checked_file(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("x", encoding="utf-8")
    checked = inspect_document(document)
    info = document.stat()
    assert (checked.path, checked.device, checked.inode) == (document, info.st_dev, info.st_ino)


def test_a_relative_document_path_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="absolute"):
        check_document(Path("notes.md"))
