"""The machine policy (``~/.quire/approvals.conf``): which requests leave the machine, for which
server, and how long the hook waits.

The file is KEY=value data, one setting a line, ``#`` comments; it is never run (no expansion,
no quoting rules beyond one pair of matching quotes around a value). Every bad line is named.
Pure: text in, a Policy and its problems out; ``route`` decides one request.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final, Literal

from quire.core.approvals.hook_input import QUESTION_TOOL, PermissionAsk

POLICY_FILE: Final = "approvals.conf"
MAX_WAIT_S: Final = (10, 3600, 540)
"""The hook's longest wait for a decision: least, most and default, in seconds."""
MAX_POLICY_BYTES: Final = 64 * 1024
KEYS: Final = ("SERVER", "MACHINE_LABEL", "TOOLS", "NEVER_REMOTE", "MAX_WAIT", "QUESTIONS")

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
_ALIAS = re.compile(r"@[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
_TOOL = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}|\*")
_YES: Final = frozenset({"yes", "true", "on", "1"})
_NO: Final = frozenset({"no", "false", "off", "0"})


@dataclass(frozen=True)
class Policy:
    """What the policy file says, every value checked."""

    server: str = "local"
    """``local`` (the server in ``$QUIRE_HOME/server.json``) or ``@alias`` (``quire login``)."""
    machine_label: str = ""
    """The name cards show for this machine; empty: the caller's host name."""
    tools: frozenset[str] = frozenset({"Bash"})
    """The tools whose requests are sent (``*``: every tool); questions follow QUESTIONS."""
    never_remote: tuple[str, ...] = ()
    """Substrings of a request that keep it on the machine, compared case-insensitively."""
    max_wait_s: int = MAX_WAIT_S[2]
    questions: bool = False
    """Whether the agent's questions (AskUserQuestion) are sent."""


@dataclass(frozen=True)
class ParsedPolicy:
    """A policy file read: the policy, and one sentence per bad line (none: usable)."""

    policy: Policy
    problems: tuple[str, ...] = field(default=())


def parse_policy(text: str) -> ParsedPolicy:
    """The policy ``text`` holds. A bad line is named in ``problems`` and its setting keeps
    its default; a caller must not send anything while there is a problem."""
    values: dict[str, object] = {}
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, equals, raw = stripped.partition("=")
        key = key.strip()
        if not equals:
            problems.append(f"line {number}: {_clip(stripped)!r} is not KEY=value")
            continue
        if key not in KEYS:
            problems.append(
                f"line {number}: unknown key {_clip(key)!r} (the keys are {', '.join(KEYS)})"
            )
            continue
        if key in seen:
            problems.append(f"line {number}: {key} is set again (first on line {seen[key]})")
            continue
        seen[key] = number
        value = _unquoted(raw.strip())
        problem = _set(values, key, value)
        if problem is not None:
            problems.append(f"line {number}: {key} {problem}")
    return ParsedPolicy(Policy(**values), tuple(problems))  # type: ignore[arg-type]


def _set(values: dict[str, object], key: str, value: str) -> str | None:
    """Store the checked ``value`` of ``key`` in ``values``; the problem with it, if any."""
    match key:
        case "SERVER":
            if value != "local" and not _ALIAS.fullmatch(value):
                return f"must be `local` or `@alias`, not {_clip(value)!r}"
            values["server"] = value
        case "MACHINE_LABEL":
            if not _LABEL.fullmatch(value):
                return "must be 1-63 letters, digits, dots, dashes or underscores"
            values["machine_label"] = value
        case "TOOLS":
            tools = _items(value)
            bad = [tool for tool in tools if not _TOOL.fullmatch(tool)]
            if not tools or bad:
                return "must be a comma-separated list of tool names (or *)"
            values["tools"] = frozenset(tools)
        case "NEVER_REMOTE":
            values["never_remote"] = tuple(item.casefold() for item in _items(value))
        case "MAX_WAIT":
            low, high, _ = MAX_WAIT_S
            if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
                return f"must be a whole number of seconds from {low} to {high}"
            values["max_wait_s"] = int(value)
        case "QUESTIONS":
            if value.lower() not in _YES | _NO:
                return "must be yes or no"
            values["questions"] = value.lower() in _YES
    return None


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


Route = Literal["send", "tool_not_listed", "never_remote", "questions_off"]


def route(policy: Policy, ask: PermissionAsk) -> Route:
    """Whether ``ask`` is sent to the server (``send``), or why it stays on the machine."""
    if ask.tool_name == QUESTION_TOOL:
        if not policy.questions:
            return "questions_off"
    elif "*" not in policy.tools and ask.tool_name not in policy.tools:
        return "tool_not_listed"
    searched = json.dumps(ask.tool_input, ensure_ascii=False).casefold()
    searched += "\n" + _plain_strings(ask.tool_input).casefold()
    if any(needle in searched for needle in policy.never_remote):
        return "never_remote"
    return "send"


def _plain_strings(value: object) -> str:
    """Every string inside ``value``, unescaped, one a line (JSON escapes hide substrings)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_plain_strings(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(_plain_strings(item) for item in value)
    return ""
