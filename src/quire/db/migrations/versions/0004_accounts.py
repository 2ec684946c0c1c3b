"""Multi mode's foundation: accounts, API tokens, browser sessions, failed sign-ins, access
groups and grants.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

USER_ID = sa.String(128)
HASH = sa.String(64)
WORD = sa.String(32)
NAME = sa.String(64)


def _ms() -> sa.BigInteger:
    return sa.BigInteger()


def _auto_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("role", WORD, nullable=False),
        sa.Column("disabled", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.Column("password_changed_at_ms", _ms(), nullable=True),
        sa.PrimaryKeyConstraint("user_id", name="pk_accounts"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], ondelete="CASCADE", name="fk_accounts_user_id_users"
        ),
        sa.UniqueConstraint("username", name="uq_accounts_username"),
        sa.CheckConstraint(
            "role IN ('superadmin', 'admin', 'collaborator')", name="ck_accounts_role"
        ),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(12), nullable=False),
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("name", NAME, nullable=False),
        sa.Column("token_hash", HASH, nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.Column("expires_at_ms", _ms(), nullable=True),
        sa.Column("last_used_at_ms", _ms(), nullable=True),
        sa.Column("revoked_at_ms", _ms(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_api_tokens"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["accounts.user_id"],
            ondelete="CASCADE",
            name="fk_api_tokens_user_id_accounts",
        ),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])
    op.create_table(
        "browser_sessions",
        sa.Column("id_hash", HASH, nullable=False),
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.Column("last_seen_at_ms", _ms(), nullable=False),
        sa.PrimaryKeyConstraint("id_hash", name="pk_browser_sessions"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["accounts.user_id"],
            ondelete="CASCADE",
            name="fk_browser_sessions_user_id_accounts",
        ),
    )
    op.create_index("ix_browser_sessions_user_id", "browser_sessions", ["user_id"])
    op.create_table(
        "login_failures",
        sa.Column("id", _auto_id(), autoincrement=True, nullable=False),
        sa.Column("username", NAME, nullable=False),
        sa.Column("address", NAME, nullable=False),
        sa.Column("at_ms", _ms(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_login_failures"),
    )
    op.create_index("ix_login_failures_username_at_ms", "login_failures", ["username", "at_ms"])
    op.create_index("ix_login_failures_address_at_ms", "login_failures", ["address", "at_ms"])
    op.create_table(
        "access_groups",
        sa.Column("id", _auto_id(), autoincrement=True, nullable=False),
        sa.Column("name", NAME, nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_access_groups"),
        sa.UniqueConstraint("name", name="uq_access_groups_name"),
    )
    op.create_table(
        "group_members",
        sa.Column("group_id", _auto_id(), nullable=False),
        sa.Column("user_id", USER_ID, nullable=False),
        sa.PrimaryKeyConstraint("group_id", "user_id", name="pk_group_members"),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["access_groups.id"],
            ondelete="CASCADE",
            name="fk_group_members_group_id_access_groups",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["accounts.user_id"],
            ondelete="CASCADE",
            name="fk_group_members_user_id_accounts",
        ),
    )
    op.create_index("ix_group_members_user_id", "group_members", ["user_id"])
    op.create_table(
        "grants",
        sa.Column("id", _auto_id(), autoincrement=True, nullable=False),
        sa.Column("user_id", USER_ID, nullable=True),
        sa.Column("group_id", _auto_id(), nullable=True),
        sa.Column("workspace", sa.Text(), nullable=False),
        sa.Column("prefix", sa.Text(), nullable=False),
        sa.Column("access", WORD, nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_grants"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["accounts.user_id"],
            ondelete="CASCADE",
            name="fk_grants_user_id_accounts",
        ),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["access_groups.id"],
            ondelete="CASCADE",
            name="fk_grants_group_id_access_groups",
        ),
        sa.CheckConstraint("access IN ('read', 'write')", name="ck_grants_access"),
        sa.CheckConstraint("(user_id IS NULL) <> (group_id IS NULL)", name="ck_grants_one_subject"),
    )
    op.create_index("ix_grants_user_id", "grants", ["user_id"])
    op.create_index("ix_grants_group_id", "grants", ["group_id"])


def downgrade() -> None:
    for table, indexes in (
        ("grants", ("ix_grants_group_id", "ix_grants_user_id")),
        ("group_members", ("ix_group_members_user_id",)),
        ("access_groups", ()),
        ("login_failures", ("ix_login_failures_address_at_ms", "ix_login_failures_username_at_ms")),
        ("browser_sessions", ("ix_browser_sessions_user_id",)),
        ("api_tokens", ("ix_api_tokens_user_id",)),
        ("accounts", ()),
    ):
        for index in indexes:
            op.drop_index(index, table_name=table)
        op.drop_table(table)
