"""The inbox: reading a piped document within its limits, and keeping it private on disk."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest

from quire.client.inbox import discard, read_piped_document, save_to_inbox
from quire.core.errors import FileTooLarge, InvalidArgument, NotUtf8, StorageFailed
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.state import inbox_folder


class CountingStream(io.BytesIO):
    """A stream that remembers how many bytes were taken from it."""

    taken = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.taken += len(chunk)
        return chunk


def test_a_piped_document_is_read_whole() -> None:
    text = "# Piped\n\nÜber naïve café.\n"
    assert read_piped_document(io.BytesIO(text.encode())) == text


def test_a_document_of_exactly_16_mib_is_taken() -> None:
    data = b"#" + b"a" * (MAX_DOCUMENT_BYTES - 1)
    assert len(read_piped_document(io.BytesIO(data))) == MAX_DOCUMENT_BYTES


def test_reading_stops_one_byte_past_the_limit_and_refuses() -> None:
    stream = CountingStream(b"a" * (MAX_DOCUMENT_BYTES * 2))
    with pytest.raises(FileTooLarge) as caught:
        read_piped_document(stream)
    assert stream.taken == MAX_DOCUMENT_BYTES + 1
    assert str(caught.value) == (
        "The document on stdin is larger than 16 MiB, the most a Quire document may hold; "
        "nothing was opened. Split it, or save it as a file and open that file."
    )


@pytest.mark.parametrize("data", [b"", b" ", b"\n\n\t \r\n", "\u00a0\u2003\n".encode()])
def test_an_empty_or_blank_document_is_refused(data: bytes) -> None:
    with pytest.raises(InvalidArgument) as caught:
        read_piped_document(io.BytesIO(data))
    assert str(caught.value) == (
        "The document on stdin is empty (or only whitespace), so nothing was opened. Pipe the "
        "Markdown in, for example `cat notes.md | quire open -`."
    )


def test_no_stdin_at_all_is_an_empty_document() -> None:
    with pytest.raises(InvalidArgument, match="empty"):
        read_piped_document(None)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"# Notes\ncaf\xe9\n",
            "The document on stdin is not UTF-8 text: byte 12 (0xE9) on line 2 is not valid "
            "UTF-8. Convert the file to UTF-8 (most editors offer this under Save As or "
            "Encoding). Nothing was opened.",
        ),
        (
            "# Notes\n".encode("utf-16"),
            "The document on stdin is UTF-16 (little-endian) text, not UTF-8. Convert the file "
            "to UTF-8 (most editors offer this under Save As or Encoding). Nothing was opened.",
        ),
    ],
)
def test_a_document_that_is_not_utf8_is_refused_naming_the_byte(data: bytes, message: str) -> None:
    with pytest.raises(NotUtf8) as caught:
        read_piped_document(io.BytesIO(data))
    assert str(caught.value) == message


def test_a_saved_document_is_a_private_markdown_file_in_a_private_inbox(tmp_path: Path) -> None:
    state = tmp_path / "state"
    path = save_to_inbox(state, "# Piped\r\nline\n")
    assert path.parent == inbox_folder(state).resolve()
    assert path.name.startswith("stdin-") and path.suffix == ".md"
    assert path.read_bytes() == b"# Piped\r\nline\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert save_to_inbox(state, "# Again\n") != path


def test_a_widened_inbox_is_made_private_again(tmp_path: Path) -> None:
    inbox = inbox_folder(tmp_path)
    inbox.mkdir(parents=True)
    inbox.chmod(0o755)
    save_to_inbox(tmp_path, "# x\n")
    assert stat.S_IMODE(inbox.stat().st_mode) == 0o700


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_something_else_in_the_inbox_place_is_refused(tmp_path: Path, kind: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    inbox = inbox_folder(tmp_path / "state")
    inbox.parent.mkdir()
    if kind == "symlink":
        inbox.symlink_to(elsewhere)
    else:
        inbox.write_text("not a folder", encoding="utf-8")
    with pytest.raises(StorageFailed) as caught:
        save_to_inbox(tmp_path / "state", "# x\n")
    assert str(caught.value) == (
        f"Cannot use '{inbox}' for the document from stdin: it is not a folder of yours (a "
        "link, a file, or another user's folder). Remove it and try again."
    )
    assert list(elsewhere.iterdir()) == []


def test_a_state_folder_that_cannot_hold_the_inbox_is_reported(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.write_text("a file, not a folder", encoding="utf-8")
    with pytest.raises(StorageFailed) as caught:
        save_to_inbox(state, "# x\n")
    assert str(caught.value) == (
        f"Cannot keep the document from stdin: the state folder '{state}' is not a folder. "
        "Remove what is there, or set QUIRE_HOME to another folder."
    )


def test_discarding_removes_the_file_and_ignores_one_already_gone(tmp_path: Path) -> None:
    path = save_to_inbox(tmp_path, "# x\n")
    discard(path)
    assert not path.exists()
    discard(path)
