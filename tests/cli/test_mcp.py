"""``quire mcp`` as a real process speaking JSON-RPC over stdio, and its flags."""

import json
import os
import pty
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest
from click.testing import CliRunner
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from quire import __version__
from quire.cli.main import cli
from quire.cli.mcp import TERMINAL_HINT
from quire.cli.mcp_services import fixed_server, local_services
from quire.core.server_info import ServerInfo, dumps
from quire.mcp.catalog import TOOLS, schema_export
from quire.mcp.server import INSTRUCTIONS

COMMAND = [sys.executable, "-m", "quire.cli.main", "mcp"]


def environment(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "QUIRE_HOME": str(tmp_path / "state")}


def exchange(
    tmp_path: Path, messages: list[Any], *args: str | bytes
) -> tuple[list[dict[str, Any]], str]:
    """Send ``messages`` (objects, or raw text lines) to ``quire mcp``; its replies and stderr.

    stdin stays open until every request has its reply: the server ends (and drops what is
    in flight) when stdin closes, as a client that leaves would want.
    """
    expected = sum(1 for m in messages if isinstance(m, str) or "id" in m)
    lines = [m if isinstance(m, str) else json.dumps(m) for m in messages]
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    process = subprocess.Popen(
        [*COMMAND, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workspace,
        env=environment(tmp_path),
        bufsize=0,  # unbuffered, so a line waiting in a buffer never hides from select
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(("\n".join(lines) + "\n").encode())
    process.stdin.flush()
    try:
        replies = [json.loads(read_line(process.stdout)) for _ in range(expected)]
    except TimeoutError:
        process.kill()
        process.communicate(timeout=30)
        raise
    _, stderr = process.communicate(b"", timeout=60)
    assert process.returncode == 0, stderr.decode()
    return replies, stderr.decode("utf-8", "replace")


def read_line(stream: IO[bytes], seconds: float = 60) -> bytes:
    """One line of ``stream``, or TimeoutError: a missing reply fails the test, never hangs it."""
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            raise TimeoutError("quire mcp sent no reply in time")
    return stream.readline()


def initialize(version: str = "2025-06-18", request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def by_id(replies: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {reply.get("id"): reply for reply in replies}


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_every_handshake_revision_is_negotiated_with_instructions(
    tmp_path: Path, version: str
) -> None:
    replies, _ = exchange(
        tmp_path,
        [
            initialize(version),
            INITIALIZED,
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        ],
    )
    answers = by_id(replies)
    result = answers[1]["result"]
    assert result["protocolVersion"] == version
    assert result["instructions"] == INSTRUCTIONS
    assert result["serverInfo"] == {"name": "quire", "title": "Quire", "version": __version__}
    assert len(answers[2]["result"]["tools"]) == len(TOOLS)
    assert answers[3]["result"] == {}


def test_an_unknown_revision_gets_the_newest_handshake_revision(tmp_path: Path) -> None:
    replies, _ = exchange(tmp_path, [initialize("1999-01-01")])
    assert replies[0]["result"]["protocolVersion"] == HANDSHAKE_PROTOCOL_VERSIONS[-1]


def test_protocol_faults_are_json_rpc_errors_and_argument_faults_are_results(
    tmp_path: Path,
) -> None:
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    replies, _ = exchange(
        tmp_path,
        [
            initialize(),
            INITIALIZED,
            {**call, "id": 2, "params": {"name": "list_recent", "arguments": "limit=5"}},
            {**call, "id": 3, "params": {"name": "list_recent", "arguments": {"limit": "5"}}},
            {**call, "id": 4, "params": {"name": "list_recnt", "arguments": {}}},
            {"jsonrpc": "2.0", "id": 5, "method": "no/such/method"},
            "{not json",
        ],
    )
    answers = by_id(replies)
    assert answers[2]["result"]["isError"] is True
    assert "must be a JSON object" in answers[2]["result"]["content"][0]["text"]
    assert answers[3]["result"]["isError"] is True
    assert "`limit` must be an integer" in answers[3]["result"]["content"][0]["text"]
    assert answers[4]["error"]["code"] == -32602
    assert "Did you mean 'list_recent'?" in answers[4]["error"]["message"]
    assert answers[5]["error"]["code"] == -32601
    assert any(reply.get("error", {}).get("code") == -32700 for reply in replies)


def test_a_no_server_tool_works_over_stdio(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.md").write_text("# A\n", encoding="utf-8")
    replies, _ = exchange(
        tmp_path,
        [
            initialize(),
            INITIALIZED,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "export_text", "arguments": {"path": "a.md"}},
            },
        ],
    )
    result = by_id(replies)[2]["result"]
    assert result["structuredContent"]["text"] == "A"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_unknown_arguments_are_named_on_stderr_and_ignored(tmp_path: Path) -> None:
    replies, stderr = exchange(tmp_path, [initialize()], "--verison", b"--\xff", "extra")
    assert replies[0]["result"]["protocolVersion"] == "2025-06-18"
    assert "ignoring unknown argument '--verison'" in stderr
    assert "ignoring unknown argument '--\\\\xff'" in stderr or "\\xff" in stderr
    assert "ignoring unknown argument 'extra'" in stderr


def test_run_from_a_terminal_it_says_it_waits_for_json_rpc(tmp_path: Path) -> None:
    main, other = pty.openpty()
    process = subprocess.Popen(
        COMMAND,
        stdin=other,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(tmp_path),
        cwd=tmp_path,
    )
    os.close(other)
    try:
        assert process.stderr is not None
        line = process.stderr.readline().decode()
        assert line.strip() == TERMINAL_HINT
    finally:
        os.write(main, b"\x04")
        os.close(main)
        process.kill()
        process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_version_and_help_exit_at_once() -> None:
    runner = CliRunner()
    version = runner.invoke(cli, ["mcp", "--version"])
    assert version.exit_code == 0
    assert version.output == f"quire mcp {__version__}\n"
    shown = runner.invoke(cli, ["mcp", "--help"])
    assert shown.exit_code == 0
    for flag in ("--export-tool-schema", "--allow DIR", "--no-roots", "--server URL|@alias"):
        assert flag in shown.output


def test_export_tool_schema_prints_the_sorted_catalog() -> None:
    result = CliRunner().invoke(cli, ["mcp", "--export-tool-schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == schema_export()


@pytest.mark.parametrize(
    ("server", "fragment"),
    [("@work", "quire login"), ("ftp://x", "http://"), ("http://127.0.0.1:1", "QUIRE_TOKEN")],
)
def test_a_server_that_cannot_be_used_is_a_usage_error(
    tmp_path: Path, server: str, fragment: str
) -> None:
    env = {"QUIRE_HOME": str(tmp_path), "QUIRE_TOKEN": ""}
    result = CliRunner().invoke(cli, ["mcp", "--server", server], env=env)
    assert result.exit_code == 2
    assert fragment in result.output


def test_allow_folders_are_expanded_and_a_bad_one_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "home" / "notes").mkdir(parents=True)
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    services = local_services(
        environ={"QUIRE_HOME": str(tmp_path / "state")},
        cwd=tmp_path / "ws",
        home=tmp_path / "home",
        allow=("~/notes", "sub", " ", "a\0b"),
        use_roots=False,
        server=None,
    )
    assert services.gate.allow == [tmp_path / "home" / "notes", tmp_path / "ws" / "sub"]
    errors = capsys.readouterr().err
    assert "ignoring --allow ' '" in errors
    assert "NUL" in errors


def test_a_server_url_takes_the_local_token_when_it_names_that_server(tmp_path: Path) -> None:
    info = ServerInfo(url="http://127.0.0.1:4747", token="k" * 64, pid=os.getpid())
    (tmp_path / "server.json").write_text(dumps(info), encoding="utf-8")
    fixed = fixed_server("http://127.0.0.1:4747/", {}, tmp_path)
    assert fixed == ServerInfo(url="http://127.0.0.1:4747", token="k" * 64, pid=0)
    from_env = fixed_server("https://quire.example", {"QUIRE_TOKEN": " t "}, tmp_path)
    assert from_env.token == "t"


@pytest.mark.parametrize(("setting", "enabled"), [(None, True), ("true", True), ("false", False)])
def test_the_chat_tools_follow_the_chat_setting_of_quire_toml(
    tmp_path: Path, setting: str | None, enabled: bool
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    if setting is not None:
        (state / "quire.toml").write_text(f"[chat]\nenabled = {setting}\n", encoding="utf-8")
    services = local_services(
        environ={"QUIRE_HOME": str(state)},
        cwd=tmp_path,
        home=tmp_path,
        allow=(),
        use_roots=False,
        server=None,
    )
    assert services.chat_enabled is enabled


def test_only_allowed_refuses_the_working_folder_until_a_folder_is_allowed(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "note.md").write_text("# Note\n", encoding="utf-8")
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "export_text", "arguments": {"path": str(workspace / "note.md")}},
    }
    usual, _ = exchange(tmp_path, [initialize(), INITIALIZED, call], "--no-roots")
    assert by_id(usual)[2]["result"].get("isError") is not True
    refused, _ = exchange(
        tmp_path, [initialize(), INITIALIZED, call], "--no-roots", "--only-allowed"
    )
    result = by_id(refused)[2]["result"]
    assert result["isError"] is True
    assert "no folder is allowed yet" in result["content"][0]["text"]
    allowed, _ = exchange(
        tmp_path,
        [initialize(), INITIALIZED, call],
        "--only-allowed",
        "--allow",
        str(workspace),
    )
    assert by_id(allowed)[2]["result"].get("isError") is not True


def test_answers_written_to_a_file_instead_of_a_pipe_all_arrive(tmp_path: Path) -> None:
    """stdout redirected to a file: the answers go through blocking writes, not the loop's."""
    answers = tmp_path / "answers.jsonl"
    with answers.open("wb") as out:
        process = subprocess.Popen(
            COMMAND, stdin=subprocess.PIPE, stdout=out, env=environment(tmp_path), cwd=tmp_path
        )
        assert process.stdin is not None
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        lines = [initialize(), INITIALIZED, ping]
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        process.stdin.flush()
        deadline = time.monotonic() + 60
        while answers.read_bytes().count(b"\n") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.communicate(timeout=60)
    replies = by_id([json.loads(line) for line in answers.read_bytes().splitlines()])
    assert replies[1]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[2]["result"] == {}
