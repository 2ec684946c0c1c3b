"""The hook input is read strictly: one object, no key twice in any case, nothing after it."""

from __future__ import annotations

import json

import pytest

from quire.core.approvals.hook_input import (
    MAX_HOOK_INPUT,
    permission_ask,
    read_hook_json,
)
from quire.core.errors import InvalidArgument

GOOD = {
    "session_id": "s1",
    "cwd": "/work",
    "hook_event_name": "PermissionRequest",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
}


def test_a_well_formed_request_is_read() -> None:
    ask = permission_ask(read_hook_json(json.dumps(GOOD).encode()), "claude-code")
    assert (ask.session_id, ask.cwd, ask.tool_name, ask.tool_input, ask.suggestions) == (
        "s1",
        "/work",
        "Bash",
        {"command": "ls"},
        (),
    )


REFUSED: list[tuple[bytes, str]] = [
    (b"", "not one JSON value"),
    (b"   ", "not one JSON value"),
    (b"[]", "not a JSON object"),
    (b'"text"', "not a JSON object"),
    (b"{} {}", "not one JSON value"),
    (b'{"a": 1}x', "not one JSON value"),
    (b'{"a": 1, "a": 2}', "'a' twice"),
    (b'{"tool_name": "Bash", "Tool_Name": "Read"}', "as 'tool_name' and 'Tool_Name'"),
    (b'{"x": {"k": 1, "K": 2}}', "twice"),
    (b'{"x": [{"k": 1, "k": 1}]}', "twice"),
    (b'{"a": NaN}', "not a JSON number"),
    (b'{"a": "\xff"}', "not UTF-8"),
    (b"[" * 200 + b"]" * 200, "levels deep"),
    (b'{"a": "' + b"x" * MAX_HOOK_INPUT + b'"}', "over 1,048,576 bytes"),
]


@pytest.mark.parametrize(("raw", "fragment"), REFUSED)
def test_malformed_input_is_refused_naming_the_problem(raw: bytes, fragment: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        read_hook_json(raw)
    assert fragment in str(caught.value)


def test_exactly_one_mebibyte_is_still_read() -> None:
    padding = MAX_HOOK_INPUT - len(b'{"a": ""}')
    assert read_hook_json(b'{"a": "' + b"x" * padding + b'"}')["a"] == "x" * padding


FIELDS: list[tuple[dict[str, object], str]] = [
    ({"hook_event_name": "PreToolUse"}, "not a PermissionRequest"),
    ({"session_id": ""}, "`session_id`"),
    ({"session_id": 5}, "`session_id`"),
    ({"cwd": None}, "`cwd`"),
    ({"cwd": "/a\0b"}, "`cwd`"),
    ({"tool_name": " "}, "`tool_name`"),
    ({"tool_input": "ls"}, "`tool_input`"),
    ({"tool_input": ["ls"]}, "`tool_input`"),
    ({"permission_suggestions": {}}, "`permission_suggestions`"),
    ({"permission_suggestions": ["rule"]}, "`permission_suggestions`"),
]


@pytest.mark.parametrize(("change", "fragment"), FIELDS)
def test_a_missing_or_mistyped_field_is_refused(change: dict[str, object], fragment: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        permission_ask({**GOOD, **change}, "codex")
    assert fragment in str(caught.value)
