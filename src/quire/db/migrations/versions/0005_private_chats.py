"""Private chats (multi mode): each private chat's stable identity (its path follows moves made
inside Quire) and its member list.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _auto_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "private_chats",
        sa.Column("id", _auto_id(), autoincrement=True, nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("born_private", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_private_chats"),
        sa.UniqueConstraint("path", name="uq_private_chats_path"),
    )
    op.create_table(
        "chat_members",
        sa.Column("chat_id", _auto_id(), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("added_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "user_id", name="pk_chat_members"),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["private_chats.id"],
            ondelete="CASCADE",
            name="fk_chat_members_chat_id_private_chats",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["accounts.user_id"],
            ondelete="CASCADE",
            name="fk_chat_members_user_id_accounts",
        ),
    )
    op.create_index("ix_chat_members_user_id", "chat_members", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_chat_members_user_id", table_name="chat_members")
    op.drop_table("chat_members")
    op.drop_table("private_chats")
