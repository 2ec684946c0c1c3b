"""The deployment's name: one random id made with the database, the same for every server on
it and different for every other database, so replicas sharing a Redis with another Quire (or a
test) keep their signals to themselves.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        "deployment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_deployment"),
    )
    op.bulk_insert(table, [{"id": 1, "name": secrets.token_hex(16)}])


def downgrade() -> None:
    op.drop_table("deployment")
