"""Page 1 of a fixed document's PDF (heading, table, code, a diagram, a formula) compared with
the stored reference image, within a tolerance. Regenerate the reference with
``.venv/bin/python -m tests.export.reference_image`` after an intended change of look."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.export.reference_image import (
    REFERENCE,
    Grey,
    difference,
    export_page_one,
    read_png,
    write_png,
)

TOLERANCE = 0.01
"""At most 1% of the pixels may differ clearly (anti-aliasing and hinting move a few)."""


@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="needs chromium (apt-get install chromium)"
)
@pytest.mark.skipif(
    shutil.which("pdftoppm") is None, reason="needs pdftoppm (apt-get install poppler-utils)"
)
def test_page_one_matches_the_stored_reference_image(tmp_path: Path) -> None:
    page = export_page_one(tmp_path)
    reference = read_png(REFERENCE.read_bytes())
    assert (page.width, page.height) == (reference.width, reference.height)
    share = difference(page, reference)
    assert share <= TOLERANCE, (
        f"{share:.2%} of page 1 differs from {REFERENCE.name}; if the change of look is "
        "intended, run `.venv/bin/python -m tests.export.reference_image`."
    )


def test_the_comparison_sees_a_changed_page() -> None:
    reference = read_png(REFERENCE.read_bytes())
    assert difference(reference, reference) == 0.0
    # A block of the page turned from its shade to the opposite one is a clear difference.
    size = reference.width * reference.height
    changed = bytearray(reference.pixels)
    for index in range(size // 10):
        changed[index] = 255 - changed[index] if abs(255 - 2 * changed[index]) > 100 else 0
    assert difference(reference, Grey(reference.width, reference.height, bytes(changed))) > 0.05
    blank = Grey(reference.width, reference.height, b"\xff" * size)
    assert difference(reference, blank) > TOLERANCE
    assert read_png(write_png(reference)) == reference
