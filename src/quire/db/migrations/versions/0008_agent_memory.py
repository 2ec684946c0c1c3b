"""What agents were given and previewed, for replicas: the live texts given out under their
versions and the stream-edit previews, so a rewrite or an apply may go through any replica.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "given_versions",
        sa.Column("doc_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("given_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("doc_id", "version", name="pk_given_versions"),
    )
    op.create_table(
        "edit_previews",
        sa.Column("edit_id", sa.String(32), nullable=False),
        sa.Column("doc_id", sa.String(64), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("find", sa.Text(), nullable=False),
        sa.Column("replace", sa.Text(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("match_count", sa.Integer(), nullable=False),
        sa.Column("base", sa.String(32), nullable=False),
        sa.Column("applied", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("made_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("edit_id", name="pk_edit_previews"),
    )
    op.create_index("ix_edit_previews_made_at_ms", "edit_previews", ["made_at_ms"])


def downgrade() -> None:
    op.drop_index("ix_edit_previews_made_at_ms", table_name="edit_previews")
    op.drop_table("edit_previews")
    op.drop_table("given_versions")
