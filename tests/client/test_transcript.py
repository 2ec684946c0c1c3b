"""The transcript fallback: the last chat wait or leave an agent ran, in Claude Code and Codex
transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.client.transcript import ChatCommand, chat_commands, last_chat_command


def claude_call(command: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {
            "content": [
                {"type": "text", "text": "Waiting."},
                {"type": "tool_use", "name": "Bash", "input": {"command": command}},
            ]
        },
    }


def claude_result(text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "content": text}]},
    }


def codex_call(argv: list[str]) -> dict[str, Any]:
    return {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": argv, "workdir": "/w"}),
        },
    }


def codex_exec(cmd: str) -> dict[str, Any]:
    return {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "exec_command",
            "arguments": json.dumps({"cmd": cmd}),
        },
    }


WAIT = "quire chat wait Chats/team.md --as qa-1"
LEAVE = "quire chat leave Chats/team.md --as qa-1"

TRANSCRIPTS: list[tuple[str, list[Any], ChatCommand | None]] = [
    ("an empty transcript", [], None),
    ("no chat command", [claude_call("ls -la"), claude_result("x")], None),
    (
        "a Claude Code wait",
        [claude_call(WAIT), claude_result("[#1] ann ...")],
        ChatCommand("wait", WAIT),
    ),
    (
        "a wait then a leave",
        [claude_call(WAIT), claude_call(LEAVE)],
        ChatCommand("leave", LEAVE),
    ),
    (
        "a leave then a new wait",
        [claude_call(LEAVE), claude_call(WAIT)],
        ChatCommand("wait", WAIT),
    ),
    (
        "posts and reads do not count",
        [
            claude_call(WAIT),
            claude_call("quire chat post Chats/team.md 'done' --as qa-1"),
            claude_call("quire chat read Chats/team.md --as qa-1"),
        ],
        ChatCommand("wait", WAIT),
    ),
    (
        "a gone notice in the wait's output is a leave",
        [
            claude_call(WAIT),
            claude_result("This chat is gone: /w/Chats/team.md was deleted ...\n" + LEAVE),
        ],
        ChatCommand("leave", ""),
    ),
    (
        "a wait inside a longer shell line",
        [claude_call("cd /w && " + WAIT + " --timeout 120 2>&1 | tail -n 50")],
        ChatCommand("wait", WAIT + " --timeout 120"),
    ),
    (
        "a Codex shell call (bash -lc)",
        [codex_call(["bash", "-lc", WAIT + " --mentions"])],
        ChatCommand("wait", WAIT + " --mentions"),
    ),
    (
        "a Codex argv call",
        [codex_call(["quire", "chat", "wait", "Chats/a b.md", "--as", "x"])],
        ChatCommand("wait", "quire chat wait 'Chats/a b.md' --as x"),
    ),
    (
        "a Codex exec_command",
        [codex_exec(WAIT)],
        ChatCommand("wait", WAIT),
    ),
    (
        "the module form",
        [claude_call("/venv/bin/python -m quire.cli.main chat wait c.md --as a")],
        ChatCommand("wait", "/venv/bin/python -m quire.cli.main chat wait c.md --as a"),
    ),
    (
        "an echo of the words is not a command",
        [claude_call(WAIT), claude_call("echo 'quire chat leave Chats/team.md'")],
        ChatCommand("wait", WAIT),
    ),
    (
        "two commands on two lines",
        [claude_call(WAIT + "\n" + LEAVE)],
        ChatCommand("leave", LEAVE),
    ),
]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [case[1:] for case in TRANSCRIPTS],
    ids=[case[0] for case in TRANSCRIPTS],
)
def test_the_last_chat_wait_or_leave_of_a_transcript_is_found(
    tmp_path: Path, lines: list[Any], expected: ChatCommand | None
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert last_chat_command(path) == expected


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe not json at all\n",
        b"{truncated\n" + json.dumps(claude_call(WAIT)).encode() + b'\n{"half',
        b'[1, 2, 3]\nnull\n"quire chat wait x"\n',
        b"\0" * 1000,
    ],
)
def test_broken_lines_are_skipped(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(content)
    found = last_chat_command(path)
    assert found is None or found == ChatCommand("wait", WAIT)


def test_a_missing_or_unreadable_transcript_finds_nothing(tmp_path: Path) -> None:
    assert last_chat_command(tmp_path / "missing.jsonl") is None
    assert last_chat_command(tmp_path) is None


def test_only_the_tail_of_a_long_transcript_is_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    early = json.dumps(claude_call(WAIT)) + "\n"
    filler = json.dumps(claude_result("x" * 1000)) + "\n"
    path.write_text(early + filler * 10, encoding="utf-8")
    assert last_chat_command(path, tail_bytes=len(filler) * 5) is None
    assert last_chat_command(path) == ChatCommand("wait", WAIT)


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("quire chat wait", ["quire chat wait"]),
        ("quire chat waiting x", []),
        ("quire chats wait x", []),
        ("quire wait chat x", []),
        ("'unbalanced quire chat wait", []),
        (
            "quire chat wait a.md; quire chat wait b.md",
            ["quire chat wait a.md", "quire chat wait b.md"],
        ),
        ("(quire chat wait a.md)", ["quire chat wait a.md"]),
        ("quire chat wait 'a;b.md' --as \"x y\"", ["quire chat wait 'a;b.md' --as 'x y'"]),
        ("~/bin/quire chat wait a.md", ["~/bin/quire chat wait a.md"]),
        ("python -m quire.cli.main chat leave a.md", ["python -m quire.cli.main chat leave a.md"]),
        ("-m quire.cli.main chat wait a.md", []),
    ],
)
def test_chat_commands_are_cut_out_of_a_shell_line(script: str, expected: list[str]) -> None:
    assert [found.command for found in chat_commands(script)] == expected


@given(st.text(max_size=200))
def test_any_shell_text_is_read_without_failing(script: str) -> None:
    for found in chat_commands(script):
        assert found.kind in ("wait", "leave")
