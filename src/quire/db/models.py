"""The tables of the server's database, as SQLAlchemy declarative models.

Owns table and column names only (the migrations in db/migrations must match them); no queries.
Times are milliseconds since the epoch in BIGINT columns, since they overflow a 32-bit integer.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Explicit constraint names keep Alembic migrations identical on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# An integer key that autoincrements on both backends (SQLite needs INTEGER for its rowid alias).
AutoId = BigInteger().with_variant(Integer(), "sqlite")

USER_ID = 128
DOC_ID = 64
HASH = 64
REVIEW_ID = 64
WORD = 32


class Base(DeclarativeBase):
    """The declarative base every Quire table derives from."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class User(Base):
    """A person the server knows; single-user mode has one, the owner."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(USER_ID), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    created_at_ms: Mapped[int] = mapped_column(BigInteger)


class Window(Base):
    """A user's window: the active document and whether it is presented."""

    __tablename__ = "windows"

    user_id: Mapped[str] = mapped_column(
        String(USER_ID), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    active_doc_id: Mapped[str | None] = mapped_column(String(DOC_ID))
    present: Mapped[bool] = mapped_column(Boolean(create_constraint=False))
    updated_at_ms: Mapped[int] = mapped_column(BigInteger)


class Tab(Base):
    """An open tab in a user's window, in display order."""

    __tablename__ = "tabs"
    __table_args__ = (
        CheckConstraint("view IN ('read', 'edit', 'source')", name="view"),
        Index(None, "user_id", "position"),
    )

    user_id: Mapped[str] = mapped_column(String(USER_ID), primary_key=True)
    doc_id: Mapped[str] = mapped_column(String(DOC_ID), primary_key=True)
    path: Mapped[str] = mapped_column(Text)
    view: Mapped[str] = mapped_column(String(WORD))
    position: Mapped[int] = mapped_column(Integer)
    opened_at_ms: Mapped[int] = mapped_column(BigInteger)


class Recent(Base):
    """A document a user opened recently; one row per path, the newest opening kept."""

    __tablename__ = "recents"
    __table_args__ = (Index(None, "user_id", "opened_at_ms"),)

    user_id: Mapped[str] = mapped_column(String(USER_ID), primary_key=True)
    path: Mapped[str] = mapped_column(Text, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    opened_at_ms: Mapped[int] = mapped_column(BigInteger)


class Buffer(Base):
    """A live document's buffer; base_hash is the sha256 of the file text it was loaded from."""

    __tablename__ = "buffers"

    doc_id: Mapped[str] = mapped_column(String(DOC_ID), primary_key=True)
    path: Mapped[str] = mapped_column(Text, unique=True)
    base_hash: Mapped[str] = mapped_column(String(HASH))
    dirty: Mapped[bool] = mapped_column(Boolean(create_constraint=False))
    updated_at_ms: Mapped[int] = mapped_column(BigInteger)


class BufferUpdate(Base):
    """One Yjs update applied to a buffer since its last save, in arrival order (by id)."""

    __tablename__ = "buffer_updates"

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    doc_id: Mapped[str] = mapped_column(
        String(DOC_ID), ForeignKey("buffers.doc_id", ondelete="CASCADE"), index=True
    )
    update: Mapped[bytes] = mapped_column(LargeBinary)
    created_at_ms: Mapped[int] = mapped_column(BigInteger)


class Review(Base):
    """A human review request and, once decided, its verdict.

    status is pending, decided, timeout or superseded; verdict is set once the review ends.
    """

    __tablename__ = "reviews"
    __table_args__ = (
        CheckConstraint("status IN ('pending', 'decided', 'timeout', 'superseded')", name="status"),
        CheckConstraint(
            "verdict IS NULL OR verdict IN "
            "('approved', 'changes_requested', 'dismissed', 'timeout', 'superseded')",
            name="verdict",
        ),
        Index(None, "user_id", "created_at_ms"),
        Index(None, "path"),
    )

    id: Mapped[str] = mapped_column(String(REVIEW_ID), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(USER_ID))
    path: Mapped[str | None] = mapped_column(Text)
    content: Mapped[str | None] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(HASH))
    requested_by: Mapped[str] = mapped_column(Text)
    timeout_ms: Mapped[int] = mapped_column(Integer)
    created_at_ms: Mapped[int] = mapped_column(BigInteger)
    deadline_ms: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(WORD))
    verdict: Mapped[str | None] = mapped_column(String(WORD))
    comments: Mapped[str | None] = mapped_column(Text)
    decided_at_ms: Mapped[int | None] = mapped_column(BigInteger)
    late: Mapped[bool] = mapped_column(Boolean(create_constraint=False))
    superseded_by: Mapped[str | None] = mapped_column(String(REVIEW_ID))


