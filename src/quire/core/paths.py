"""Path arguments made absolute by lexical rules alone, as a shell would: no disk is touched.

Pure string and Path work; what a path may name (Markdown, inside a workspace, no symlink out)
is judged after resolving it, in ``quire.fs``.
"""

from __future__ import annotations

import os
from pathlib import Path

from quire.core.errors import InvalidArgument


def expand_path(raw: str, *, cwd: Path, home: Path, argument: str = "path") -> Path:
    """Make a path argument absolute, as a shell would, without touching the disk.

    ``raw`` may be absolute, relative to ``cwd``, or start with ``~/`` (or be ``~`` alone) for
    ``home``. ``~user`` and a ``~`` later in the path are kept as given (so they are relative).

    Normalisation is lexical only where it cannot change what the path names on Linux: repeated
    slashes (a leading ``//`` too), ``.`` components and a trailing slash are dropped. ``..`` is
    kept, because ``link/..`` is not the folder holding ``link`` when ``link`` is a symlink;
    symlinks are not resolved here. Every containment check judges the fully resolved path.

    Raises InvalidArgument (naming ``argument``) for an empty or whitespace-only path, a NUL
    byte, or characters no file name can hold. ``cwd`` and ``home`` must be absolute.
    """
    if not isinstance(raw, str):
        raise InvalidArgument(
            f"`{argument}` must be a string holding a file path, got {type(raw).__name__}.",
            argument=argument,
        )
    if not raw.strip():
        raise InvalidArgument(
            f"`{argument}` must not be empty: pass a file path, absolute, relative to the "
            "working directory, or starting with ~/ for your home folder.",
            argument=argument,
        )
    if "\0" in raw:
        raise InvalidArgument(
            f"`{argument}` contains a NUL byte (\\0), which no file name can hold. "
            "Pass the path without it.",
            argument=argument,
        )
    try:
        os.fsencode(raw)
    except UnicodeEncodeError:
        raise InvalidArgument(
            f"`{argument}` contains characters that cannot be part of a file name "
            "(an unpaired surrogate). Pass the path as valid text.",
            argument=argument,
        ) from None
    require_absolute(cwd, "cwd")
    require_absolute(home, "home")
    if raw == "~":
        expanded = home
    elif raw.startswith("~/"):
        expanded = home / raw[2:].lstrip("/")
    else:
        expanded = cwd / raw
    text = str(expanded)
    # POSIX leaves a leading "//" to the system; Linux and macOS read it as "/".
    return Path("/" + text.lstrip("/")) if text.startswith("//") else expanded


def require_absolute(path: Path, name: str) -> None:
    """Refuse a relative path with ValueError: callers expand user input first (expand_path)."""
    if not isinstance(path, Path) or not path.is_absolute():
        raise ValueError(f"{name} must be an absolute Path, got {path!r}")


def moved_path(path: Path, source: Path, target: Path) -> Path | None:
    """Where ``path`` is after ``source`` (a file, or a folder and what is inside) was renamed
    or moved to ``target``; None when ``path`` is neither ``source`` nor below it."""
    if not path.is_relative_to(source):
        return None
    return target / path.relative_to(source)


def moved_key(key: str, source: Path, target: Path) -> str:
    """The path-as-text ``key`` after the move of ``source`` to ``target`` (see moved_path);
    ``key`` itself when the move does not touch it."""
    moved = moved_path(Path(key), source, target)
    return key if moved is None else str(moved)
