"""Chat in a note: the requests and answers of the chat routes.

Models only: the server reads and dumps them, the client builds and parses them, the MCP
chat tools return them and declare their schemas.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from quire.api.approvals import HarnessName
from quire.api.base import Answer, StrictBody, omitted_when_none


class ChatCreateBody(StrictBody):
    """`private` (multi mode) makes a new note a private chat, with you and the accounts in
    `invite` as its members. `privateByDefault` (what the window's + New sends) makes it
    private when `private` is left out and the request is an account's on a team server."""

    path: str
    title: str | None = None
    private: bool | None = None
    privateByDefault: bool = False
    invite: list[str] = Field(default_factory=list)


MemberAction = Literal["add", "remove", "private"]


class ChatMembersBody(StrictBody):
    """A change to a chat's member list: add or remove the account `username`, or make the
    chat private with only you (`private`)."""

    path: str
    action: MemberAction
    username: str | None = None


class ChatPostBody(StrictBody):
    path: str
    as_: str = Field(alias="as")
    body: str
    session: str | None = None


class ChatWaitBody(StrictBody):
    path: str
    as_: str = Field(alias="as")
    after: int | None = None
    mentionsOnly: bool = False
    timeoutMs: int | None = None
    session: str | None = None
    command: str | None = None


class ChatLeaveBody(StrictBody):
    path: str
    as_: str = Field(alias="as")
    session: str | None = None


class ChatStopBody(StrictBody):
    """One stop attempt of an agent session; the harness and machine label name the agent in
    the "stopped" notice raised when this stop lets it go (Claude Code, "unknown" when left
    out)."""

    id: str
    harness: HarnessName | None = None
    machine_label: str | None = Field(default=None, max_length=63)


class ChatPinBody(StrictBody):
    path: str
    pinned: bool


class ChatPathBody(StrictBody):
    path: str


class ChatAvatarBody(StrictBody):
    workspace: str
    as_: str = Field(alias="as")
    pick: str | None = None
    svg: str | None = None


PresenceState = Literal["waiting", "thinking", "working"]
PostKind = Literal["message", "status", "context", "role"]
WaitStatus = Literal["messages", "timeout", "gone"]
SessionKind = Literal["wait", "post", "read", "leave"]


class ChatSummary(Answer):
    """One chat of the list; `last_activity` is in ms since the Unix epoch, `unread`
    counts the messages the reader has not seen (0 without a reader)."""

    path: str
    workspace: str
    title: str
    message_count: int
    last_activity: int
    unread: int
    pinned: bool
    private: bool = False


class ChatList(Answer):
    """The answer of `GET /api/chats`: the chats, most recently active first."""

    chats: tuple[ChatSummary, ...]


class ChatCreated(Answer):
    """What making a chat did: a new note, the tag added to a note, or neither (a chat
    already)."""

    path: str
    created: bool
    converted: bool
    private: bool = False


class ChatPeople(Answer):
    """Who may be invited to a chat in a workspace (team servers): the accounts a grant on it
    reaches, by username; empty in single mode."""

    people: tuple[str, ...]


class ChatMembers(Answer):
    """Who can open a chat: `private` false for an open chat (anyone who can read the note;
    `members` empty then); `owner` is the account that may delete it (null: none named)."""

    path: str
    private: bool
    members: tuple[str, ...]
    owner: str | None


class Message(Answer):
    """One message of a chat, numbered by its position (from 1), with the names it mentions."""

    number: int
    author: str
    time: str
    body: str
    mentions: tuple[str, ...]


class ContextUse(Answer):
    """How full an agent said its context window is: as written (`42%` or `87k/200k`)
    and as a whole percentage."""

    text: str
    percent: int


class Presence(Answer):
    """One name's presence in a chat: its state, its /status text while it lasts and its
    last /context report."""

    name: str
    state: PresenceState
    status: str | None
    context: ContextUse | None


class ChatView(Answer):
    """A chat as read: title, description, who posted (first-post order), the messages asked
    for, the `after` to use next, who is present, the roles and the avatars."""

    path: str
    title: str | None
    description: str
    participants: tuple[str, ...]
    messages: tuple[Message, ...]
    next: int
    presence: tuple[Presence, ...]
    roles: dict[str, str]
    avatars: dict[str, str]


class Posted(Answer):
    """A post: a stored message and its `number`, or a slash post (/status, /context,
    /role) and whether it `cleared` what it sets; the field that does not apply is left
    out."""

    kind: PostKind
    number: int | None = omitted_when_none()
    cleared: bool | None = omitted_when_none()

    @model_validator(mode="after")
    def _one_outcome(self) -> Self:
        if self.kind == "message" and self.number is None:
            raise ValueError("a stored message comes with its `number`")
        if self.kind != "message" and self.cleared is None:
            raise ValueError(f"a {self.kind} post comes with `cleared`")
        return self


class Waited(Answer):
    """A wait's outcome: the messages for the reader, or a timeout, or the chat being gone;
    `next` is the `after` to wait with next; `reminder` repeats the reader's role."""

    status: WaitStatus
    messages: tuple[Message, ...]
    next: int
    reminder: str | None


class SessionRecord(Answer):
    """What the server recorded of an agent session's chat commands (the keepalive lookup):
    `found` false, and nulls, for a session that never used a chat."""

    found: bool
    last_kind: SessionKind | None
    wait_command: str | None
    left: bool
    path: str | None
    reader: str | None


class StopCount(Answer):
    """The stop attempts of a session within the last 2 minutes, the one just recorded
    included (0 for a session that never used a chat)."""

    recent_stops: int


class Left(Answer):
    """The answer of a leave."""

    left: Literal[True] = True


class Pinned(Answer):
    """Whether the chat is pinned now."""

    pinned: bool


class ChatDeleted(Answer):
    """The answer of a delete."""

    deleted: Literal[True] = True


class GifName(Answer):
    """A reaction or avatar picture a chat may use; `builtin` unless a workspace file."""

    name: str
    builtin: bool


class GifList(Answer):
    """The pictures a workspace's chats may use, and who has which avatar."""

    gifs: tuple[GifName, ...]
    avatars: dict[str, str]


class AvatarSet(Answer):
    """The avatar saved (`avatar-NAME`) and the built-in picked for it, if one was."""

    name: str
    picked: str | None
