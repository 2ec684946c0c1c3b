"""Where Quire keeps its own state: ``$QUIRE_HOME``, else ``~/.quire``.

Pure: the environment and the home folder are passed in by the composition roots in ``cli/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

STATE_ENV = "QUIRE_HOME"
DEFAULT_STATE_NAME = ".quire"


def state_folder(environ: Mapping[str, str], home: Path) -> Path:
    """The state folder: ``$QUIRE_HOME`` when set and not blank, else ``home/.quire``.

    A leading ``~/`` and a relative ``QUIRE_HOME`` are taken relative to ``home``, never the
    working directory, so every command of one install agrees on it wherever it runs.
    """
    configured = environ.get(STATE_ENV, "").strip()
    if configured:
        if configured == "~" or configured.startswith("~/"):
            return home / configured[2:]
        path = Path(configured)
        return path if path.is_absolute() else home / path
    return home / DEFAULT_STATE_NAME


INBOX_NAME = "inbox"


def inbox_folder(state: Path) -> Path:
    """Where documents read from stdin are kept (``quire open -``): ``<state>/inbox``."""
    return state / INBOX_NAME


def sessions_folder(state: Path) -> Path:
    """The conversation memory folder inside the state folder."""
    return state / "sessions"