READER = 200
SESSION_ID = 200


class ChatCursor(Base):
    """How far a reader (a name, stored lower-cased) has read a chat: the number of the last
    message handed to it."""

    __tablename__ = "chat_cursors"

    user_id: Mapped[str] = mapped_column(String(USER_ID), primary_key=True)
    chat_path: Mapped[str] = mapped_column(Text, primary_key=True)
    reader: Mapped[str] = mapped_column(String(READER), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    updated_at_ms: Mapped[int] = mapped_column(BigInteger)


class ChatSession(Base):
    """An agent harness session's last chat command, for the keepalive hook's lookup.

    stop_times is a JSON list of the epoch milliseconds of its recent stop attempts.
    """

    __tablename__ = "chat_sessions"
    __table_args__ = (
        CheckConstraint("last_kind IN ('wait', 'post', 'read', 'leave')", name="last_kind"),
    )

    session_id: Mapped[str] = mapped_column(String(SESSION_ID), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(USER_ID))
    chat_path: Mapped[str] = mapped_column(Text)
    reader: Mapped[str] = mapped_column(String(READER))
    last_kind: Mapped[str] = mapped_column(String(WORD))
    wait_command: Mapped[str | None] = mapped_column(Text)
    updated_at_ms: Mapped[int] = mapped_column(BigInteger)
    stop_times: Mapped[str] = mapped_column(Text)


class ChatPin(Base):
    """A chat a user pinned to the Pinned tab of the chat list."""

    __tablename__ = "chat_pins"

    user_id: Mapped[str] = mapped_column(String(USER_ID), primary_key=True)
    chat_path: Mapped[str] = mapped_column(Text, primary_key=True)
    pinned_at_ms: Mapped[int] = mapped_column(BigInteger)


APPROVAL_ID = 64
LABEL = 64


class Approval(Base):
    """An agent's permission request (or question) and, once it ends, how.

    status is pending, decided, expired or answered (in the agent's terminal); tool_input,
    suggestions and decision are JSON text. input_hash binds a decision to this one tool call.
    """

    __tablename__ = "approvals"
    __table_args__ = (
        CheckConstraint("status IN ('pending', 'decided', 'expired', 'answered')", name="status"),
        Index(None, "user_id", "status", "created_at_ms"),
        Index(None, "session_id"),
    )

    id: Mapped[str] = mapped_column(String(APPROVAL_ID), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(USER_ID))
    harness: Mapped[str] = mapped_column(String(WORD))
    machine_label: Mapped[str] = mapped_column(String(LABEL))
    session_id: Mapped[str] = mapped_column(String(SESSION_ID))
    cwd: Mapped[str] = mapped_column(Text)
    tool_name: Mapped[str] = mapped_column(Text)
    tool_input: Mapped[str] = mapped_column(Text)
    suggestions: Mapped[str] = mapped_column(Text)
    input_hash: Mapped[str] = mapped_column(String(HASH))
    created_at_ms: Mapped[int] = mapped_column(BigInteger)
    deadline_ms: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(WORD))
    decision: Mapped[str | None] = mapped_column(Text)
    decided_at_ms: Mapped[int | None] = mapped_column(BigInteger)


