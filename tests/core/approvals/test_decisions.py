"""The decision JSON is exactly the contract's; answers and session rules as the agent expects."""

from __future__ import annotations

import pytest

from quire.core.approvals.binding import input_hash
from quire.core.approvals.decisions import (
    Allow,
    Deny,
    answered_input,
    decision_json,
    deny_reason,
    session_rules,
)
from quire.core.errors import InvalidArgument

PREFIX = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'


def test_allow_and_deny_print_the_contract_shape() -> None:
    assert decision_json(Allow()) == PREFIX + '{"behavior":"allow"}}}'
    assert decision_json(Deny("not now")) == (PREFIX + '{"behavior":"deny","message":"not now"}}}')


def test_an_allow_carries_the_updated_input_and_the_session_rules() -> None:
    rule = {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "ls"}]}
    printed = decision_json(Allow({"command": "ls"}, ({**rule, "destination": "session"},)))
    assert printed == (
        PREFIX + '{"behavior":"allow","updatedInput":{"command":"ls"},"updatedPermissions":'
        '[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls"}],'
        '"destination":"session"}]}}}'
    )


def test_session_rules_echo_only_the_allow_rules_offered_with_the_session_as_destination() -> None:
    offered: list[dict[str, object]] = [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        {"type": "setMode", "mode": "bypassPermissions", "destination": "userSettings"},
        {"type": "addRules", "rules": [], "behavior": "allow", "destination": "projectSettings"},
        {"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "deny"},
    ]
    assert session_rules(offered) == (
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
            "behavior": "allow",
            "destination": "session",
        },
    )


QUESTIONS = {
    "questions": [
        {
            "question": "Which colour?",
            "header": "Colour",
            "options": [{"label": "Red"}, {"label": "Green"}, {"label": "Blue"}],
            "multiSelect": True,
        },
        {"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]},
    ]
}


def test_answers_list_the_picks_in_option_order_then_the_typed_text() -> None:
    answered = answered_input(
        QUESTIONS,
        {"Which colour?": ["Blue", "Red"], "Ship it?": ["Yes"]},
        {"Which colour?": "teal"},
    )
    assert answered == {
        **QUESTIONS,
        "answers": {"Which colour?": "Red, Blue, teal", "Ship it?": "Yes"},
    }


WRONG_ANSWERS: list[tuple[dict[str, list[str]], dict[str, str], str]] = [
    ({"Which colour?": ["Red"]}, {}, "'Ship it?' has no answer"),
    ({"Which colour?": ["Pink"], "Ship it?": ["Yes"]}, {}, "'Pink' is not an option"),
    ({"Which colour?": ["Red"], "Ship it?": ["Yes", "No"]}, {}, "takes one answer"),
    ({"Which colour?": ["Red"], "Ship it?": ["Yes"]}, {"Ship it?": "maybe"}, "takes one answer"),
    ({"Which colour?": ["Red"], "Ship it?": ["Yes"], "Extra?": ["x"]}, {}, "not one of"),
]


@pytest.mark.parametrize(("picks", "other", "fragment"), WRONG_ANSWERS)
def test_a_wrong_answer_is_refused(
    picks: dict[str, list[str]], other: dict[str, str], fragment: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        answered_input(QUESTIONS, picks, other)
    assert fragment in str(caught.value)


def test_a_denial_without_words_gets_a_neutral_reason_and_an_overlong_one_is_refused() -> None:
    assert deny_reason(None) == deny_reason("  ") == "The person denied this in Quire."
    assert deny_reason("use pnpm") == "use pnpm"
    with pytest.raises(InvalidArgument):
        deny_reason("x" * 2001)


def test_the_input_hash_changes_with_any_change_of_the_call() -> None:
    base = input_hash("Bash", {"command": "ls", "description": "list"})
    assert base == input_hash("Bash", {"description": "list", "command": "ls"})
    assert (
        len(
            {
                base,
                input_hash("Bash", {"command": "ls ", "description": "list"}),
                input_hash("Bash", {"command": "ls", "description": "list", "x": None}),
                input_hash("Read", {"command": "ls", "description": "list"}),
                input_hash("Bash", {"command": "l\u200bs", "description": "list"}),
            }
        )
        == 5
    )
