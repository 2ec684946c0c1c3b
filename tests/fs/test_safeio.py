"""Safe reads: regular files only, no blocking, size limits, and the file the check saw."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from quire.core.errors import FileMissing, FileTooLarge, NotUtf8, PathRefused, StorageFailed
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs import documents, safeio
from quire.fs.folders import AllowedFolders
from quire.fs.safeio import read_regular_bytes

IS_ROOT = os.geteuid() == 0


def _finishes(action: Callable[[], object], unblock: Path) -> BaseException | None:
    """Run ``action`` in a thread; if it blocks on the FIFO ``unblock``, free it and fail."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            action()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():
        # Blocked on the FIFO: open its write end so the worker can end, then fail the test.
        fd = os.open(unblock, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join()
        pytest.fail("the read blocked on a FIFO with no writer")
    return outcome[0]


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b"\x00\xffbinary ok")
    assert read_regular_bytes(path) == b"\x00\xffbinary ok"


def test_an_empty_file_reads_as_no_bytes(tmp_path: Path) -> None:
    (tmp_path / "e.md").write_bytes(b"")
    assert read_regular_bytes(tmp_path / "e.md") == b""


def test_a_fifo_with_no_writer_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "x.md"
    os.mkfifo(fifo)
    error = _finishes(lambda: read_regular_bytes(fifo), unblock=fifo)
    assert isinstance(error, PathRefused)
    assert "named pipe (FIFO), not a regular file" in str(error)


def test_a_fifo_is_refused_by_the_descriptor_check_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the look before the open, the open must still not block and fstat must refuse.
    monkeypatch.setattr(safeio, "_refuse_special", lambda path, what: None)
    fifo = tmp_path / "x.md"
    os.mkfifo(fifo)
    error = _finishes(lambda: read_regular_bytes(fifo), unblock=fifo)
    assert isinstance(error, PathRefused)
    assert "named pipe (FIFO)" in str(error)


def test_a_fifo_named_like_a_document_is_refused_by_read_document(tmp_path: Path) -> None:
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)
    error = _finishes(lambda: read_document(fifo), unblock=fifo)
    assert isinstance(error, PathRefused)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.md").mkdir()
    with pytest.raises(PathRefused, match="it is a folder, not a regular file"):
        read_regular_bytes(tmp_path / "x.md")


def test_a_device_is_refused_without_being_read() -> None:
    with pytest.raises(PathRefused, match="character device"):
        read_regular_bytes(Path("/dev/zero"))


def test_a_symlink_as_the_final_component_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("{}", encoding="utf-8")
    (tmp_path / "link.json").symlink_to("real.json")
    with pytest.raises(PathRefused, match="symbolic link"):
        read_regular_bytes(tmp_path / "link.json")


def test_a_missing_file_is_missing_and_named_by_what_it_is(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    with pytest.raises(FileMissing, match=f"^Cannot read '{path}': the session file does not"):
        read_regular_bytes(path, what="session file")


def test_a_file_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    with path.open("wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES)
    assert len(read_regular_bytes(path)) == MAX_DOCUMENT_BYTES


def test_a_file_one_byte_over_the_limit_is_refused_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.md"
    with path.open("wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)

    def no_read(fd: int, size: int) -> bytes:
        raise AssertionError("the file was read")

    monkeypatch.setattr(os, "read", no_read)
    with pytest.raises(FileTooLarge) as caught:
        read_regular_bytes(path)
    assert str(caught.value) == (
        f"Refusing to read '{path}': the file is 16.0 MiB (16,777,217 bytes), more than the "
        "16 MiB limit, so it was not read. Split it into smaller files."
    )


def test_a_custom_limit_and_name_appear_in_the_refusal(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b"x" * 11)
    with pytest.raises(FileTooLarge, match=r"the session file is 0\.0 MiB \(11 bytes\)"):
        read_regular_bytes(path, limit=10, what="session file")
    assert read_regular_bytes(path, limit=11) == b"x" * 11


def test_a_file_that_grows_past_the_limit_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.md"
    path.write_bytes(b"y" * 100)
    real_fstat = os.fstat

    def small_fstat(fd: int) -> os.stat_result:
        # The size fstat saw before more bytes were appended.
        info = list(real_fstat(fd))
        info[6] = 5
        return os.stat_result(info)

    monkeypatch.setattr(os, "fstat", small_fstat)
    with pytest.raises(FileTooLarge, match="grew while it was being read, past the"):
        read_regular_bytes(path, limit=10)


def test_permission_denied_is_a_storage_failure_with_the_os_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "locked.md"
    path.write_text("x", encoding="utf-8")

    def refuse(path: Path, flags: int) -> int:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(StorageFailed) as caught:
        read_regular_bytes(path)
    assert str(caught.value) == (
        f"Cannot read '{path}': permission denied (EACCES). "
        "Check the permissions of the file and of its folders."
    )


@pytest.mark.skipif(IS_ROOT, reason="root reads files whatever their permission bits")
def test_an_unreadable_file_is_a_storage_failure(tmp_path: Path) -> None:
    path = tmp_path / "locked.md"
    path.write_text("x", encoding="utf-8")
    path.chmod(0)
    with pytest.raises(StorageFailed, match="permission denied"):
        read_regular_bytes(path)


def test_an_io_error_while_reading_is_a_storage_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.md"
    path.write_text("x", encoding="utf-8")

    def broken(fd: int, size: int) -> bytes:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "read", broken)
    with pytest.raises(StorageFailed, match=r"input/output error \(EIO\)"):
        read_regular_bytes(path)


def test_a_document_is_read_as_text_with_its_bom(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(b"\xef\xbb\xbf# Plan\r\n")
    assert read_document(path) == "\ufeff# Plan\r\n"


def test_a_document_through_a_link_is_read_from_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("target", encoding="utf-8")
    (tmp_path / "link.md").symlink_to("real.md")
    assert read_document(tmp_path / "link.md") == "target"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("latin.md", "café".encode("latin-1"), r"byte 4 \(0xE9\) on line 1"),
        ("le.md", "\ufeffnotes".encode("utf-16-le"), r"UTF-16 \(little-endian\)"),
        ("be.md", "\ufeffnotes".encode("utf-16-be"), r"UTF-16 \(big-endian\)"),
    ],
)
def test_a_document_that_is_not_utf8_is_refused_naming_why(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(NotUtf8, match=f"^Cannot read '.*{name}': it is .*{message}"):
        read_document(tmp_path / name)


def test_a_link_to_a_secret_is_refused_before_any_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=1", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to(".env")
    with pytest.raises(PathRefused, match="symbolic link"):
        read_document(tmp_path / "notes.md")


def test_a_document_at_the_limit_reads_and_one_byte_more_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"a" * MAX_DOCUMENT_BYTES)
    assert len(read_document(path)) == MAX_DOCUMENT_BYTES
    with path.open("ab") as handle:
        handle.write(b"a")
    with pytest.raises(FileTooLarge, match="16 MiB limit"):
        read_document(path)


def read_document(path: Path) -> str:
    return documents.read_document(AllowedFolders.whole_disk(), path)[1]
