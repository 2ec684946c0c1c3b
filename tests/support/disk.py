"""What a folder holds, to assert that an operation changed nothing (or only what it should)."""

from __future__ import annotations

import os
from pathlib import Path


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every name below ``root``: a file's bytes, a link's target, or ``"dir"``."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            full = Path(folder) / name
            key = str(full.relative_to(root))
            if full.is_symlink():
                found[key] = "link:" + str(full.readlink())
            elif full.is_file():
                found[key] = full.read_bytes()
            else:
                found[key] = "dir"
    return found
