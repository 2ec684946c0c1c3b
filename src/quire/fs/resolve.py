"""Resolving a path through its symbolic links, leniently, for where a path leads *now*.

``os.path.realpath`` raises OSError when a link on the way is swapped while it is resolved (a
racing writer in the workspace); here that gives the path as written instead. The answer only
names a place (which workspace holds a path, which key a chat has): every read and write still
walks from the allowed folder's descriptor (``quire.fs.anchored``), so a stale answer can make
a call fail, never escape.
"""

from __future__ import annotations

import os
from pathlib import Path

_ATTEMPTS = 3


def resolve_leniently(path: Path) -> Path:
    """``path`` with its links resolved as far as they exist (never raises)."""
    for _attempt in range(_ATTEMPTS):
        try:
            return Path(os.path.realpath(path))
        except OSError:
            continue
    return Path(os.path.normpath(path if path.is_absolute() else Path.cwd() / path))
