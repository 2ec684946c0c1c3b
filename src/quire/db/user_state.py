"""What a person leaves behind in the database under their name: their window, reviews,
approvals, chat read positions, sessions and pins, and notices.

These rows are keyed by the name a request signs in as (the username in multi mode), so an
account deleted and later made again under the same name would find them. Deleting an account
deletes them in the same transaction (``quire.services.users.accounts``).
"""

from __future__ import annotations

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import (
    Approval,
    ChatCursor,
    ChatPin,
    ChatSession,
    Notice,
    Recent,
    Review,
    Tab,
    User,
    Window,
)

KEYED_BY_NAME = (Window, Tab, Recent, Review, Approval, Notice, ChatCursor, ChatSession, ChatPin)
"""The tables holding a person's rows under the name they sign in as."""


async def forget_user_state(session: AsyncSession, name: str) -> None:
    """Delete every row kept for the person signed in as ``name``, and their user row."""
    for table in KEYED_BY_NAME:
        await session.execute(delete(table).where(table.user_id == name))
    await session.execute(delete(User).where(User.id == name))
