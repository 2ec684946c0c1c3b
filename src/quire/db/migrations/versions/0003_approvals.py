"""Agent approvals: the permission requests agents' hooks send, and the notices.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

USER_ID = sa.String(128)
SESSION_ID = sa.String(200)
APPROVAL_ID = sa.String(64)
LABEL = sa.String(64)
HASH = sa.String(64)
WORD = sa.String(32)


def _ms() -> sa.BigInteger:
    return sa.BigInteger()


def upgrade() -> None:
    op.create_table(
        "approvals",
        sa.Column("id", APPROVAL_ID, nullable=False),
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("harness", WORD, nullable=False),
        sa.Column("machine_label", LABEL, nullable=False),
        sa.Column("session_id", SESSION_ID, nullable=False),
        sa.Column("cwd", sa.Text(), nullable=False),
        sa.Column("tool_name", sa.Text(), nullable=False),
        sa.Column("tool_input", sa.Text(), nullable=False),
        sa.Column("suggestions", sa.Text(), nullable=False),
        sa.Column("input_hash", HASH, nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.Column("deadline_ms", _ms(), nullable=False),
        sa.Column("status", WORD, nullable=False),
        sa.Column("decision", sa.Text(), nullable=True),
        sa.Column("decided_at_ms", _ms(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_approvals"),
        sa.CheckConstraint(
            "status IN ('pending', 'decided', 'expired', 'answered')",
            name="ck_approvals_status",
        ),
    )
    op.create_index(
        "ix_approvals_user_id_status_created_at_ms",
        "approvals",
        ["user_id", "status", "created_at_ms"],
    )
    op.create_index("ix_approvals_session_id", "approvals", ["session_id"])
    op.create_table(
        "notices",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("session_id", SESSION_ID, nullable=False),
        sa.Column("kind", WORD, nullable=False),
        sa.Column("harness", WORD, nullable=False),
        sa.Column("machine_label", LABEL, nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at_ms", _ms(), nullable=False),
        sa.Column("expires_at_ms", _ms(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "session_id", "kind", name="pk_notices"),
        sa.CheckConstraint(
            "kind IN ('terminal', 'idle', 'stopped', 'other')", name="ck_notices_kind"
        ),
    )
    op.create_index("ix_notices_user_id_expires_at_ms", "notices", ["user_id", "expires_at_ms"])


def downgrade() -> None:
    op.drop_index("ix_notices_user_id_expires_at_ms", table_name="notices")
    op.drop_table("notices")
    op.drop_index("ix_approvals_session_id", table_name="approvals")
    op.drop_index("ix_approvals_user_id_status_created_at_ms", table_name="approvals")
    op.drop_table("approvals")
