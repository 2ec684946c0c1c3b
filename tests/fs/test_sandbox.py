"""expand_path and the document name rule, on adversarial paths."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from quire.core.errors import InvalidArgument
from quire.core.paths import expand_path
from quire.fs.sandbox import (
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
