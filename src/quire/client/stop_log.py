"""The keepalive hook's own count of a session's recent stops, for sessions the server does not
know (an agent whose harness sets no session variable for its commands).

One small JSON file per session (named by a hash of its id) in ``<state>/keepalive``, written
atomically through ``quire.fs``; it never talks to the server.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Final

from quire.core.errors import QuireError
from quire.fs.atomic import write_atomic
from quire.fs.safeio import read_regular_bytes

WINDOW_MS: Final = 120_000
"""Stops within this long of each other count together (two minutes)."""

FOLDER_NAME: Final = "keepalive"
_KEPT = 20
_MAX_BYTES = 64 * 1024


def stop_log(state: Path, session_id: str) -> Path:
    """The file that holds the recent stops of ``session_id``."""
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return state / FOLDER_NAME / f"{digest}.json"


def record_stop(state: Path, session_id: str, now_ms: int) -> int | None:
    """Note a stop of the session now; how many it made within two minutes (this one included),
    or None when the count cannot be kept (the state folder cannot be written)."""
    path = stop_log(state, session_id)
    recent = [when for when in _read(path) if 0 <= now_ms - when < WINDOW_MS]
    recent.append(now_ms)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(path, json.dumps(recent[-_KEPT:]), overwrite=True, mode=0o600)
    except (QuireError, OSError):
        return None
    return len(recent)


def _read(path: Path) -> list[int]:
    try:
        value = json.loads(read_regular_bytes(path, limit=_MAX_BYTES, what="keepalive file"))
    except (QuireError, ValueError):
        return []
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, int) and not isinstance(item, bool)]
