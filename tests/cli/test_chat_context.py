"""Who a chat command speaks as, which session it records, and the command line it hands back."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.cli.chat_context import Invocation, typed_argv


def invocation(environ: dict[str, str] | None = None, typed: tuple[str, ...] = ()) -> Invocation:
    return Invocation(cwd=Path("/w"), home=Path("/h"), environ=environ or {}, typed=typed)


@pytest.mark.parametrize(
    ("environ", "given", "expected"),
    [
        ({}, "qa-1", "qa-1"),
        ({"QUIRE_AS": "env-name"}, None, "env-name"),
        ({"QUIRE_AS": "  ", "QUIRE_USER": "user"}, None, "user"),
        ({"QUIRE_AS": "a", "QUIRE_USER": "b"}, "given", "given"),
    ],
)
def test_the_name_comes_from_as_then_the_environment(
    environ: dict[str, str], given: str | None, expected: str
) -> None:
    assert invocation(environ).reader(given) == expected


def test_without_any_name_the_login_name_is_used() -> None:
    assert invocation().reader(None)


@pytest.mark.parametrize(
    ("environ", "given", "expected"),
    [
        ({}, None, None),
        ({"CLAUDE_SESSION_ID": "c1", "CODEX_THREAD_ID": "x1"}, None, "c1"),
        ({"CLAUDE_CODE_SESSION_ID": "cc", "CLAUDE_SESSION_ID": "c1"}, None, "cc"),
        ({"CODEX_THREAD_ID": "019d-1"}, None, "019d-1"),
        ({"CODEX_SESSION_ID": "cs", "QUIRE_SESSION": "q"}, None, "cs"),
        ({"QUIRE_SESSION": "q"}, None, "q"),
        ({"QUIRE_SESSION": "q"}, "flag", "flag"),
        ({"CLAUDE_SESSION_ID": "has space", "QUIRE_SESSION": "q"}, None, "q"),
        ({"CLAUDE_SESSION_ID": "é", "QUIRE_SESSION": "q"}, None, "q"),
        ({"CLAUDE_SESSION_ID": "x" * 201}, None, None),
        ({"CLAUDE_SESSION_ID": "  padded  "}, None, "padded"),
    ],
)
def test_the_session_comes_from_the_flag_then_the_harness_variables(
    environ: dict[str, str], given: str | None, expected: str | None
) -> None:
    assert invocation(environ).session(given) == expected


def test_the_command_is_the_typed_line_quoted_for_a_shell() -> None:
    typed = ("quire", "chat", "wait", "Chats/a b.md", "--as", "it's me")
    found = invocation(typed=typed)
    assert found.command == "quire chat wait 'Chats/a b.md' --as 'it'\"'\"'s me'"
    assert found.program == ("quire",)


def test_a_command_too_long_to_record_is_not_sent() -> None:
    assert invocation(typed=("quire", "chat", "post", "c.md", "x" * 9000)).command is None


@pytest.mark.parametrize(
    ("typed", "session", "expected"),
    [
        (("quire", "chat", "wait", "c.md", "--as", "a"), "s", "quire chat leave c.md --as a"),
        (
            ("quire", "chat", "wait", "c.md", "--session", "s"),
            "s",
            "quire chat leave c.md --as a --session s",
        ),
        (
            ("/py", "-m", "quire.cli.main", "chat", "wait", "my chat.md"),
            None,
            "/py -m quire.cli.main chat leave 'my chat.md' --as a",
        ),
    ],
)
def test_the_leave_command_starts_like_the_wait_did(
    typed: tuple[str, ...], session: str | None, expected: str
) -> None:
    chat = typed[typed.index("wait") + 1]
    assert invocation(typed=typed).leave_command(chat, "a", session) == expected


def test_a_module_run_keeps_the_interpreter_command_line() -> None:
    argv = ["/repo/src/quire/cli/main.py", "chat", "wait", "c.md"]
    orig = ["/venv/bin/python", "-m", "quire.cli.main", "chat", "wait", "c.md"]
    assert typed_argv(argv, orig, lambda name: None) == tuple(orig)


def test_the_script_is_named_as_typed_when_path_finds_it(tmp_path: Path) -> None:
    script = tmp_path / "quire"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    argv = [str(script), "chat", "wait", "c.md"]
    orig = ["/venv/bin/python", str(script), "chat", "wait", "c.md"]
    assert typed_argv(argv, orig, lambda name: str(script)) == ("quire", "chat", "wait", "c.md")
    other = tmp_path / "other"
    assert typed_argv(argv, orig, lambda name: str(other)) == (str(script), "chat", "wait", "c.md")
    assert typed_argv(argv, orig, lambda name: None) == (str(script), "chat", "wait", "c.md")
