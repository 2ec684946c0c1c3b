"""The keepalive hook's fallback: the last ``quire chat wait``/``leave`` an agent ran (and
the chat it named, so the hook knows which server to ask), read from the session transcript
(JSON Lines) its harness names.

Knows the shapes Claude Code and Codex write (a shell command under ``command`` or ``cmd``,
possibly inside a JSON ``arguments`` string, as a string or an argv list) and nothing else;
it reads only the transcript's tail and never talks to the server.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

TAIL_BYTES = 64 * 1024 * 1024
"""The most of a transcript read: its last 64 MiB hold the agent's latest commands."""

GONE_MARKER = "This chat is gone"
"""How ``quire chat wait`` starts its notice for a chat that is gone: read as a leave."""

_COMMAND_KEYS = frozenset({"command", "cmd"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_OPERATOR_CHARS = "();<>|&\n"

VALUE_OPTIONS = frozenset({"--as", "--timeout", "--after", "--session"})
"""The options of ``quire chat wait`` and ``leave`` that take a value (the next word), so
that value is not read as the chat."""

ChatCommandKind = Literal["wait", "leave"]


@dataclass(frozen=True)
class ChatCommand:
    """A ``quire chat wait`` or ``quire chat leave`` the agent ran, re-quoted to run again."""

    kind: ChatCommandKind
    command: str
    chat: str | None = None
    """Its CHAT argument as typed (a path, or ``@alias/workspace/path.md``); None when it
    names none."""


def last_chat_command(path: Path, *, tail_bytes: int = TAIL_BYTES) -> ChatCommand | None:
    """The last chat wait or leave in the transcript at ``path`` (None when there is none or
    the file cannot be read); a gone notice in a tool's output counts as a leave of the chat
    the wait before it named."""
    try:
        data = _tail(path, tail_bytes)
    except OSError:
        return None
    found: ChatCommand | None = None
    for line in data.splitlines():
        if b"chat" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        for event in _events(record):
            if event.chat is None and not event.command and found is not None:
                event = replace(event, chat=found.chat)
            found = event
    return found


def chat_commands(script: str) -> list[ChatCommand]:
    """The chat waits and leaves in one shell command line, in order."""
    try:
        words = _words(script)
    except ValueError:
        return []
    found = []
    for start in range(len(words)):
        kind = _chat_verb(words, start)
        if kind is None:
            continue
        program = start - 1 if words[start] == "-m" else start
        arguments = end = start + (4 if words[start] == "-m" else 3)
        while end < len(words) and not _is_operator(words[end]):
            end += 1
        if end < len(words) and words[end][0] in "<>" and words[end - 1].isdigit():
            end -= 1  # "2>&1": the descriptor belongs to the redirection
        found.append(
            ChatCommand(kind, _join(words[program:end]), _chat_argument(words[arguments:end]))
        )
    return found


def _chat_argument(arguments: list[str]) -> str | None:
    """The CHAT among a wait's or leave's arguments: the first word that is neither an
    option nor an option's value (everything after ``--`` is an argument)."""
    taking_value = False
    for index, word in enumerate(arguments):
        if taking_value:
            taking_value = False
        elif word == "--":
            return arguments[index + 1] if index + 1 < len(arguments) else None
        elif word.startswith("-") and word != "-":
            taking_value = word in VALUE_OPTIONS
        else:
            return word
    return None


def _tail(path: Path, limit: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - limit))
        return handle.read(limit)


def _events(value: Any) -> Iterator[ChatCommand]:
    """The chat commands and gone notices in one decoded JSON value, in document order."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _COMMAND_KEYS:
                script = _script(item)
                if script is not None:
                    yield from chat_commands(script)
                    continue
            if key == "arguments" and isinstance(item, str):
                try:
                    item = json.loads(item)
                except ValueError:
                    continue
            yield from _events(item)
    elif isinstance(value, list):
        for item in value:
            yield from _events(item)
    elif isinstance(value, str) and GONE_MARKER in value:
        yield ChatCommand("leave", "")


def _script(value: Any) -> str | None:
    """The shell text of a command value: a string, or an argv list (``bash -lc TEXT``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(word, str) for word in value):
        if len(value) == 3 and Path(value[0]).name in _SHELLS and value[1].startswith("-"):
            return str(value[2])
        return shlex.join(value)
    return None


def _words(script: str) -> list[str]:
    lexer = shlex.shlex(script, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def _chat_verb(words: list[str], start: int) -> ChatCommandKind | None:
    word = words[start]
    if word == "-m":
        if start == 0 or start + 3 >= len(words) or words[start + 1] != "quire.cli.main":
            return None
        offset = 2
    elif Path(word).name == "quire":
        offset = 1
    else:
        return None
    if start + offset + 1 >= len(words) or words[start + offset] != "chat":
        return None
    verb = words[start + offset + 1]
    if verb == "wait":
        return "wait"
    if verb == "leave":
        return "leave"
    return None


def _join(words: list[str]) -> str:
    """The words quoted for a shell, keeping a leading ``~/`` unquoted so it still expands."""
    quoted = []
    for word in words:
        rest = word[2:]
        keep = word.startswith("~/") and rest and shlex.quote(rest) == rest
        quoted.append(word if keep else shlex.quote(word))
    return " ".join(quoted)


def _is_operator(word: str) -> bool:
    return bool(word) and all(char in _OPERATOR_CHARS for char in word)
