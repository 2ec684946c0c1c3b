"""The output rules, as an adversarial table: every way an export could land where it must not."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from quire.api.exports import ExportFormat
from quire.core.errors import FileMissing, PathRefused
from quire.export.targets import check_output, default_output, publish
from quire.fs.folders import AllowedFolders

Setup = Callable[[Path, Path], Path]
"""Given the allowed folder and a folder outside, make the case and return the output path."""


def _fifo(inside: Path, outside: Path) -> Path:
    os.mkfifo(inside / "pipe.pdf")
    return inside / "pipe.pdf"


def _folder(inside: Path, outside: Path) -> Path:
    (inside / "dir.pdf").mkdir()
    return inside / "dir.pdf"


def _symlink_inside(inside: Path, outside: Path) -> Path:
    (inside / "real.pdf").write_bytes(b"old")
    (inside / "link.pdf").symlink_to(inside / "real.pdf")
    return inside / "link.pdf"


def _symlink_out(inside: Path, outside: Path) -> Path:
    (inside / "out.pdf").symlink_to(outside / "victim.pdf")
    return inside / "out.pdf"


def _folder_link_out(inside: Path, outside: Path) -> Path:
    (inside / "sub").symlink_to(outside)
    return inside / "sub" / "x.pdf"


REFUSED: list[tuple[str, Setup, ExportFormat, bool, str]] = [
    ("wrong extension", lambda i, o: i / "doc.txt", "pdf", True, "must end in '.pdf'"),
    ("pdf named html", lambda i, o: i / "doc.pdf", "html", True, "'.html' or '.htm'"),
    ("bare extension", lambda i, o: i / ".pdf", "pdf", True, "starts with a dot"),
    ("dotfile", lambda i, o: i / ".hidden.pdf", "pdf", True, "starts with a dot"),
    ("markdown target", lambda i, o: i / "doc.md", "docx", True, "must end in '.docx'"),
    ("dot-dot", lambda i, o: i / "sub" / ".." / "x.pdf", "pdf", True, "no '.' or '..'"),
    ("relative", lambda i, o: Path("x.pdf"), "pdf", True, "absolute path"),
    ("outside, missing", lambda i, o: o / "new.pdf", "pdf", True, "not inside an allowed"),
    ("symlink out", _symlink_out, "pdf", True, "not inside an allowed"),
    ("folder link out", _folder_link_out, "pdf", True, "not inside an allowed"),
    ("symlink inside", _symlink_inside, "pdf", True, "symbolic link"),
    ("FIFO", _fifo, "pdf", True, "named pipe"),
    ("folder", _folder, "pdf", True, "folder"),
    ("exists, no overwrite", lambda i, o: _touch(i / "old.pdf"), "pdf", False, "--force"),
]


def _touch(path: Path) -> Path:
    path.write_bytes(b"old")
    return path


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    return inside, outside


@pytest.mark.parametrize(("case", "setup", "format", "overwrite", "words"), REFUSED)
def test_an_output_that_breaks_a_rule_is_refused_naming_what_to_change(
    places: tuple[Path, Path],
    case: str,
    setup: Setup,
    format: ExportFormat,
    overwrite: bool,
    words: str,
) -> None:
    inside, outside = places
    output = setup(inside, outside)
    with pytest.raises(PathRefused, match=words.replace("(", r"\(").replace(".", r"\.")):
        check_output(
            inside / "doc.md",
            output,
            format=format,
            allowed=AllowedFolders([inside]),
            overwrite=overwrite,
        )
    assert not (outside / "victim.pdf").exists()


def test_outside_is_one_refusal_whether_or_not_the_path_exists(places: tuple[Path, Path]) -> None:
    inside, outside = places
    _touch(outside / "there.pdf")
    messages = []
    for name in ("there.pdf", "missing.pdf"):
        with pytest.raises(PathRefused) as caught:
            check_output(
                inside / "doc.md",
                outside / name,
                format="pdf",
                allowed=AllowedFolders([inside]),
                overwrite=True,
            )
        messages.append(str(caught.value).replace(name, "NAME"))
    assert messages[0] == messages[1]


def test_a_missing_folder_inside_is_named_as_missing(places: tuple[Path, Path]) -> None:
    inside, _ = places
    with pytest.raises(FileMissing, match="does not exist"):
        check_output(
            inside / "doc.md",
            inside / "nope" / "x.pdf",
            format="pdf",
            allowed=AllowedFolders([inside]),
            overwrite=False,
        )


def test_no_output_means_beside_the_input_with_the_format_extension(
    places: tuple[Path, Path],
) -> None:
    inside, _ = places
    allowed = AllowedFolders([inside])
    endings: tuple[tuple[ExportFormat, str], ...] = (
        ("pdf", ".pdf"),
        ("html", ".html"),
        ("docx", ".docx"),
        ("epub", ".epub"),
    )
    for format, ending in endings:
        path = check_output(inside / "a.md", None, format=format, allowed=allowed, overwrite=False)
        assert path == inside / f"a{ending}" == default_output(inside / "a.md", format)


def test_a_file_created_after_the_check_is_not_replaced_without_overwrite(
    places: tuple[Path, Path],
) -> None:
    inside, _ = places
    path = check_output(
        inside / "a.md", None, format="pdf", allowed=AllowedFolders([inside]), overwrite=False
    )
    path.write_bytes(b"theirs")
    with pytest.raises(PathRefused, match="already exists"):
        publish(path, b"ours", allowed=AllowedFolders([inside]), overwrite=False)
    assert path.read_bytes() == b"theirs"
    assert sorted(p.name for p in inside.iterdir()) == ["a.pdf"]


def test_overwrite_replaces_the_entry_so_a_hard_link_keeps_the_old_bytes(
    places: tuple[Path, Path],
) -> None:
    inside, _ = places
    old = _touch(inside / "a.pdf")
    os.link(old, inside / "other.pdf")
    path = check_output(
        inside / "a.md", old, format="pdf", allowed=AllowedFolders([inside]), overwrite=True
    )
    publish(path, b"new", allowed=AllowedFolders([inside]), overwrite=True)
    assert old.read_bytes() == b"new"
    assert (inside / "other.pdf").read_bytes() == b"old"


def test_an_htm_ending_is_an_html_output(places: tuple[Path, Path]) -> None:
    inside, _ = places
    path = check_output(
        inside / "a.md",
        inside / "page.HTM",
        format="html",
        allowed=AllowedFolders([inside]),
        overwrite=False,
    )
    assert path == inside / "page.HTM"
