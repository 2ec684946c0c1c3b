"""Strict UTF-8 decoding of file bytes, with messages that name the first bad byte.

Owns the "is this UTF-8 text?" judgement; it does no I/O (callers pass the bytes).
"""

from __future__ import annotations

from pathlib import Path

from quire.core.errors import NotUtf8

_UTF16_BOMS = ((b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)"))
_SNIFF_BYTES = 4096
_CONVERT = "Convert the file to UTF-8 (most editors offer this under Save As or Encoding)."


def decode_utf8(data: bytes, *, path: Path | None = None) -> str:
    """Decode ``data`` as strict UTF-8; a leading BOM is kept in the text (callers decide).

    Raises NotUtf8 naming the first invalid byte (its 1-based offset, hex value and 1-based
    line), or saying the bytes are UTF-16 when they start with a UTF-16 byte order mark or look
    like UTF-16 (NUL bytes in every other position). The message says to convert to UTF-8.
    """
    utf16 = _utf16_name(data)
    if utf16 is not None:
        raise NotUtf8(f"{_subject(path)} {utf16} text, not UTF-8. {_CONVERT}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start
        line = data.count(b"\n", 0, offset) + 1
        raise NotUtf8(
            f"{_subject(path)} not UTF-8 text: byte {offset + 1} (0x{data[offset]:02X}) "
            f"on line {line} is not valid UTF-8. {_CONVERT}"
        ) from None


def _utf16_name(data: bytes) -> str | None:
    for bom, name in _UTF16_BOMS:
        if data.startswith(bom):
            return name
    if b"\x00" not in data[:_SNIFF_BYTES]:
        return None
    sample = data[:_SNIFF_BYTES]
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even_nuls = sample[0 : pairs * 2 : 2].count(0)
    odd_nuls = sample[1 : pairs * 2 : 2].count(0)
    # Text in UTF-16 that is mostly Latin has a NUL in nearly every high byte, and next to
    # none in the low bytes; UTF-8 text with a stray NUL looks nothing like that.
    if odd_nuls >= pairs * 0.4 and even_nuls <= pairs * 0.05:
        return "UTF-16 (little-endian)"
    if even_nuls >= pairs * 0.4 and odd_nuls <= pairs * 0.05:
        return "UTF-16 (big-endian)"
    return None


def _subject(path: Path | None) -> str:
    return f"Cannot read '{path}': it is" if path is not None else "The bytes are"
