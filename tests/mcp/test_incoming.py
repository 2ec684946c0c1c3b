"""Reading one stdin line of ``quire mcp``: the right JSON-RPC code, under the request's id."""

from __future__ import annotations

import json

import mcp_types as types
import pytest

from quire.mcp.incoming import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    read_line,
    salvage_id,
    too_long,
)

CALL = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": %s}'

CASES: list[tuple[str, bytes, int, object]] = [
    ("not JSON", b"{not json", PARSE_ERROR, None),
    ("a truncated request", b'{"jsonrpc": "2.0", "id": 7, "method": "ping"', PARSE_ERROR, None),
    ("params an array", (CALL % "[1, 2]").encode(), INVALID_PARAMS, 7),
    ("params a string", (CALL % '"x"').encode(), INVALID_PARAMS, 7),
    ("a \\ud800 escape in params", (CALL % '{"name": "\\ud800"}').encode(), INVALID_PARAMS, 7),
    ("bytes not UTF-8 in params", (CALL % '{"name": "\xff"}').encode("latin-1"), INVALID_PARAMS, 7),
    ("a surrogate in a key", (CALL % '{"\\udc80": 1}').encode(), INVALID_PARAMS, 7),
    (
        "a surrogate in the method",
        b'{"jsonrpc":"2.0","id":"a","method":"\\ud800"}',
        INVALID_REQUEST,
        "a",
    ),
    ("jsonrpc 1.0", b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}', INVALID_REQUEST, 7),
    ("no jsonrpc", b'{"id": "x", "method": "ping"}', INVALID_REQUEST, "x"),
    ("a number method", b'{"jsonrpc": "2.0", "id": 7, "method": 5}', INVALID_REQUEST, 7),
    ("no method", b'{"jsonrpc": "2.0", "id": 7}', INVALID_REQUEST, 7),
    ("a float id", b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', INVALID_REQUEST, None),
    ("a boolean id", b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
    ("a null id", b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', INVALID_REQUEST, None),
    ("an array", b"[1, 2]", INVALID_REQUEST, None),
    ("a batch", b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', INVALID_REQUEST, None),
    ("a bare string", b'"ping"', INVALID_REQUEST, None),
    ("deep params", (CALL % ("[" * 5000 + "]" * 5000)).encode(), INVALID_REQUEST, 7),
    ("a 5,000-digit integer", (CALL % ("1" * 5000)).encode(), INVALID_REQUEST, 7),
    ("a huge exponent", (CALL % "1e99999").encode(), INVALID_REQUEST, 7),
    ("NaN", (CALL % "NaN").encode(), INVALID_REQUEST, 7),
    ("a bad answer", b'{"jsonrpc": "2.0", "id": 7, "result": 5}', INVALID_REQUEST, None),
]


@pytest.mark.parametrize(
    ("line", "code", "request_id"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_bad_line_gets_the_right_code_under_its_id(
    line: bytes, code: int, request_id: object
) -> None:
    reply = read_line(line)
    assert isinstance(reply, types.JSONRPCError)
    assert reply.error.code == code, reply.error.message
    assert reply.id == request_id


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        b'{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {}}',
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        b'{"jsonrpc": "2.0", "id": 3, "result": {}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "é 日 😀"}}'.encode(),
    ],
)
def test_a_valid_message_passes_as_the_sdk_reads_it(line: bytes) -> None:
    message = read_line(line)
    assert message == types.jsonrpc_message_adapter.validate_json(line, by_name=False)


@pytest.mark.parametrize("line", [b"", b"   ", b"\r\n", b"\n"])
def test_a_blank_line_is_ignored(line: bytes) -> None:
    assert read_line(line) is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"jsonrpc": "2.0", "id": 12, "params": [[[', 12),
        ('{"id": "abc", "x": 1', "abc"),
        ('{"params": {"id": 5}, "id": 6, "x": [[[[', 6),
        ('{"params": {"id": 5}, "x": [[[[', None),
        ('{"a": "\\"id\\": 5", "x": [[[[', None),
        ('{"id": 1.5, "x": [[[[', None),
        ('[{"id": 3}', None),
    ],
)
def test_the_id_of_an_unparsable_line_is_found_only_at_the_top_level(
    text: str, found: object
) -> None:
    assert salvage_id(text) == found


def test_an_over_long_line_is_answered_under_the_id_it_starts_with() -> None:
    head = json.dumps({"jsonrpc": "2.0", "id": 41, "method": "tools/call"})[:-1] + ', "params": '
    reply = too_long(head.encode())
    assert reply.id == 41
    assert reply.error.code == INVALID_REQUEST
    assert "16 MiB" in reply.error.message
