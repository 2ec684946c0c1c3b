"""Fuzz ``quire mcp``'s stdio as a real process with seeded hostile lines: JSON-RPC messages
with every kind of id, method and params, lines that are not JSON or not UTF-8, deep and huge
values. Every request whose id can be read is answered under that id, the process keeps
serving, and stderr holds no traceback.

The process is given a server that does not answer (``--server`` on a closed port), so a tool
that needs one fails fast instead of starting a real server.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from quire.mcp.catalog import TOOLS
from tests.cli.test_mcp import INITIALIZED, initialize, read_line
from tests.support.fuzz import RAW, SCALE, SEED, Hostile, dump, report

LINES = 150 * SCALE
METHODS = (
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "initialize",
    "notifications/cancelled",
    "no/such",
    "",
)


def message(hostile: Hostile, request_id: int) -> tuple[bytes, Any]:
    """A line, and the id it must be answered under (None: no answer is owed)."""
    pick = hostile.random.random()
    if pick < 0.08:
        return hostile.random.choice(RAW), None
    data: dict[str, Any] = {"jsonrpc": "2.0" if hostile.random.random() < 0.9 else "1.0"}
    owed: Any = None
    shape = hostile.random.random()
    if shape < 0.7:
        data["id"] = request_id
        owed = request_id
    elif shape < 0.8:
        data["id"] = f"s-{request_id}-\u00e9"
        owed = data["id"]
    elif shape < 0.9:
        data["id"] = hostile.random.choice((1.5, True, None, [1], {"a": 1}))
    method = hostile.random.choice(METHODS)
    if hostile.random.random() < 0.9:
        data["method"] = method if hostile.random.random() < 0.95 else hostile.value()
    if method == "tools/call" and hostile.random.random() < 0.8:
        tool = hostile.random.choice(TOOLS).name if hostile.random.random() < 0.8 else "x"
        data["params"] = {"name": tool, "arguments": hostile.value()}
    elif hostile.random.random() < 0.6:
        data["params"] = hostile.value()
    if "method" not in data and owed is not None and hostile.random.random() < 0.5:
        data["result"] = hostile.value()  # an answer from the client: none is owed back
        owed = None
    line = dump(data)
    if hostile.random.random() < 0.05:
        line = line.replace(b'"2.0"', b'"2.0", "x": "\xff\xfe"')  # bytes that are not UTF-8
    return line, owed


def _send(stdin: IO[bytes], payload: bytes, later: queue.Queue[bytes | None]) -> None:
    """Write ``payload``, then whatever the reader queues (answers to the server's own
    requests) until it queues None. One writer: lines never interleave, and the reader never
    waits on the writer (it would deadlock: the server stops reading stdin while its replies
    wait to be read)."""
    # stdin is unbuffered (bufsize=0); the test closes it once every answer is in.
    with contextlib.suppress(BrokenPipeError, ValueError):
        stdin.write(payload)
        while (extra := later.get()) is not None:
            stdin.write(extra)


def test_every_request_with_a_readable_id_is_answered_under_it(tmp_path: Path) -> None:
    hostile = Hostile(SEED, paths=(str(tmp_path / "ws" / "a.md"),))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.md").write_text("# A\n", encoding="utf-8")
    lines = [dump(initialize(request_id=0)), dump(INITIALIZED)]
    owed: dict[Any, bytes] = {0: lines[0]}
    for number in range(1, LINES + 1):
        line, answer = message(hostile, number)
        lines.append(line)
        if answer is not None:
            owed[answer] = line
    lines.append(b'{"jsonrpc": "2.0", "id": "last", "method": "ping"}')
    owed["last"] = lines[-1]
    env = {
        **os.environ,
        "QUIRE_HOME": str(tmp_path / "state"),
        "QUIRE_TOKEN": "0" * 64,
        "HOME": str(tmp_path),
    }
    # stderr goes to a file: a pipe nobody reads fills with the warnings about refused lines
    # (a few hundred bytes each), and a server blocked writing its log stops answering.
    log = tmp_path / "stderr.log"
    errors = log.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "quire.cli.main", "mcp", "--server", "http://127.0.0.1:9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        cwd=tmp_path / "ws",
        env=env,
        bufsize=0,
    )
    assert process.stdin is not None and process.stdout is not None
    payload = b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n"
    # Written from a thread: the replies must be read while the lines go in, or both pipes fill.
    later: queue.Queue[bytes | None] = queue.Queue()
    writing = threading.Thread(target=_send, args=(process.stdin, payload, later), daemon=True)
    writing.start()
    answered: dict[Any, dict[str, Any]] = {}
    deadline = time.monotonic() + 60 * SCALE
    try:
        while not owed.keys() <= answered.keys() and time.monotonic() < deadline:
            reply = json.loads(read_line(process.stdout, seconds=30))
            if "method" in reply and "id" in reply:
                # The server asks the client (its roots): answer as a client would.
                answer = {"jsonrpc": "2.0", "id": reply["id"], "result": {"roots": []}}
                later.put(dump(answer) + b"\n")
                continue
            answered.setdefault(reply.get("id"), reply)
    except TimeoutError:
        pass
    finally:
        later.put(None)
        writing.join(timeout=30)
        try:
            process.communicate(b"", timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
        errors.close()
    stderr = log.read_text(encoding="utf-8", errors="replace")
    missing = {key: owed[key][:300] for key in owed.keys() - answered.keys()}
    report(f"fuzzed {len(lines)} stdio lines (seed {SEED}); {len(owed)} requests owed an answer")
    assert not missing, f"seed {SEED}: no answer for {len(missing)}: {list(missing.items())[:10]}"
    assert answered["last"]["result"] == {}
    assert "Traceback" not in stderr, stderr[-3000:]
    assert process.returncode == 0, stderr[-2000:]
