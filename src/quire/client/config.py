"""The few quire.toml settings a client needs without a server: today, whether chat is on.

Reads ``<state>/quire.toml`` through ``quire.fs`` and never refuses: a missing, unreadable
or invalid file leaves the default (the server names such a file's problem when it starts).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from quire.core.errors import QuireError
from quire.fs.safeio import read_regular_bytes

CONFIG_FILE_NAME = "quire.toml"
_MAX_CONFIG_BYTES = 1024 * 1024


def chat_enabled(state: Path) -> bool:
    """Whether chat is on: false only when quire.toml says ``[chat] enabled = false``."""
    try:
        # The file may be a symlink into a dotfiles repository, as the server allows.
        path = Path(os.path.realpath(state / CONFIG_FILE_NAME))
        data = read_regular_bytes(path, limit=_MAX_CONFIG_BYTES, what="settings file")
        config = tomllib.loads(data.decode("utf-8"))
    except (QuireError, OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    chat = config.get("chat")
    return not (isinstance(chat, dict) and chat.get("enabled") is False)
