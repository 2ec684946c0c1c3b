"""The transcript fallback: the last chat wait or leave an agent ran, in Claude Code and Codex
transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.cli.chat import leave_command, wait_command
from quire.client.transcript import (
    VALUE_OPTIONS,
    ChatCommand,
    chat_commands,
    last_chat_command,
)


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


TEAM = "Chats/team.md"
WAIT = "quire chat wait Chats/team.md --as qa-1"
REMOTE_WAIT = "quire chat wait --as qa-1 --timeout 600 @team/notes/Chats/room.md --mentions"
LEAVE = "quire chat leave Chats/team.md --as qa-1"

TRANSCRIPTS: list[tuple[str, list[Any], ChatCommand | None]] = [
    ("an empty transcript", [], None),
    ("no chat command", [claude_call("ls -la"), claude_result("x")], None),
    (
        "a Claude Code wait",
        [claude_call(WAIT), claude_result("[#1] ann ...")],
        ChatCommand("wait", WAIT, TEAM),
    ),
    (
        "a wait then a leave",
        [claude_call(WAIT), claude_call(LEAVE)],
        ChatCommand("leave", LEAVE, TEAM),
    ),
    (
        "a leave then a new wait",
        [claude_call(LEAVE), claude_call(WAIT)],
        ChatCommand("wait", WAIT, TEAM),
    ),
    (
        "posts and reads do not count",
        [
            claude_call(WAIT),
            claude_call("quire chat post Chats/team.md 'done' --as qa-1"),
            claude_call("quire chat read Chats/team.md --as qa-1"),
        ],
        ChatCommand("wait", WAIT, TEAM),
    ),
    (
        "a gone notice in the wait's output is a leave",
        [
            claude_call(WAIT),
            claude_result("This chat is gone: /w/Chats/team.md was deleted ...\n" + LEAVE),
        ],
        ChatCommand("leave", "", TEAM),
    ),
    (
        "a wait inside a longer shell line",
        [claude_call("cd /w && " + WAIT + " --timeout 120 2>&1 | tail -n 50")],
        ChatCommand("wait", WAIT + " --timeout 120", TEAM),
    ),
    (
        "a Codex shell call (bash -lc)",
        [codex_call(["bash", "-lc", WAIT + " --mentions"])],
        ChatCommand("wait", WAIT + " --mentions", TEAM),
    ),
    (
        "a Codex argv call",
        [codex_call(["quire", "chat", "wait", "Chats/a b.md", "--as", "x"])],
        ChatCommand("wait", "quire chat wait 'Chats/a b.md' --as x", "Chats/a b.md"),
    ),
    (
        "a Codex exec_command",
        [codex_exec(WAIT)],
        ChatCommand("wait", WAIT, TEAM),
    ),
    (
        "the module form",
        [claude_call("/venv/bin/python -m quire.cli.main chat wait c.md --as a")],
        ChatCommand("wait", "/venv/bin/python -m quire.cli.main chat wait c.md --as a", "c.md"),
    ),
    (
        "an echo of the words is not a command",
        [claude_call(WAIT), claude_call("echo 'quire chat leave Chats/team.md'")],
        ChatCommand("wait", WAIT, TEAM),
    ),
    (
        "two commands on two lines",
        [claude_call(WAIT + "\n" + LEAVE)],
        ChatCommand("leave", LEAVE, TEAM),
    ),
    (
        "a wait on a signed-in server",
        [claude_call(REMOTE_WAIT), claude_result("[#1] ann ...")],
        ChatCommand("wait", REMOTE_WAIT, "@team/notes/Chats/room.md"),
    ),
    (
        "a gone notice after a remote wait leaves that server's chat",
        [claude_call(WAIT), claude_call(REMOTE_WAIT), claude_result("This chat is gone: ...")],
        ChatCommand("leave", "", "@team/notes/Chats/room.md"),
    ),
    (
        "a local leave after a remote wait",
        [claude_call(REMOTE_WAIT), claude_call(LEAVE)],
        ChatCommand("leave", LEAVE, TEAM),
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
    assert found is None or found == ChatCommand("wait", WAIT, TEAM)


def test_a_missing_or_unreadable_transcript_finds_nothing(tmp_path: Path) -> None:
    assert last_chat_command(tmp_path / "missing.jsonl") is None
    assert last_chat_command(tmp_path) is None


def test_only_the_tail_of_a_long_transcript_is_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    early = json.dumps(claude_call(WAIT)) + "\n"
    filler = json.dumps(claude_result("x" * 1000)) + "\n"
    path.write_text(early + filler * 10, encoding="utf-8")
    assert last_chat_command(path, tail_bytes=len(filler) * 5) is None
    assert last_chat_command(path) == ChatCommand("wait", WAIT, TEAM)


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


@pytest.mark.parametrize(
    ("script", "chat"),
    [
        ("quire chat wait", None),
        ("quire chat wait --as bot", None),
        ("quire chat wait --json --mentions", None),
        ("quire chat wait a.md --as bot", "a.md"),
        ("quire chat wait --as bot a.md", "a.md"),
        ("quire chat wait --as=bot a.md", "a.md"),
        ("quire chat wait --timeout 60 --after 3 --session s-1 @t/w/c.md", "@t/w/c.md"),
        ("quire chat wait --mentions @t/w/c.md", "@t/w/c.md"),
        ("quire chat wait --json -- --odd.md", "--odd.md"),
        ("quire chat wait --as bot --", None),
        ("quire chat leave --session s-1 '@t/w/a b.md' --as bot", "@t/w/a b.md"),
        ("quire chat wait --as @t/w/c.md local.md", "local.md"),
        ("quire chat wait - --as bot", "-"),
        ("python -m quire.cli.main chat leave @t/w/c.md", "@t/w/c.md"),
        ("quire chat wait a.md | quire chat wait @t/w/c.md", "@t/w/c.md"),
        ("quire chat wait a.md 2>&1 @t/w/c.md", "a.md"),
    ],
)
def test_the_chat_argument_is_told_from_options_and_their_values(
    script: str, chat: str | None
) -> None:
    assert chat_commands(script)[-1].chat == chat


def test_the_options_read_as_taking_a_value_are_those_wait_and_leave_take() -> None:
    # A new valued option on `quire chat wait` would otherwise be read as the chat.
    valued = {
        name
        for command in (wait_command, leave_command)
        for param in command.params
        if isinstance(param, click.Option) and not param.is_flag
        for name in param.opts
    }
    assert valued == VALUE_OPTIONS


@given(st.text(max_size=200))
def test_any_shell_text_is_read_without_failing(script: str) -> None:
    for found in chat_commands(script):
        assert found.kind in ("wait", "leave")