class Notice(Base):
    """Something an agent's person only needs to know (waiting in its terminal, idle,
    stopped): one per agent session and kind, a repeat replacing it."""

    __tablename__ = "notices"
    __table_args__ = (
        CheckConstraint("kind IN ('terminal', 'idle', 'stopped', 'other')", name="kind"),
        Index(None, "user_id", "expires_at_ms"),
    )

    user_id: Mapped[str] = mapped_column(String(USER_ID), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(SESSION_ID), primary_key=True)
    kind: Mapped[str] = mapped_column(String(WORD), primary_key=True)
    harness: Mapped[str] = mapped_column(String(WORD))
    machine_label: Mapped[str] = mapped_column(String(LABEL))
    message: Mapped[str] = mapped_column(Text)
    created_at_ms: Mapped[int] = mapped_column(BigInteger)
    expires_at_ms: Mapped[int] = mapped_column(BigInteger)


# Multi mode: accounts and what they may reach. An account's id is its row in users (a random
# id, never the username). Windows, reviews, approvals, chat positions and notices are keyed
# by the name a request signs in as; deleting an account deletes those too
# (``quire.db.user_state``), so a new account of the same name inherits nothing.
USERNAME = 32
TOKEN_ID = 12
NAME = 64


class Account(Base):
    """A person who signs in (multi mode): username, argon2id hash, role, disabled flag.

    password_hash is None until a password is set; such an account cannot sign in.
    """

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("role IN ('superadmin', 'admin', 'collaborator')", name="role"),
    )

    user_id: Mapped[str] = mapped_column(
        String(USER_ID), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    username: Mapped[str] = mapped_column(String(USERNAME), unique=True)
    password_hash: Mapped[str | None] = mapped_column(Text)
    role: Mapped[str] = mapped_column(String(WORD))
    disabled: Mapped[bool] = mapped_column(Boolean(create_constraint=False))
    created_at_ms: Mapped[int] = mapped_column(BigInteger)
    password_changed_at_ms: Mapped[int | None] = mapped_column(BigInteger)


class ApiToken(Base):
    """An account's API token: only the SHA-256 digest of the token is kept."""

    __tablename__ = "api_tokens"

    id: Mapped[str] = mapped_column(String(TOKEN_ID), primary_key=True)
    user_id: Mapped[str] = mapped_column(
        String(USER_ID), ForeignKey("accounts.user_id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(NAME))
    token_hash: Mapped[str] = mapped_column(String(HASH))
    created_at_ms: Mapped[int] = mapped_column(BigInteger)
    expires_at_ms: Mapped[int | None] = mapped_column(BigInteger)
    last_used_at_ms: Mapped[int | None] = mapped_column(BigInteger)
    revoked_at_ms: Mapped[int | None] = mapped_column(BigInteger)


class BrowserSession(Base):
    """A signed-in browser: the SHA-256 digest of its cookie's session id is the key."""

    __tablename__ = "browser_sessions"

    id_hash: Mapped[str] = mapped_column(String(HASH), primary_key=True)
    user_id: Mapped[str] = mapped_column(
        String(USER_ID), ForeignKey("accounts.user_id", ondelete="CASCADE"), index=True
    )
    created_at_ms: Mapped[int] = mapped_column(BigInteger)
    last_seen_at_ms: Mapped[int] = mapped_column(BigInteger)


class LoginFailure(Base):
    """A failed sign-in: the username tried (canonical, existing or not) and the client
    address key, for the lockout rules."""

    __tablename__ = "login_failures"
    __table_args__ = (Index(None, "username", "at_ms"), Index(None, "address", "at_ms"))

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(NAME))
    address: Mapped[str] = mapped_column(String(NAME))
    at_ms: Mapped[int] = mapped_column(BigInteger)


class AccessGroup(Base):
    """A named set of accounts that grants can be given to."""

    __tablename__ = "access_groups"

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(NAME), unique=True)
    created_at_ms: Mapped[int] = mapped_column(BigInteger)


class GroupMember(Base):
    """An account's membership of an access group."""

    __tablename__ = "group_members"

    group_id: Mapped[int] = mapped_column(
        AutoId, ForeignKey("access_groups.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        String(USER_ID),
        ForeignKey("accounts.user_id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
    )


class Grant(Base):
    """Read or write access to a workspace, or to a path prefix in it ('' is the whole
    workspace; segments joined by '/', NFC), for exactly one account or one group."""

    __tablename__ = "grants"
    __table_args__ = (
        CheckConstraint("access IN ('read', 'write')", name="access"),
        CheckConstraint("(user_id IS NULL) <> (group_id IS NULL)", name="one_subject"),
        Index(None, "user_id"),
        Index(None, "group_id"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    user_id: Mapped[str | None] = mapped_column(
        String(USER_ID), ForeignKey("accounts.user_id", ondelete="CASCADE")
    )
    group_id: Mapped[int | None] = mapped_column(
        AutoId, ForeignKey("access_groups.id", ondelete="CASCADE")
    )
    workspace: Mapped[str] = mapped_column(Text)
    prefix: Mapped[str] = mapped_column(Text)
    access: Mapped[str] = mapped_column(String(WORD))
    created_at_ms: Mapped[int] = mapped_column(BigInteger)


class PrivateChat(Base):
    """A private chat (multi mode): the note's stable identity, whose ``path`` (resolved,
    absolute) follows the moves and renames made inside Quire. ``born_private``: created
    private as a new note (nobody else ever read it), not made private later."""

    __tablename__ = "private_chats"

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    path: Mapped[str] = mapped_column(Text, unique=True)
    born_private: Mapped[bool] = mapped_column(Boolean(create_constraint=False))
    created_at_ms: Mapped[int] = mapped_column(BigInteger)


class ChatMember(Base):
    """An account on a private chat's member list."""

    __tablename__ = "chat_members"

    chat_id: Mapped[int] = mapped_column(
        AutoId, ForeignKey("private_chats.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        String(USER_ID),
        ForeignKey("accounts.user_id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
    )
    added_at_ms: Mapped[int] = mapped_column(BigInteger)


class AccessChanges(Base):
    """One row whose ``counter`` moves with every change to accounts, tokens, sessions, groups,
    grants and private chats (database triggers made by migration 0006, so any process's
    change counts): a server's cached sign-ins hold while it stays put."""

    __tablename__ = "access_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    counter: Mapped[int] = mapped_column(BigInteger)


class Deployment(Base):
    """One row naming the deployment: a random id made with the database (migration 0007), the
    same for every server on it; the replicas' Redis channel carries it."""

    __tablename__ = "deployment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))


class GivenVersion(Base):
    """A live text an agent was given, under its version (the ``base`` a rewrite may name).
    Stored only when replicas share the database, so any of them knows what another gave out;
    a server alone keeps them in memory."""

    __tablename__ = "given_versions"

    doc_id: Mapped[str] = mapped_column(String(DOC_ID), primary_key=True)
    version: Mapped[str] = mapped_column(String(WORD), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    given_at_ms: Mapped[int] = mapped_column(BigInteger)


class EditPreview(Base):
    """A stream-edit preview an apply may name by ``edit_id``, stored as ``GivenVersion`` is
    (only with replicas); ``version`` is the preview's count of the document's updates on the
    replica that made it, ``base`` the version of the text it was made from."""

    __tablename__ = "edit_previews"
    __table_args__ = (Index("ix_edit_previews_made_at_ms", "made_at_ms"),)

    edit_id: Mapped[str] = mapped_column(String(WORD), primary_key=True)
    doc_id: Mapped[str] = mapped_column(String(DOC_ID))
    path: Mapped[str] = mapped_column(Text)
    find: Mapped[str] = mapped_column(Text)
    replace: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(BigInteger)
    match_count: Mapped[int] = mapped_column(Integer)
    base: Mapped[str] = mapped_column(String(WORD))
    applied: Mapped[bool] = mapped_column(Boolean(create_constraint=False))
    made_at_ms: Mapped[int] = mapped_column(BigInteger)
