"""Agent approvals' requests and answers: a hook's request and wait, the person's decision,
cards answered in the terminal, notices, and the list the window shows.

Models only: the server reads and dumps them, the client builds and parses them. A card's texts
are already shown exactly (hidden characters as ``\\u{…}`` escapes) when they leave the server.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from quire.api.base import Answer, StrictBody, omitted_when_none

HarnessName = Literal["claude-code", "codex"]
ApprovalState = Literal["pending", "decided", "expired", "answered"]
NoticeKindName = Literal["terminal", "idle", "stopped", "other"]
Behavior = Literal["allow", "deny", "allow_session"]


class ApprovalRequestBody(StrictBody):
    """A PermissionRequest as the hook read it, with the machine's label and the time to live
    (`ttl_ms`, 60,000 to 3,600,000, default 600,000)."""

    harness: HarnessName
    session_id: str
    cwd: str
    tool_name: str
    tool_input: dict[str, Any]
    suggestions: list[dict[str, Any]] = Field(default_factory=list)
    machine_label: str
    ttl_ms: int | None = None


class ApprovalDecisionBody(StrictBody):
    """The person's decision, bound to the request's `input_hash`. For a question, `answers`
    holds the picked option numbers (from 0) of each question in order, and `other` the typed
    text of each ("" for none)."""

    input_hash: str
    behavior: Behavior
    message: str | None = None
    answers: list[list[int]] | None = None
    other: list[str] | None = None


class ApprovalDoneBody(StrictBody):
    """An agent session went on in its terminal: its pending cards for this tool call (every
    pending card of the session without `tool_name`) were answered there."""

    session_id: str
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None


class NoticeBody(StrictBody):
    """Raise a notice for an agent session: a repeat of its kind replaces the last one."""

    session_id: str
    harness: HarnessName
    machine_label: str
    kind: Literal["terminal", "idle", "other"]
    message: str = ""


class NoticeDismissBody(StrictBody):
    session_id: str
    kind: NoticeKindName


class CardOption(Answer):
    label: str
    description: str


class CardQuestion(Answer):
    question: str
    header: str
    options: tuple[CardOption, ...]
    multiple: bool


class CardChange(Answer):
    old: str
    new: str


class CardView(Answer):
    """What the card shows: `text` is the command (exactly as it runs), a write's first 40
    lines or other input as JSON; `description` is the agent's own words about it; `rest` is a
    write's remaining lines; `hidden` says a text holds characters shown as escapes."""

    kind: Literal["command", "write", "edit", "question", "other"]
    tool: str
    text: str
    description: str | None = omitted_when_none()
    file: str | None = omitted_when_none()
    rest: str | None = omitted_when_none()
    changes: tuple[CardChange, ...] = ()
    questions: tuple[CardQuestion, ...] = ()
    hidden: bool = False


class DecisionRecord(Answer):
    """The decision as the hook hands it to the agent: `behavior`, a denial's `message`, an
    allow's `updatedInput` (a question's answers) and `updatedPermissions` (the session rules
    the agent offered)."""

    behavior: Literal["allow", "deny"]
    message: str | None = omitted_when_none()
    updated_input: dict[str, Any] | None = omitted_when_none()
    updated_permissions: tuple[dict[str, Any], ...] | None = omitted_when_none()


class ApprovalRecord(Answer):
    """One request as the window shows it: who asks (agent, machine, session, the chat it is
    in), its card, what "allow for this session" allows (`sessionAllows`, empty: not
    offered), its deadline, and how it ended. Times are milliseconds since the epoch."""

    approval_id: str
    status: ApprovalState
    harness: HarnessName
    machine_label: str
    session_id: str
    agent_name: str | None = omitted_when_none()
    chat_path: str | None = omitted_when_none()
    tool_name: str
    input_hash: str
    card: CardView
    session_allows: tuple[str, ...]
    created_at: int
    deadline: int
    decided_at: int | None = omitted_when_none()
    decision: DecisionRecord | None = omitted_when_none()


class ApprovalRequested(Answer):
    """A request was queued: its id, the hash a decision must name, and its deadline."""

    approval_id: str
    input_hash: str
    deadline: int


class ApprovalOutcome(Answer):
    """A wait's answer: still `pending`, or how the request ended, with the `decision` (bound to
    `inputHash`) when the person decided."""

    approval_id: str
    status: ApprovalState
    input_hash: str
    decision: DecisionRecord | None = omitted_when_none()


class NoticeRecord(Answer):
    session_id: str
    kind: NoticeKindName
    harness: HarnessName
    machine_label: str
    message: str
    created_at: int
    expires_at: int


class ApprovalList(Answer):
    """The approvals list: the pending requests oldest first (`waiting` of them), then the
    recently ended ones newest first, and the live notices."""

    waiting: int
    approvals: tuple[ApprovalRecord, ...]
    notices: tuple[NoticeRecord, ...]


class ApprovalsDone(Answer):
    """How many pending cards were closed as answered in the terminal."""

    closed: int


class NoticeRaised(Answer):
    """Whether a notice was raised (`false`: a card of the session already asks)."""

    raised: bool
