"""decode_utf8: strict UTF-8, the first bad byte and its line named, UTF-16 recognised."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.core.errors import NotUtf8
from quire.fs.safeio import decode_utf8

CONVERT = "Convert the file to UTF-8"


@pytest.mark.parametrize(
    "text", ["", "plain", "café ✓ ノート 🙂\n", "a\r\nb\r\n", "\ufeff# title\n", "tab\there"]
)
def test_utf8_text_decodes_unchanged(text: str) -> None:
    assert decode_utf8(text.encode("utf-8")) == text


def test_a_leading_utf8_bom_is_kept_for_the_caller_to_decide() -> None:
    assert decode_utf8(b"\xef\xbb\xbf# hi") == "\ufeff# hi"


@pytest.mark.parametrize(
    ("data", "offset", "value", "line"),
    [
        (b"caf\xe9", 4, "E9", 1),  # Latin-1 e-acute
        ("naïve\n".encode("latin-1") + b"x", 3, "EF", 1),
        (b"one\ntwo\n\xff three", 9, "FF", 3),
        (b"a\r\nb\r\nc\x80", 8, "80", 3),
        (b"\xc3", 1, "C3", 1),  # truncated two-byte sequence at the end
        (b"ok\xed\xa0\x80", 3, "ED", 1),  # an encoded surrogate
        (b"\xc0\xaf", 1, "C0", 1),  # overlong "/"
        (b"\xf4\x90\x80\x80", 1, "F4", 1),  # past U+10FFFF
        (b"\xe2\x82", 1, "E2", 1),  # truncated three-byte sequence
        (b"ok \xe2\x28\xa1", 4, "E2", 1),  # bad continuation byte
    ],
)
def test_invalid_utf8_names_the_first_bad_byte_and_its_line(
    data: bytes, offset: int, value: str, line: int
) -> None:
    with pytest.raises(NotUtf8) as caught:
        decode_utf8(data, path=Path("/v/latin.md"))
    assert str(caught.value) == (
        f"Cannot read '/v/latin.md': it is not UTF-8 text: byte {offset} (0x{value}) on line "
        f"{line} is not valid UTF-8. {CONVERT} (most editors offer this under Save As or "
        "Encoding)."
    )


def test_without_a_path_the_message_speaks_of_the_bytes() -> None:
    with pytest.raises(NotUtf8, match=r"^The bytes are not UTF-8 text: byte 1 \(0xFF\)"):
        decode_utf8(b"\xff")


@pytest.mark.parametrize(
    ("encoding", "name"),
    [
        ("utf-16", "UTF-16 (little-endian)"),  # Python writes a little-endian BOM
        ("utf-16-le", "UTF-16 (little-endian)"),
        ("utf-16-be", "UTF-16 (big-endian)"),
    ],
)
def test_utf16_text_is_recognised_and_named(encoding: str, name: str) -> None:
    data = "# Notes\nSaved by an editor on Windows.\n".encode(encoding)
    if encoding == "utf-16-le":
        data = b"\xff\xfe" + data
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    with pytest.raises(NotUtf8) as caught:
        decode_utf8(data, path=Path("/w.md"))
    assert str(caught.value).startswith(f"Cannot read '/w.md': it is {name} text, not UTF-8.")
    assert CONVERT in str(caught.value)


@pytest.mark.parametrize(
    ("encoding", "name"), [("utf-16-le", "little-endian"), ("utf-16-be", "big-endian")]
)
def test_utf16_without_a_bom_is_recognised_by_its_nul_bytes(encoding: str, name: str) -> None:
    data = "Meeting notes, Monday.\n- item one\n".encode(encoding)
    with pytest.raises(NotUtf8, match=f"UTF-16 \\({name}\\)"):
        decode_utf8(data)


@pytest.mark.parametrize("text", ["a\0b", "hello\0world, a stray NUL\n", "\0", "\0\0\0"])
def test_utf8_text_with_a_few_nul_bytes_is_not_mistaken_for_utf16(text: str) -> None:
    assert decode_utf8(text.encode("utf-8")) == text


@given(st.text().filter(lambda text: "\0" not in text))
def test_any_text_without_nul_round_trips(text: str) -> None:
    assert decode_utf8(text.encode("utf-8")) == text


@given(st.binary(max_size=64))
def test_bytes_decode_exactly_when_python_strict_utf8_does(data: bytes) -> None:
    try:
        expected: str | None = data.decode("utf-8")
        error_start = -1
    except UnicodeDecodeError as exc:
        expected = None
        error_start = exc.start
    try:
        assert decode_utf8(data) == expected
    except NotUtf8 as refusal:
        assert expected is None or "\0" in expected
        if "UTF-16" not in str(refusal):
            assert f"byte {error_start + 1} (0x{data[error_start]:02X})" in str(refusal)
