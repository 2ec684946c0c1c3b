"""A counter of the changes that can alter who a credential signs in as, or what an account
may reach: accounts, tokens, sessions, groups, grants and private chats. Triggers move it in
the same transaction as the change, whichever process makes it, so a server can keep sign-ins
in memory and know from one small read whether they still hold. Bookkeeping writes (a token's
last use, a session's last request) leave it alone.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WATCHED: dict[str, tuple[str, ...] | None] = {
    # table: the columns whose update counts (None: any update)
    "accounts": None,
    "api_tokens": ("user_id", "token_hash", "expires_at_ms", "revoked_at_ms"),
    "browser_sessions": ("id_hash", "user_id"),
    "access_groups": None,
    "group_members": None,
    "grants": None,
    "private_chats": None,
    "chat_members": None,
}
BUMP = "UPDATE access_changes SET counter = counter + 1 WHERE id = 1"


def upgrade() -> None:
    op.create_table(
        "access_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("counter", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_access_changes"),
    )
    op.execute("INSERT INTO access_changes (id, counter) VALUES (1, 0)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION quire_access_changed() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN {BUMP}; RETURN NULL; END $$"
        )
        for table, columns in WATCHED.items():
            update = "UPDATE" if columns is None else f"UPDATE OF {', '.join(columns)}"
            op.execute(
                f"CREATE TRIGGER {table}_access_changed AFTER INSERT OR DELETE OR {update} "
                f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION quire_access_changed()"
            )
        return
    for table, columns in WATCHED.items():
        update = "UPDATE" if columns is None else f"UPDATE OF {', '.join(columns)}"
        for event in ("INSERT", "DELETE", update):
            name = f"{table}_access_changed_{event.split()[0].lower()}"
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {BUMP}; END")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in WATCHED:
            op.execute(f"DROP TRIGGER {table}_access_changed ON {table}")
        op.execute("DROP FUNCTION quire_access_changed()")
    else:
        for table in WATCHED:
            for event in ("insert", "delete", "update"):
                op.execute(f"DROP TRIGGER {table}_access_changed_{event}")
    op.drop_table("access_changes")
