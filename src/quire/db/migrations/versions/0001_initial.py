"""The first schema: users, windows, tabs, recents, live buffers and reviews.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

USER_ID = sa.String(128)
DOC_ID = sa.String(64)
HASH = sa.String(64)
REVIEW_ID = sa.String(64)
WORD = sa.String(32)
MS = sa.BigInteger()


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", USER_ID, nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
    )
    op.create_table(
        "windows",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("active_doc_id", DOC_ID, nullable=True),
        sa.Column("present", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("updated_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_windows"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_windows_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "tabs",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("doc_id", DOC_ID, nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("view", WORD, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("opened_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "doc_id", name="pk_tabs"),
        sa.CheckConstraint("view IN ('read', 'edit', 'source')", name="ck_tabs_view"),
    )
    op.create_index("ix_tabs_user_id_position", "tabs", ["user_id", "position"])
    op.create_table(
        "recents",
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("opened_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "path", name="pk_recents"),
    )
    op.create_index("ix_recents_user_id_opened_at_ms", "recents", ["user_id", "opened_at_ms"])
    op.create_table(
        "buffers",
        sa.Column("doc_id", DOC_ID, nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("base_hash", HASH, nullable=False),
        sa.Column("dirty", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("updated_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("doc_id", name="pk_buffers"),
        sa.UniqueConstraint("path", name="uq_buffers_path"),
    )
    op.create_table(
        "buffer_updates",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("doc_id", DOC_ID, nullable=False),
        sa.Column("update", sa.LargeBinary(), nullable=False),
        sa.Column("created_at_ms", MS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_buffer_updates"),
        sa.ForeignKeyConstraint(
            ["doc_id"],
            ["buffers.doc_id"],
            name="fk_buffer_updates_doc_id_buffers",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_buffer_updates_doc_id", "buffer_updates", ["doc_id"])
    op.create_table(
        "reviews",
        sa.Column("id", REVIEW_ID, nullable=False),
        sa.Column("user_id", USER_ID, nullable=False),
        sa.Column("path", sa.Text(), nullable=True),
        sa.Column("content", sa.Text(), nullable=True),
        sa.Column("content_hash", HASH, nullable=False),
        sa.Column("requested_by", sa.Text(), nullable=False),
        sa.Column("timeout_ms", sa.Integer(), nullable=False),
        sa.Column("created_at_ms", MS, nullable=False),
        sa.Column("deadline_ms", MS, nullable=False),
        sa.Column("status", WORD, nullable=False),
        sa.Column("verdict", WORD, nullable=True),
        sa.Column("comments", sa.Text(), nullable=True),
        sa.Column("decided_at_ms", MS, nullable=True),
        sa.Column("late", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("superseded_by", REVIEW_ID, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_reviews"),
        sa.CheckConstraint(
            "status IN ('pending', 'decided', 'timeout', 'superseded')", name="ck_reviews_status"
        ),
        sa.CheckConstraint(
            "verdict IS NULL OR verdict IN "
            "('approved', 'changes_requested', 'dismissed', 'timeout', 'superseded')",
            name="ck_reviews_verdict",
        ),
    )
    op.create_index("ix_reviews_user_id_created_at_ms", "reviews", ["user_id", "created_at_ms"])
    op.create_index("ix_reviews_path", "reviews", ["path"])


def downgrade() -> None:
    op.drop_table("reviews")
    op.drop_table("buffer_updates")
    op.drop_table("buffers")
    op.drop_table("recents")
    op.drop_table("tabs")
    op.drop_table("windows")
    op.drop_table("users")
