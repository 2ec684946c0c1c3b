"""The person's decision on a request, and the exact JSON a PermissionRequest hook prints for it.

Pure. Claude Code and Codex read the same shape; only Claude Code is offered answers to its
questions and "allow for this session" (the Codex hooks were not tested with them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from quire.core.approvals.hook_input import PERMISSION_EVENT
from quire.core.errors import InvalidArgument

SESSION_DESTINATION: Final = "session"
MAX_REASON_CHARS: Final = 2000


@dataclass(frozen=True)
class Allow:
    """Allow the call; ``updated_input`` replaces its whole input (a question's answers),
    ``updated_permissions`` are the session rules the agent offered, echoed."""

    updated_input: dict[str, Any] | None = None
    updated_permissions: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Deny:
    """Deny the call; the agent reads ``message`` word for word."""

    message: str


Decision = Allow | Deny


def decision_json(decision: Decision) -> str:
    """The one line the hook prints for ``decision`` (compact JSON, no newline)."""
    body: dict[str, Any]
    match decision:
        case Allow(updated_input=updated, updated_permissions=rules):
            body = {"behavior": "allow"}
            if updated is not None:
                body["updatedInput"] = updated
            if rules:
                body["updatedPermissions"] = list(rules)
        case Deny(message=message):
            body = {"behavior": "deny", "message": message}
    output = {"hookSpecificOutput": {"hookEventName": PERMISSION_EVENT, "decision": body}}
    return json.dumps(output, separators=(",", ":"), ensure_ascii=False)


def session_rules(suggestions: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The allow rules the agent offered, each echoed with the session as its destination;
    nothing else is ever added (no rule of Quire's own, no settings file)."""
    rules: list[dict[str, Any]] = []
    for suggestion in suggestions:
        if suggestion.get("type") != "addRules" or suggestion.get("behavior") != "allow":
            continue
        offered = suggestion.get("rules")
        if not isinstance(offered, list) or not offered:
            continue
        rules.append({**suggestion, "destination": SESSION_DESTINATION})
    return tuple(rules)


def deny_reason(text: str | None) -> str:
    """The message a denial carries: the person's reason, or a neutral one."""
    if text is None or not text.strip():
        return "The person denied this in Quire."
    if len(text) > MAX_REASON_CHARS:
        raise InvalidArgument(
            f"The reason is {len(text):,} characters; at most {MAX_REASON_CHARS:,} are sent.",
            argument="message",
        )
    return text


def answered_input(
    tool_input: Mapping[str, Any], picks: Mapping[str, Sequence[str]], other: Mapping[str, str]
) -> dict[str, Any]:
    """AskUserQuestion's input with ``answers``: per question text, the picked labels in the
    order the options list them, comma separated, then the typed ``other`` text last.

    InvalidArgument when a question is not answered, a label is not one of its options, or a
    single-choice question gets more than one answer.
    """
    questions = tool_input.get("questions")
    if not isinstance(questions, list) or not questions:
        raise InvalidArgument("This request carries no questions to answer.", argument="answers")
    known: set[str] = set()
    answers: dict[str, str] = {}
    for question in questions:
        text, labels, multiple = _question(question)
        known.add(text)
        chosen = list(picks.get(text, ()))
        unknown = [label for label in chosen if label not in labels]
        if unknown:
            raise InvalidArgument(
                f"{unknown[0]!r} is not an option of the question {text!r}.", argument="answers"
            )
        typed = other.get(text, "").strip()
        parts = [label for label in labels if label in chosen] + ([typed] if typed else [])
        if not parts:
            raise InvalidArgument(f"The question {text!r} has no answer.", argument="answers")
        if not multiple and len(parts) > 1:
            raise InvalidArgument(
                f"The question {text!r} takes one answer, not {len(parts)}.", argument="answers"
            )
        answers[text] = ", ".join(parts)
    stray = sorted((set(picks) | set(other)) - known)
    if stray:
        raise InvalidArgument(f"{stray[0]!r} is not one of the questions.", argument="answers")
    return {**tool_input, "answers": answers}


def _question(question: object) -> tuple[str, list[str], bool]:
    if not isinstance(question, dict) or not isinstance(question.get("question"), str):
        raise InvalidArgument("A question of this request is malformed.", argument="answers")
    options = question.get("options")
    labels: list[str] = []
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict) and isinstance(option.get("label"), str):
            labels.append(option["label"])
    return question["question"], labels, question.get("multiSelect") is True
