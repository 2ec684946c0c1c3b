"""Page 1 of a small fixed document's PDF as a grey image, and the stored reference image it
is compared with (``reference-page1.png`` beside this file).

Regenerate the reference after an intended change to how exports look (needs chromium and
pdftoppm from poppler-utils):

    .venv/bin/python -m tests.export.reference_image
"""

from __future__ import annotations

import asyncio
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from quire.api.exports import ExportJob
from quire.services.export import ExportService

REFERENCE = Path(__file__).with_name("reference-page1.png")
DPI = 50
"""Coarse enough that font hinting differences stay small, fine enough to see the layout."""

DOCUMENT = """# Reference page

A paragraph of body text, then a table, code, a diagram and a formula.

| Region | Sales |
|---|---|
| North | 120 |
| South | 95 |

```python
def total(items):
    return sum(items)
```

```mermaid
graph LR
  Draft --> Review --> Published
```

$$
\\int_0^1 x^2 \\, dx = \\frac{1}{3}
$$
"""


@dataclass(frozen=True)
class Grey:
    """An 8-bit grey image, row by row."""

    width: int
    height: int
    pixels: bytes


def export_page_one(folder: Path) -> Grey:
    """DOCUMENT exported to PDF in ``folder``, its first page rasterised by pdftoppm."""
    source = folder / "reference.md"
    source.write_text(DOCUMENT, encoding="utf-8")

    async def export() -> Path:
        service = ExportService()
        try:
            result = await service.export(
                ExportJob(source, "pdf", overwrite=True), allowed=[folder]
            )
        finally:
            await service.aclose()
        return Path(result.path)

    pdf = asyncio.run(export())
    subprocess.run(
        ["pdftoppm", "-gray", "-r", str(DPI), "-f", "1", "-l", "1", "-singlefile", str(pdf),
         str(folder / "page")],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return read_pgm((folder / "page.pgm").read_bytes())


def read_pgm(data: bytes) -> Grey:
    """A binary PGM (P5, 8-bit), as pdftoppm writes it."""
    fields: list[bytes] = []
    position = 0
    while len(fields) < 4:
        while data[position : position + 1].isspace():
            position += 1
        if data[position : position + 1] == b"#":
            position = data.index(b"\n", position)
            continue
        end = position
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[position:end])
        position = end
    if fields[0] != b"P5" or fields[3] != b"255":
        raise ValueError("Not an 8-bit binary PGM.")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[position + 1 : position + 1 + width * height]
    return Grey(width, height, pixels)


def write_png(image: Grey) -> bytes:
    """``image`` as a grey PNG (no filters)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    rows = b"".join(
        b"\x00" + image.pixels[row * image.width : (row + 1) * image.width]
        for row in range(image.height)
    )
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def read_png(data: bytes) -> Grey:
    """A PNG written by ``write_png`` (8-bit grey, unfiltered rows)."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("Not a PNG file.")
    position, header, compressed = 8, b"", b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            compressed += body
        position += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    if (depth, colour) != (8, 0):
        raise ValueError("Only 8-bit grey PNGs are read; regenerate the reference.")
    raw = zlib.decompress(compressed)
    stride = width + 1
    if any(raw[row * stride] != 0 for row in range(height)):
        raise ValueError("Only unfiltered PNGs are read; regenerate the reference.")
    pixels = b"".join(raw[row * stride + 1 : (row + 1) * stride] for row in range(height))
    return Grey(width, height, pixels)


def difference(first: Grey, second: Grey, *, threshold: int = 48) -> float:
    """The share of pixels whose grey levels differ by more than ``threshold``."""
    if (first.width, first.height) != (second.width, second.height):
        return 1.0
    differing = sum(
        1 for a, b in zip(first.pixels, second.pixels, strict=True) if abs(a - b) > threshold
    )
    return differing / len(first.pixels)


def main() -> int:
    """Export the document and store page 1 as the new reference."""
    missing = [name for name in ("chromium", "pdftoppm") if shutil.which(name) is None]
    if missing:
        sys.stderr.write(f"Needs {', '.join(missing)} (apt-get install chromium poppler-utils).\n")
        return 1
    with tempfile.TemporaryDirectory(prefix="quire-reference-") as folder:
        image = export_page_one(Path(folder))
    REFERENCE.write_bytes(write_png(image))
    sys.stdout.write(f"Wrote {REFERENCE} ({image.width}x{image.height}).\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
