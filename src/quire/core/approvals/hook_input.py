"""Reading the JSON an agent's harness hands a hook on stdin, strictly.

One JSON object and nothing after it, at most 1 MiB of UTF-8, no key twice in any object (nor
two keys that differ only in case: a harness never sends both, so a second one is a smuggled
field). Pure: bytes in, a checked PermissionAsk or an InvalidArgument naming the problem out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from quire.core.errors import InvalidArgument
from quire.core.json_input import loads

MAX_HOOK_INPUT: Final = 1024 * 1024
"""The most a hook reads from stdin; a longer input is refused whole."""

Harness = Literal["claude-code", "codex"]
HARNESSES: Final[tuple[Harness, ...]] = get_args(Harness)

PERMISSION_EVENT: Final = "PermissionRequest"
QUESTION_TOOL: Final = "AskUserQuestion"


@dataclass(frozen=True)
class PermissionAsk:
    """One PermissionRequest as the harness sent it: who asks, where, and for which tool call."""

    harness: Harness
    session_id: str
    cwd: str
    tool_name: str
    tool_input: dict[str, Any]
    suggestions: tuple[dict[str, Any], ...]
    """``permission_suggestions``: the rules the agent offers for "allow for this session"."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, str] = {}
    for key, _ in pairs:
        folded = key.casefold()
        if folded in seen:
            first = seen[folded]
            same = "twice" if first == key else f"twice, as {first!r} and {key!r}"
            raise InvalidArgument(f"The hook input holds the key {key!r} {same}.")
        seen[folded] = key
    return dict(pairs)


def read_hook_json(raw: bytes) -> dict[str, Any]:
    """The one JSON object ``raw`` holds; InvalidArgument for anything else (too long, not
    UTF-8, not JSON, trailing data, not an object, a key twice or in two cases)."""
    if len(raw) > MAX_HOOK_INPUT:
        raise InvalidArgument(
            f"The hook input is over {MAX_HOOK_INPUT:,} bytes; a harness never sends that much."
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidArgument(f"The hook input is not UTF-8 (byte {err.start}).") from None
    try:
        data = loads(text, what="The hook input", object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        raise InvalidArgument(f"The hook input is not one JSON value: {err.msg}.") from None
    if not isinstance(data, dict):
        raise InvalidArgument("The hook input is not a JSON object.")
    return data


def permission_ask(data: dict[str, Any], harness: Harness) -> PermissionAsk:
    """The PermissionRequest in ``data``; InvalidArgument when a field is missing or of the
    wrong type, or when the event is another one."""
    event = data.get("hook_event_name", PERMISSION_EVENT)
    if event != PERMISSION_EVENT:
        raise InvalidArgument(f"The hook input is a {event!r} event, not a PermissionRequest.")
    session_id = _text(data, "session_id")
    cwd = _text(data, "cwd")
    tool_name = _text(data, "tool_name")
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        raise InvalidArgument("The hook input's `tool_input` is not an object.")
    raw_suggestions = data.get("permission_suggestions", [])
    if not isinstance(raw_suggestions, list) or not all(
        isinstance(item, dict) for item in raw_suggestions
    ):
        raise InvalidArgument("The hook input's `permission_suggestions` is not a list of objects.")
    return PermissionAsk(
        harness=harness,
        session_id=session_id,
        cwd=cwd,
        tool_name=tool_name,
        tool_input=tool_input,
        suggestions=tuple(raw_suggestions),
    )


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise InvalidArgument(f"The hook input's `{key}` is missing or not a non-empty string.")
    return value
