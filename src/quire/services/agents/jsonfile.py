"""Agents' JSON settings files: read one as an object (or say why it cannot be changed) and
write it back atomically, keeping its indentation and every key Quire does not own.

Never repairs or reformats a file it cannot parse; never writes through a symlink's name (the
link's target is written instead, so a dotfiles manager's link keeps working).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.fs.atomic import write_atomic

Indent = int | str


@dataclass(frozen=True)
class JsonFile:
    """A settings file as read: its object (None when the file does not exist yet), or why
    Quire must leave it untouched."""

    path: Path
    data: dict[str, Any] | None
    problem: str | None = None
    indent: Indent = 2


def read_json_object(path: Path) -> JsonFile:
    """``path`` parsed as a JSON object; an empty (or blank) file reads as ``{}``.

    A file that is not a regular file, is too large, is not UTF-8, is not valid JSON or holds
    something other than an object comes back with ``problem`` set and ``data`` None.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        return JsonFile(path, None)
    except OSError as exc:
        return JsonFile(path, None, f"it cannot be read ({exc.strerror or exc})")
    if not stat.S_ISREG(info.st_mode):
        return JsonFile(path, None, "it is not a regular file")
    if info.st_size > MAX_DOCUMENT_BYTES:
        return JsonFile(path, None, f"it is larger than {MAX_DOCUMENT_BYTES // 2**20} MiB")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return JsonFile(path, None, f"it cannot be read ({exc.strerror or exc})")
    return parse_json_object(path, raw)


def parse_json_object(path: Path, raw: bytes) -> JsonFile:
    """The bytes of ``path`` judged as read_json_object judges a file's content."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return JsonFile(path, None, f"it is not UTF-8 text (byte {exc.start + 1})")
    if not text.strip():
        return JsonFile(path, {})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return JsonFile(
            path,
            None,
            f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
        )
    except RecursionError:
        return JsonFile(path, None, "it is nested too deeply to read")
    if not isinstance(data, dict):
        return JsonFile(path, None, f"it holds {json_kind(data)}, not a JSON object")
    return JsonFile(path, data, indent=_indent_of(text))


def write_json_object(file: JsonFile, data: dict[str, Any]) -> None:
    """Write ``data`` to ``file``'s path atomically, with the file's indentation.

    The folder is created when missing; a symlink's target is replaced, not the link. Raises
    StorageFailed (a QuireError) when the system refuses; the old file is then unchanged.
    """
    target = Path(os.path.realpath(file.path))
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=file.indent, ensure_ascii=False) + "\n"
    write_atomic(target, text, overwrite=True)


def json_kind(value: object) -> str:
    """A JSON value's kind in words: ``an object``, ``a list``, ``a string``…"""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"


def _indent_of(text: str) -> Indent:
    """The indentation of the first indented line: a tab, or a number of spaces (2 if none)."""
    for line in text.splitlines()[1:]:
        body = line.lstrip(" \t")
        if body and len(body) < len(line):
            lead = line[: len(line) - len(body)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2
