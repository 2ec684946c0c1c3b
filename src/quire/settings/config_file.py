"""Reading ``<state>/quire.toml``: its tables as a dict, with every unknown key refused.

The one reader of the file for both sides (the server's settings and a client's view of them).
It follows a symlink yet never reads a FIFO or a device (``quire.fs`` does the safe read); it
judges no value (the settings model does).
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from quire.core.errors import FileMissing, InvalidArgument, QuireError
from quire.fs.safeio import read_regular_bytes
from quire.settings.catalog import CONFIG_FILE_NAME, FILE_KEYS

MAX_CONFIG_BYTES = 1024 * 1024


def config_path(state_dir: Path) -> Path:
    """Where the settings file of ``state_dir`` lives."""
    return state_dir / CONFIG_FILE_NAME


def read_config(path: Path) -> dict[str, object]:
    """quire.toml's tables as a dict ({} when there is no file); unknown keys are refused.

    Raises InvalidArgument (``argument="config"``) naming the file and how to fix it.
    """
    try:
        # The file may be a symlink into a dotfiles repository: follow it, yet never read a
        # FIFO or a device (read_regular_bytes refuses those without blocking).
        data = read_regular_bytes(
            Path(os.path.realpath(path)), limit=MAX_CONFIG_BYTES, what="settings file"
        )
    except FileMissing:
        return {}
    except QuireError as err:
        raise InvalidArgument(
            f"Cannot read the settings file {path}: {err} Fix or remove the file.",
            argument="config",
        ) from None
    try:
        config = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise InvalidArgument(
            f"The settings file {path} is not valid TOML ({err}). Fix the file, or remove it "
            "to use the defaults.",
            argument="config",
        ) from None
    _refuse_unknown_keys(config, path)
    return config


def file_value(config: Mapping[str, object], file_key: str) -> tuple[bool, object]:
    """(whether the file sets ``file_key``, its value) for a dotted key of FILE_KEYS."""
    table, _, name = file_key.rpartition(".")
    holder = config.get(table, {}) if table else config
    if isinstance(holder, dict) and name in holder:
        return True, holder[name]
    return False, None


def _refuse_unknown_keys(config: Mapping[str, object], path: Path) -> None:
    known = sorted(FILE_KEYS.values())
    tables = {key.split(".")[0] for key in known if "." in key}
    for key, value in config.items():
        if isinstance(value, dict):
            names = [f"{key}.{sub}" for sub in value] or [key]
        elif key in tables:
            raise InvalidArgument(
                f"`{key}` in the settings file {path} must be a table: write `[{key}]` on its "
                "own line with its settings below it.",
                argument="config",
            )
        else:
            names = [key]
        for name in names:
            if name not in known:
                raise InvalidArgument(_unknown_key(name, known, path), argument="config")


def _unknown_key(name: str, known: Sequence[str], path: Path) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    hint = f"Did you mean `{close[0]}`?" if close else "Remove it."
    listed = ", ".join(f"`{key}`" for key in known)
    return (
        f"The settings file {path} has an unknown setting `{name}`. {hint} "
        f"The settings it may hold are {listed}."
    )
