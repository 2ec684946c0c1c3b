"""Atomic writes: all or nothing, permissions kept, links replaced, no-replace without races."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from quire.core.errors import FileMissing, FileTooLarge, InvalidArgument, PathRefused, StorageFailed
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs import atomic, documents
from quire.fs.folders import AllowedFolders
from quire.fs.safeio import write_atomic

IS_ROOT = os.geteuid() == 0


@pytest.fixture
def umask_077() -> Iterator[None]:
    """A strict umask, to show the default mode is set exactly rather than masked."""
    previous = os.umask(0o077)
    yield
    os.umask(previous)


def _entries(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir())


def _fail_with(code: int) -> OSError:
    return OSError(code, os.strerror(code))


def test_a_new_file_gets_the_bytes_and_mode_0644_whatever_the_umask(
    tmp_path: Path, umask_077: None
) -> None:
    path = tmp_path / "new.md"
    write_atomic(path, b"# new\n", overwrite=False)
    assert path.read_bytes() == b"# new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert _entries(tmp_path) == ["new.md"]


def test_text_is_written_as_utf8(tmp_path: Path) -> None:
    write_atomic(tmp_path / "t.md", "café ✓\r\n", overwrite=True)
    assert (tmp_path / "t.md").read_bytes() == "café ✓\r\n".encode()


def test_an_existing_file_is_replaced_and_keeps_its_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o600)
    write_atomic(path, "new", overwrite=True)
    assert path.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _entries(tmp_path) == ["notes.md"]


def test_a_given_mode_wins_over_the_existing_bits(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o644)
    write_atomic(path, "new", overwrite=True, mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_file_is_replaced_by_rename_so_an_open_reader_keeps_the_old_bytes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.md"
    path.write_text("old", encoding="utf-8")
    with path.open("rb") as reader:
        write_atomic(path, "new", overwrite=True)
        assert reader.read() == b"old"
    assert path.read_text(encoding="utf-8") == "new"


def test_a_symlink_at_the_target_is_replaced_never_written_through(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me", encoding="utf-8")
    path = tmp_path / "notes.md"
    path.symlink_to(secret)
    write_atomic(path, "new", overwrite=True)
    assert not path.is_symlink()
    assert path.read_text(encoding="utf-8") == "new"
    assert secret.read_text(encoding="utf-8") == "keep me"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_dangling_symlink_at_the_target_is_replaced_when_overwriting(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.symlink_to(tmp_path / "would-be-created.md")
    write_atomic(path, "new", overwrite=True)
    assert path.read_text(encoding="utf-8") == "new"
    assert not (tmp_path / "would-be-created.md").exists()


@pytest.mark.parametrize("kind", ["file", "symlink", "dangling"])
def test_without_overwrite_anything_at_the_path_is_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "notes.md"
    (tmp_path / "other.md").write_text("other", encoding="utf-8")
    if kind == "file":
        path.write_text("old", encoding="utf-8")
    else:
        path.symlink_to("other.md" if kind == "symlink" else "nowhere.md")
    before = _entries(tmp_path)
    with pytest.raises(PathRefused) as caught:
        write_atomic(path, "new", overwrite=False)
    assert str(caught.value) == (
        f"Refusing to write '{path}': it already exists. Pass overwrite to replace it, "
        "or pick another path."
    )
    assert _entries(tmp_path) == before
    assert (tmp_path / "other.md").read_text(encoding="utf-8") == "other"


def test_without_overwrite_a_file_that_appears_after_the_check_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "notes.md"
    real_link = os.link

    def racer_then_link(source: str, target: str, **where: object) -> None:
        path.write_text("the racer's", encoding="utf-8")
        real_link(source, target, **where)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", racer_then_link)
    with pytest.raises(PathRefused, match="already exists"):
        write_atomic(path, "mine", overwrite=False)
    assert path.read_text(encoding="utf-8") == "the racer's"
    assert _entries(tmp_path) == ["notes.md"]


@pytest.mark.parametrize("code", [errno.EPERM, errno.ENOTSUP])
def test_without_hard_links_the_new_file_is_created_exclusively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    def no_links(source: str, target: str, **where: object) -> None:
        raise _fail_with(code)

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "notes.md"
    write_atomic(path, "mine", overwrite=False, mode=0o640)
    assert path.read_text(encoding="utf-8") == "mine"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert _entries(tmp_path) == ["notes.md"]


def test_without_hard_links_a_racer_still_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "notes.md"

    def racer_and_no_links(source: str, target: str, **where: object) -> None:
        path.write_text("the racer's", encoding="utf-8")
        raise _fail_with(errno.EPERM)

    monkeypatch.setattr(os, "link", racer_and_no_links)
    with pytest.raises(PathRefused, match="already exists"):
        write_atomic(path, "mine", overwrite=False)
    assert path.read_text(encoding="utf-8") == "the racer's"
    assert _entries(tmp_path) == ["notes.md"]


def test_the_temp_file_is_a_dotfile_in_the_same_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []
    real_write_all = atomic._write_all

    def spy(fd: int, payload: bytes) -> None:
        seen.append(_entries(tmp_path))
        real_write_all(fd, payload)

    monkeypatch.setattr(atomic, "_write_all", spy)
    write_atomic(tmp_path / "notes.md", "x", overwrite=True)
    assert len(seen) == 1
    [temp] = seen[0]
    assert temp.startswith(".notes.md.")
    assert temp.endswith(".tmp")
    assert _entries(tmp_path) == ["notes.md"]


@pytest.mark.parametrize(
    ("target", "code", "reason"),
    [
        ("_write_all", errno.ENOSPC, r"no space left on device \(ENOSPC\)"),
        ("fsync", errno.EIO, r"input/output error \(EIO\)"),
        ("fchmod", errno.EPERM, r"operation not permitted \(EPERM\)"),
        ("replace", errno.EXDEV, r"invalid cross-device link \(EXDEV\)"),
    ],
)
def test_a_failed_write_leaves_the_target_untouched_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, code: int, reason: str
) -> None:
    path = tmp_path / "notes.md"
    path.write_text("old", encoding="utf-8")

    def fail(*args: object, **where: object) -> None:
        raise _fail_with(code)

    if target == "_write_all":
        monkeypatch.setattr(atomic, "_write_all", fail)
    else:
        monkeypatch.setattr(os, target, fail)
    with pytest.raises(StorageFailed, match=f"^Cannot write '{path}': {reason}\\. Nothing was"):
        write_atomic(path, "new", overwrite=True)
    assert path.read_text(encoding="utf-8") == "old"
    assert _entries(tmp_path) == ["notes.md"]


def test_an_interrupted_write_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(fd: int, payload: bytes) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic, "_write_all", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "notes.md", "new", overwrite=True)
    assert _entries(tmp_path) == []


@pytest.mark.skipif(IS_ROOT, reason="root writes into folders whatever their permission bits")
def test_a_read_only_folder_is_a_storage_failure_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("old", encoding="utf-8")
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(StorageFailed, match="permission denied"):
            write_atomic(path, "new", overwrite=True)
    finally:
        tmp_path.chmod(0o755)
    assert path.read_text(encoding="utf-8") == "old"
    assert _entries(tmp_path) == ["notes.md"]


def test_the_folder_is_fsynced_after_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[bool] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    write_atomic(tmp_path / "notes.md", "x", overwrite=True)
    assert synced == [False, True]


@pytest.mark.parametrize(("code", "raises"), [(errno.EINVAL, False), (errno.EIO, True)])
def test_a_folder_that_cannot_be_synced_is_ignored_unless_the_disk_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, raises: bool
) -> None:
    real_fsync = os.fsync

    def folder_fails(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise _fail_with(code)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", folder_fails)
    path = tmp_path / "notes.md"
    if raises:
        with pytest.raises(StorageFailed, match="new content is in place"):
            write_atomic(path, "x", overwrite=True)
    else:
        write_atomic(path, "x", overwrite=True)
    assert path.read_text(encoding="utf-8") == "x"


def test_a_missing_folder_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "nofolder" / "notes.md"
    with pytest.raises(FileMissing, match=r"the folder '.*nofolder' does not exist"):
        write_atomic(path, "x", overwrite=True)


@pytest.mark.parametrize("overwrite", [True, False])
def test_a_folder_at_the_target_is_refused(tmp_path: Path, overwrite: bool) -> None:
    (tmp_path / "x.md").mkdir()
    with pytest.raises(PathRefused, match="it is a folder"):
        write_atomic(tmp_path / "x.md", "x", overwrite=overwrite)
    assert (tmp_path / "x.md").is_dir()


def test_a_fifo_at_the_target_is_refused_not_replaced(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.md")
    with pytest.raises(PathRefused, match=r"named pipe \(FIFO\), not a regular file"):
        write_atomic(tmp_path / "x.md", "x", overwrite=True)
    assert stat.S_ISFIFO((tmp_path / "x.md").lstat().st_mode)


def test_text_with_an_unpaired_surrogate_is_refused_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    with pytest.raises(InvalidArgument, match="unpaired surrogate at character 3"):
        write_atomic(tmp_path / "x.md", "ab\ud800", overwrite=True)
    assert _entries(tmp_path) == []


def test_a_relative_path_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="absolute"):
        write_atomic(Path("x.md"), "x", overwrite=True)


def test_a_hard_link_to_the_old_file_keeps_the_old_bytes(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("old", encoding="utf-8")
    os.link(path, tmp_path / "other-name.md")
    write_atomic(path, "new", overwrite=True)
    assert (tmp_path / "other-name.md").read_text(encoding="utf-8") == "old"


def test_write_document_writes_a_markdown_file(tmp_path: Path) -> None:
    write_document(tmp_path / "plan.MD", "# Plan\n")
    assert (tmp_path / "plan.MD").read_text(encoding="utf-8") == "# Plan\n"


@pytest.mark.parametrize("name", ["notes.txt", ".notes.md", ".env", "x.md.bak", "x.md "])
def test_write_document_refuses_a_name_that_is_not_a_document(tmp_path: Path, name: str) -> None:
    with pytest.raises(PathRefused, match="that are not dotfiles can be written"):
        write_document(tmp_path / name, "x")
    assert _entries(tmp_path) == []


def test_write_document_writes_into_the_resolved_folder(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    write_document(tmp_path / "link" / "n.md", "x")
    assert (tmp_path / "real" / "n.md").read_text(encoding="utf-8") == "x"


def test_write_document_replaces_a_link_at_the_target_not_its_target(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("keep me", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to("secret.txt")
    write_document(tmp_path / "notes.md", "new")
    assert (tmp_path / "secret.txt").read_text(encoding="utf-8") == "keep me"
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "new"


def test_write_document_without_overwrite_refuses_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("old", encoding="utf-8")
    with pytest.raises(PathRefused, match="already exists"):
        write_document(tmp_path / "notes.md", "new", overwrite=False)
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "old"


def test_write_document_in_a_missing_folder_is_missing(tmp_path: Path) -> None:
    with pytest.raises(FileMissing, match="does not exist"):
        write_document(tmp_path / "nofolder" / "n.md", "x")


def test_write_document_refuses_text_it_could_not_read_back(tmp_path: Path) -> None:
    with pytest.raises(FileTooLarge, match="more than the 16 MiB a document may hold"):
        write_document(tmp_path / "big.md", "a" * (MAX_DOCUMENT_BYTES + 1))
    assert _entries(tmp_path) == []
    write_document(tmp_path / "big.md", "a" * MAX_DOCUMENT_BYTES)
    assert (tmp_path / "big.md").stat().st_size == MAX_DOCUMENT_BYTES


def test_write_document_counts_the_limit_in_utf8_bytes(tmp_path: Path) -> None:
    with pytest.raises(FileTooLarge):
        write_document(tmp_path / "big.md", "é" * (MAX_DOCUMENT_BYTES // 2 + 1))


def write_document(path: Path, text: str, *, overwrite: bool = True) -> None:
    documents.write_document(AllowedFolders.whole_disk(), path, text, overwrite=overwrite)
