"""Chats: read positions per reader, agent sessions for the keepalive hook, and pins.

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

USER_ID = sa.String(128)
READER = sa.String(200)
SESSION_ID = sa.String(200)
WORD = sa.String(32)
MS = sa.BigInteger()


def upgrade() -> None:
    op.create_table(
        "chat_cursors",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("chat_path", sa.Text(), nullable=False),
        sa.Column("reader", READER, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("updated_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "chat_path", "reader", name="pk_chat_cursors"),
    )
    op.create_table(
        "chat_sessions",
        sa.Column("session_id", SESSION_ID, nullable=False),
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("chat_path", sa.Text(), nullable=False),
        sa.Column("reader", READER, nullable=False),
        sa.Column("last_kind", WORD, nullable=False),
        sa.Column("wait_command", sa.Text(), nullable=True),
        sa.Column("updated_at_ms", MS, nullable=False),
        sa.Column("stop_times", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", name="pk_chat_sessions"),
        sa.CheckConstraint(
            "last_kind IN ('wait', 'post', 'read', 'leave')", name="ck_chat_sessions_last_kind"
        ),
    )
    op.create_table(
        "chat_pins",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("chat_path", sa.Text(), nullable=False),
        sa.Column("pinned_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "chat_path", name="pk_chat_pins"),
    )


def downgrade() -> None:
    op.drop_table("chat_pins")
    op.drop_table("chat_sessions")
    op.drop_table("chat_cursors")
