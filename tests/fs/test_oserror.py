"""OS errors in words: a name or path over the length limit is the caller's error."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from quire.core.errors import PathRefused, StorageFailed
from quire.fs.oserror import NAME_MAX, open_failed, storage_failed


def too_long(path: Path) -> OSError:
    try:
        path.stat()
    except OSError as exc:
        return exc
    raise AssertionError("the stat should have failed")


@pytest.mark.parametrize("name", ["n" * 260 + ".md", "é" * 128 + ".md", "日" * 86])
def test_a_name_over_255_bytes_is_refused_naming_the_name_limit(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    exc = too_long(path)
    assert exc.errno == errno.ENAMETOOLONG
    for error in (
        open_failed(exc, doing="open", path=path, what="file"),
        storage_failed(exc, doing="write", path=path, after="Nothing was changed."),
    ):
        assert isinstance(error, PathRefused)
        assert f"may have at most {NAME_MAX} bytes" in error.message
        assert f"is {len(os.fsencode(name)):,} bytes long" in error.message
        assert len(error.message) < 450, "the long path is clipped"


def test_a_path_over_path_max_is_refused_naming_the_path_limit(tmp_path: Path) -> None:
    path = tmp_path.joinpath(*["d" * 250] * 20, "x.md")
    error = storage_failed(
        OSError(errno.ENAMETOOLONG, "File name too long"), doing="write", path=path
    )
    assert isinstance(error, PathRefused)
    assert "a path may have at most 4,096 bytes" in error.message


def test_other_errors_stay_storage_failures(tmp_path: Path) -> None:
    error = storage_failed(OSError(errno.EIO, "Input/output error"), doing="read", path=tmp_path)
    assert isinstance(error, StorageFailed)
    assert "(EIO)" in error.message
