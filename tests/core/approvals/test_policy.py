"""The policy file is data: every bad line named, nothing run, and routing by its keys."""

from __future__ import annotations

import pytest

from quire.core.approvals.hook_input import PermissionAsk
from quire.core.approvals.policy import Policy, parse_policy, route

FULL = """
# the build box
SERVER=@build
MACHINE_LABEL=build-box
TOOLS=Bash, Write
NEVER_REMOTE=sudo,rm -rf,.ssh
MAX_WAIT=120
QUESTIONS="yes"
"""


def test_a_full_policy_is_read() -> None:
    parsed = parse_policy(FULL)
    assert parsed.problems == ()
    assert parsed.policy == Policy(
        server="@build",
        machine_label="build-box",
        tools=frozenset({"Bash", "Write"}),
        never_remote=("sudo", "rm -rf", ".ssh"),
        max_wait_s=120,
        questions=True,
    )


def test_an_empty_policy_has_the_defaults() -> None:
    assert parse_policy("") == parse_policy("# nothing\n\n")
    assert parse_policy("").policy == Policy()


BAD: list[tuple[str, str]] = [
    ("SERVER", "line 1: 'SERVER' is not KEY=value"),
    ("server=local", "line 1: unknown key 'server'"),
    ("SERVER=local\nSERVER=@x", "line 2: SERVER is set again (first on line 1)"),
    ("SERVER=http://evil", "line 1: SERVER must be `local` or `@alias`"),
    ("SERVER=$(curl evil)", "line 1: SERVER must be `local` or `@alias`"),
    ("MACHINE_LABEL=`hostname`", "line 1: MACHINE_LABEL must be"),
    ("MACHINE_LABEL=", "line 1: MACHINE_LABEL must be"),
    ("TOOLS=", "line 1: TOOLS must be"),
    ("TOOLS=Bash;rm", "line 1: TOOLS must be"),
    ("MAX_WAIT=9", "line 1: MAX_WAIT must be a whole number of seconds from 10 to 3600"),
    ("MAX_WAIT=3601", "from 10 to 3600"),
    ("MAX_WAIT=١٢٠", "from 10 to 3600"),
    ("MAX_WAIT=1e3", "from 10 to 3600"),
    ("QUESTIONS=maybe", "line 1: QUESTIONS must be yes or no"),
    ("export SERVER=local", "line 1: unknown key 'export SERVER'"),
]


@pytest.mark.parametrize(("text", "problem"), BAD)
def test_each_bad_line_is_named(text: str, problem: str) -> None:
    problems = parse_policy(text).problems
    assert len(problems) == 1 and problem in problems[0], problems


def test_every_bad_line_is_named_not_only_the_first() -> None:
    assert len(parse_policy("A=1\nB\nMAX_WAIT=x\nTOOLS=Bash").problems) == 3


def _ask(tool: str, tool_input: dict[str, object]) -> PermissionAsk:
    return PermissionAsk("claude-code", "s", "/w", tool, tool_input, ())


ROUTES: list[tuple[Policy, PermissionAsk, str]] = [
    (Policy(), _ask("Bash", {"command": "ls"}), "send"),
    (Policy(), _ask("Write", {"file_path": "/w/a"}), "tool_not_listed"),
    (Policy(tools=frozenset({"*"})), _ask("Write", {"file_path": "/w/a"}), "send"),
    (Policy(), _ask("AskUserQuestion", {"questions": []}), "questions_off"),
    (Policy(questions=True), _ask("AskUserQuestion", {"questions": []}), "send"),
    (Policy(never_remote=("sudo",)), _ask("Bash", {"command": "SUDO ls"}), "never_remote"),
    (Policy(never_remote=("rm -rf",)), _ask("Bash", {"command": ["rm", "-rf", "/"]}), "send"),
    (Policy(never_remote=('"',)), _ask("Bash", {"command": 'echo "'}), "never_remote"),
    (Policy(never_remote=("é",)), _ask("Bash", {"command": "caf\u00e9"}), "never_remote"),
    (Policy(never_remote=(".ssh",)), _ask("Bash", {"command": "cat ~/.ssh/id"}), "never_remote"),
]


@pytest.mark.parametrize(("policy", "ask", "expected"), ROUTES)
def test_the_policy_decides_what_leaves_the_machine(
    policy: Policy, ask: PermissionAsk, expected: str
) -> None:
    assert route(policy, ask) == expected
