"""``quire mcp`` as a real process fed hostile lines: each request is answered under its id
with the right JSON-RPC code, the server keeps serving, and stderr holds no traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.test_mcp import COMMAND, INITIALIZED, environment, initialize, read_line

CALL = b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": %s}'


def run(tmp_path: Path, lines: list[bytes], expected: int) -> tuple[list[dict[str, Any]], str]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    process = subprocess.Popen(
        COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workspace,
        env=environment(tmp_path),
        bufsize=0,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"\n".join(lines) + b"\n")
    process.stdin.flush()
    try:
        replies = [json.loads(read_line(process.stdout)) for _ in range(expected)]
    finally:
        _, stderr = process.communicate(b"", timeout=60)
    assert process.returncode == 0, stderr.decode()
    return replies, stderr.decode("utf-8", "replace")


def test_hostile_lines_are_answered_under_their_ids(tmp_path: Path) -> None:
    hostile: dict[int, tuple[bytes, int]] = {
        2: (CALL % (2, b"[1, 2]"), -32602),
        3: (CALL % (3, b'{"name": "\\ud800", "arguments": {}}'), -32602),
        4: (CALL % (4, b'{"name": "read_file", "arguments": {"path": "\xff\xfe"}}'), -32602),
        5: (CALL % (5, b"[" * 5000 + b"]" * 5000), -32600),
        6: (CALL % (6, b"9" * 5000), -32600),
        7: (CALL % (7, b'{"x": 1e99999}'), -32600),
        8: (b'{"jsonrpc": "1.0", "id": 8, "method": "ping"}', -32600),
        9: (CALL % (9, b'"x' + b"a" * (16 * 1024 * 1024) + b'"'), -32600),
        10: (CALL % (10, b'{"name": 5}'), -32602),
    }
    lines = [json.dumps(initialize()).encode(), json.dumps(INITIALIZED).encode()]
    lines += [line for line, _ in hostile.values()]
    lines += [b"{not json", b'{"jsonrpc": "2.0", "id": 99, "method": "ping"}']
    replies, stderr = run(tmp_path, lines, expected=len(hostile) + 3)
    answers = {reply["id"]: reply for reply in replies}
    for request_id, (_, code) in hostile.items():
        assert answers[request_id]["error"]["code"] == code, answers[request_id]
    assert answers[None]["error"]["code"] == -32700
    assert answers[99]["result"] == {}, "the server keeps serving after every refusal"
    assert "16 MiB" in answers[9]["error"]["message"]
    assert "at most 64 levels" in answers[5]["error"]["message"]
    assert "Traceback" not in stderr
