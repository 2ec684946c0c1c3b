"""Garbage collection paused while a command starts (``quire.cli.startup``): real ``quire
serve`` and ``quire mcp`` processes collect again once ready, with what starting built frozen;
any other command resumes it as soon as it is imported; a test process importing the CLI never
pauses it."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from quire.cli.main import cli
from quire.cli.startup import pause_collection

# Runs the real entry point with a SIGUSR1 handler that reports the collector's state.
REPORTING = (
    "import gc, os, signal, sys\n"
    "signal.signal(signal.SIGUSR1, lambda *_: os.write(2, b'collecting=%d frozen=%d\\n' % "
    "(gc.isenabled(), gc.get_freeze_count())))\n"
    "sys.argv = ['quire', *sys.argv[1:]]\n"
    "from quire.cli.main import main\n"
    "main()\n"
)


def _report(process: subprocess.Popen[bytes], log: Path) -> str:
    """The collector's state as the running ``process`` tells it on SIGUSR1."""
    process.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("collecting="):
                return line
        time.sleep(0.05)
    raise AssertionError(f"no report on SIGUSR1; stderr: {log.read_text(errors='replace')}")


def _environment(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "QUIRE_HOME": str(tmp_path / "state")}


def _assert_resumed_and_frozen(report: str) -> None:
    fields = dict(part.split("=") for part in report.split())
    assert fields["collecting"] == "1", report
    assert int(fields["frozen"]) > 10_000, report  # the modules, classes and settings of start


def test_a_ready_server_collects_again_with_its_start_frozen(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    log = tmp_path / "stderr.log"
    command = [sys.executable, "-c", REPORTING, "serve", str(workspace), "--port", "0"]
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [*command, "--no-browser"],
            stdout=subprocess.PIPE,
            stderr=errors,
            env=_environment(tmp_path),
        )
        try:
            assert process.stdout is not None
            assert b"Quire is running at" in process.stdout.readline()
            _assert_resumed_and_frozen(_report(process, log))
        finally:
            process.terminate()
            process.wait(timeout=30)
            if process.stdout is not None:
                process.stdout.close()


def test_an_mcp_server_collects_again_once_it_answers(tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [sys.executable, "-c", REPORTING, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=_environment(tmp_path),
            cwd=tmp_path,
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(initialize).encode() + b"\n")
            process.stdin.flush()
            assert json.loads(process.stdout.readline())["id"] == 1
            _assert_resumed_and_frozen(_report(process, log))
        finally:
            process.stdin.close()
            process.wait(timeout=30)
            process.stdout.close()


def test_any_other_command_collects_once_it_is_imported(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nText.\n", encoding="utf-8")
    reporting = REPORTING.replace(
        "main()\n",
        "import atexit\n"
        "atexit.register(lambda: os.write(2, b'collecting=%d\\n' % gc.isenabled()))\n"
        "main()\n",
    )
    done = subprocess.run(
        [sys.executable, "-c", reporting, "text", str(note)],
        capture_output=True,
        env=_environment(tmp_path),
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"collecting=1" in done.stderr


@pytest.mark.parametrize(("args", "resumed"), [(["text", "--help"], True), (["mcp", "-h"], False)])
def test_the_group_resumes_collection_for_every_command_but_serve_and_mcp(
    args: list[str], resumed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gc, "freeze", lambda: None)  # this test process keeps its objects
    pause_collection()
    try:
        CliRunner().invoke(cli, args)
        assert gc.isenabled() is resumed
    finally:
        gc.enable()


def test_importing_the_command_line_leaves_collection_on() -> None:
    assert gc.isenabled()
