"""Approval requests and notices as the API shows them, and the person's decision built from
what they clicked: the card comes from ``core.approvals.cards``, the decision JSON's parts from
``core.approvals.decisions``. Pure apart from reading the stored values it is handed.
"""

from __future__ import annotations

from typing import Any

from quire.api.approvals import (
    ApprovalOutcome,
    ApprovalRecord,
    CardChange,
    CardOption,
    CardQuestion,
    CardView,
    DecisionRecord,
    HarnessName,
    NoticeRecord,
)
from quire.core.approvals.cards import card_of
from quire.core.approvals.decisions import (
    Allow,
    Decision,
    Deny,
    answered_input,
    deny_reason,
    session_rules,
)
from quire.core.approvals.escapes import has_hidden, shown_exactly
from quire.core.approvals.hook_input import QUESTION_TOOL
from quire.core.errors import ApprovalRefused, InvalidArgument
from quire.db.approvals import StoredApproval
from quire.db.notices import StoredNotice


def harness_of(value: str) -> HarnessName:
    """A stored harness name, checked."""
    match value:
        case "claude-code" | "codex":
            return value
        case _:
            raise ValueError(f"unknown harness {value!r} in the approvals table")


def card_view(approval: StoredApproval) -> CardView:
    """The card of ``approval``, every text shown exactly."""
    card = card_of(approval.tool_name, approval.tool_input, cwd=approval.cwd, home=None)
    texts = [card.text, card.rest or "", card.description or "", card.file or ""]
    texts += [change.old + change.new for change in card.changes]
    return CardView(
        kind=card.kind,
        tool=card.tool,
        text=card.text,
        description=card.description,
        file=card.file,
        rest=card.rest or None,
        changes=tuple(CardChange(old=change.old, new=change.new) for change in card.changes),
        questions=tuple(
            CardQuestion(
                question=question.question,
                header=question.header,
                options=tuple(
                    CardOption(label=option.label, description=option.description)
                    for option in question.options
                ),
                multiple=question.multiple,
            )
            for question in card.questions
        ),
        hidden=any("\\u{" in text for text in texts) or has_hidden(approval.tool_name),
    )


def session_allows(approval: StoredApproval) -> tuple[str, ...]:
    """What "allow for this session" allows, one rule a line (``Bash(npm test)``); empty when
    the agent offered no rule or its harness is not Claude Code."""
    if approval.harness != "claude-code":
        return ()
    shown: list[str] = []
    for suggestion in session_rules(approval.suggestions):
        for rule in suggestion["rules"]:
            if not isinstance(rule, dict):
                continue
            tool, content = rule.get("toolName"), rule.get("ruleContent")
            if isinstance(tool, str):
                text = f"{tool}({content})" if isinstance(content, str) else tool
                shown.append(shown_exactly(text))
    return tuple(shown)


def approval_record(
    approval: StoredApproval, *, agent_name: str | None = None, chat_path: str | None = None
) -> ApprovalRecord:
    """The window's record of ``approval``."""
    return ApprovalRecord(
        approval_id=approval.id,
        status=approval.status,
        harness=harness_of(approval.harness),
        machine_label=approval.machine_label,
        session_id=approval.session_id,
        agent_name=None if agent_name is None else shown_exactly(agent_name),
        chat_path=chat_path,
        tool_name=shown_exactly(approval.tool_name),
        input_hash=approval.input_hash,
        card=card_view(approval),
        session_allows=session_allows(approval),
        created_at=approval.created_at_ms,
        deadline=approval.deadline_ms,
        decided_at=approval.decided_at_ms,
        decision=None if approval.decision is None else DecisionRecord.parse(approval.decision),
    )


def approval_outcome(approval: StoredApproval) -> ApprovalOutcome:
    """What a wait answers for ``approval`` as it stands."""
    return ApprovalOutcome(
        approval_id=approval.id,
        status=approval.status,
        input_hash=approval.input_hash,
        decision=None if approval.decision is None else DecisionRecord.parse(approval.decision),
    )


def notice_record(notice: StoredNotice) -> NoticeRecord:
    """The window's record of ``notice``."""
    return NoticeRecord(
        session_id=notice.session_id,
        kind=notice.kind,
        harness=harness_of(notice.harness),
        machine_label=notice.machine_label,
        message=shown_exactly(notice.message),
        created_at=notice.created_at_ms,
        expires_at=notice.expires_at_ms,
    )


def decision_of(
    approval: StoredApproval,
    behavior: str,
    message: str | None,
    answers: list[list[int]] | None,
    other: list[str] | None,
) -> Decision:
    """The decision the person's click makes for ``approval``. InvalidArgument for answers
    that do not fit its questions; ApprovalRefused for "allow for this session" where the
    agent offered no rule (or its harness is not Claude Code)."""
    is_question = approval.tool_name == QUESTION_TOOL
    match behavior:
        case "deny":
            return Deny(deny_reason(message))
        case "allow_session":
            rules = session_rules(approval.suggestions)
            if approval.harness != "claude-code" or not rules or is_question:
                raise ApprovalRefused(
                    "This request offers no rule to allow for the session (the agent sent "
                    "none, or it is not Claude Code). Allow it once, or deny it."
                )
            return Allow(updated_permissions=rules)
        case "allow" if is_question:
            return Allow(updated_input=_answered(approval.tool_input, answers, other))
        case "allow":
            if answers is not None or other is not None:
                raise InvalidArgument(
                    "`answers` go with a question; this request is not one.", argument="answers"
                )
            return Allow()
        case _:
            raise InvalidArgument(
                f"`behavior` must be allow, deny or allow_session, not {behavior!r}.",
                argument="behavior",
            )


def decision_value(decision: Decision) -> dict[str, Any]:
    """``decision`` as stored and sent: the DecisionRecord's JSON."""
    match decision:
        case Allow(updated_input=updated, updated_permissions=rules):
            record = DecisionRecord(
                behavior="allow", updated_input=updated, updated_permissions=rules or None
            )
        case Deny(message=text):
            record = DecisionRecord(behavior="deny", message=text)
    return record.dump()


def _answered(
    tool_input: dict[str, Any], answers: list[list[int]] | None, other: list[str] | None
) -> dict[str, Any]:
    questions = tool_input.get("questions")
    if not isinstance(questions, list) or answers is None:
        raise InvalidArgument(
            "Answer the agent's questions: `answers` holds the picked option numbers of each.",
            argument="answers",
        )
    typed = other if other is not None else [""] * len(questions)
    if len(answers) != len(questions) or len(typed) != len(questions):
        raise InvalidArgument(
            f"The request asks {len(questions)} questions; `answers` and `other` must hold "
            "one entry for each.",
            argument="answers",
        )
    picks: dict[str, list[str]] = {}
    others: dict[str, str] = {}
    for question, picked, text in zip(questions, answers, typed, strict=True):
        if not isinstance(question, dict) or not isinstance(question.get("question"), str):
            raise InvalidArgument("A question of this request is malformed.", argument="answers")
        options = question.get("options")
        labels = [
            option["label"]
            for option in (options if isinstance(options, list) else [])
            if isinstance(option, dict) and isinstance(option.get("label"), str)
        ]
        if any(not 0 <= index < len(labels) for index in picked):
            raise InvalidArgument(
                f"An answer names an option the question {question['question']!r} does not "
                f"have (it has {len(labels)}).",
                argument="answers",
            )
        picks[question["question"]] = [labels[index] for index in picked]
        if text:
            others[question["question"]] = text
    return answered_input(tool_input, picks, others)
