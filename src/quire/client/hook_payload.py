"""The agent's PostToolUse payload: which Markdown file, if any, a tool call just wrote.

Judges the JSON a Claude Code PostToolUse hook receives (its event, tool, outcome and
``tool_input.file_path``) and applies the document rule to the path; it never opens anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from quire.core.errors import QuireError
from quire.core.paths import expand_path
from quire.fs.documents import find_file
from quire.fs.folders import AllowedFolders

MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
"""The most of a hook payload read from stdin; a longer one is ignored."""

EVENT = "PostToolUse"
WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
"""The tools whose ``file_path`` is a file they have just written."""

_TOOL_ERROR_TAG = "<tool_use_error>"


def written_document(payload: bytes, *, cwd: Path, home: Path) -> Path | None:
    """The Markdown document (resolved through symlinks) the payload's tool call wrote, or None.

    None unless the payload is a JSON object of a PostToolUse event from Write, Edit or
    MultiEdit whose tool did not fail, naming an existing Markdown file that is not a dotfile.
    An absent event or tool name is not held against it; a present one must match. A relative
    ``file_path`` is taken from the payload's ``cwd`` when that is absolute, else from ``cwd``.
    """
    if len(payload) > MAX_PAYLOAD_BYTES:
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not _is_wanted_call(data):
        return None
    tool_input = data.get("tool_input")
    raw = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(raw, str):
        return None
    base = data.get("cwd")
    if isinstance(base, str) and Path(base).is_absolute() and "\0" not in base:
        cwd = Path(base)
    try:
        path = expand_path(raw, cwd=cwd, home=home, argument="file_path")
        return find_file(AllowedFolders.whole_disk(), path, verb="open").path
    except (QuireError, ValueError, OSError):
        return None


def _is_wanted_call(data: Mapping[str, Any]) -> bool:
    event = data.get("hook_event_name")
    tool = data.get("tool_name")
    if event is not None and event != EVENT:
        return False
    if tool is not None and not (isinstance(tool, str) and tool in WRITING_TOOLS):
        return False
    return not tool_failed(data.get("tool_response"))


def tool_failed(response: object) -> bool:
    """Whether a ``tool_response`` reports that the tool failed.

    Failed: ``success: false``, ``is_error: true``, a non-empty ``error``, or a text holding a
    ``<tool_use_error>`` tag (as a whole response or as its ``content``).
    """
    if isinstance(response, str):
        return _TOOL_ERROR_TAG in response
    if not isinstance(response, dict):
        return False
    if response.get("success") is False or response.get("is_error") is True:
        return True
    error = response.get("error")
    if isinstance(error, str):
        error = error.strip()
    if error:
        return True
    content = response.get("content")
    return isinstance(content, str) and _TOOL_ERROR_TAG in content
