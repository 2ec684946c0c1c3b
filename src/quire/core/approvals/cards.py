"""What a card shows for a request: the command exactly as it runs, a file write or edit, the
agent's questions, or any other tool's input as JSON. Pure; every text a person reads to
decide goes through ``shown_exactly``.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Final, Literal

from quire.core.approvals.escapes import shown_exactly
from quire.core.approvals.hook_input import QUESTION_TOOL

PREVIEW_LINES: Final = 40
CardKind = Literal["command", "write", "edit", "question", "other"]


@dataclass(frozen=True)
class Option:
    label: str
    description: str


@dataclass(frozen=True)
class Question:
    question: str
    header: str
    options: tuple[Option, ...]
    multiple: bool


@dataclass(frozen=True)
class Change:
    """One replacement of an edit: the text replaced and the new text."""

    old: str
    new: str


@dataclass(frozen=True)
class Card:
    """A request as the person sees it. ``text`` is the command, the written file's first
    lines or the JSON; ``rest`` the written file's remaining lines (one tap away)."""

    kind: CardKind
    tool: str
    text: str
    description: str | None = None
    """The agent's own words about the call, labelled as the agent's on the card."""
    file: str | None = None
    rest: str | None = None
    changes: tuple[Change, ...] = ()
    questions: tuple[Question, ...] = ()


def card_of(tool: str, tool_input: dict[str, Any], *, cwd: str, home: str | None) -> Card:
    """The card of one tool call, with paths shown relative to the agent's folder ``cwd``
    (or with ``~`` for ``home``), and in full when they hold ``.`` or ``..``."""
    shown_tool = shown_exactly(tool)
    command = tool_input.get("command")
    if tool in ("Bash", "shell", "exec_command") and isinstance(command, str | list):
        description = tool_input.get("description")
        return Card(
            "command",
            shown_tool,
            shown_exactly(_command_text(command)),
            description=shown_exactly(description) if isinstance(description, str) else None,
        )
    path = tool_input.get("file_path")
    if tool == "Write" and isinstance(path, str) and isinstance(tool_input.get("content"), str):
        lines = tool_input["content"].splitlines(keepends=True)
        head, tail = "".join(lines[:PREVIEW_LINES]), "".join(lines[PREVIEW_LINES:])
        file = shown_path(path, cwd=cwd, home=home)
        return Card("write", shown_tool, shown_exactly(head), file=file, rest=shown_exactly(tail))
    if tool in ("Edit", "MultiEdit") and isinstance(path, str):
        changes = _changes(tool_input)
        if changes:
            file = shown_path(path, cwd=cwd, home=home)
            return Card("edit", shown_tool, "", file=file, changes=changes)
    if tool == QUESTION_TOOL:
        questions = _questions(tool_input.get("questions"))
        if questions:
            return Card("question", shown_tool, "", questions=questions)
    text = json.dumps(tool_input, indent=2, ensure_ascii=False, sort_keys=True)
    return Card("other", shown_tool, shown_exactly(text))


def _command_text(command: str | list[Any]) -> str:
    if isinstance(command, str):
        return command
    return shlex.join(str(part) for part in command)


def shown_path(path: str, *, cwd: str, home: str | None) -> str:
    """``path`` for a card: relative to ``cwd`` inside it, ``~/…`` inside ``home``, else in
    full; always in full when a part of it is ``.`` or ``..`` (where it points is not plain)."""
    pure = PurePosixPath(path)
    if any(part in (".", "..") for part in path.split("/")) or not pure.is_absolute():
        return shown_exactly(path)
    if pure.is_relative_to(cwd) and pure != PurePosixPath(cwd):
        return shown_exactly(str(pure.relative_to(cwd)))
    if home and pure.is_relative_to(home) and pure != PurePosixPath(home):
        return shown_exactly("~/" + str(pure.relative_to(home)))
    return shown_exactly(path)


def _changes(tool_input: dict[str, Any]) -> tuple[Change, ...]:
    edits = tool_input.get("edits")
    items = edits if isinstance(edits, list) else [tool_input]
    changes: list[Change] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        old, new = item.get("old_string"), item.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            changes.append(Change(shown_exactly(old), shown_exactly(new)))
    return tuple(changes)


def _questions(raw: object) -> tuple[Question, ...]:
    if not isinstance(raw, list):
        return ()
    questions: list[Question] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            return ()
        options = item.get("options")
        shown = tuple(
            Option(
                option["label"],
                option["description"] if isinstance(option.get("description"), str) else "",
            )
            for option in (options if isinstance(options, list) else [])
            if isinstance(option, dict) and isinstance(option.get("label"), str)
        )
        header = item.get("header")
        questions.append(
            Question(
                item["question"],
                header if isinstance(header, str) else "",
                shown,
                item.get("multiSelect") is True,
            )
        )
    return tuple(questions)
