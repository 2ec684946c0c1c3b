"""The deployment's name (table ``deployment``): the same for every server on one database."""

from __future__ import annotations

from sqlalchemy import select

from quire.db.engine import Database
from quire.db.models import Deployment


async def deployment_name(database: Database) -> str:
    """The name migration 0007 gave this database."""
    async with database.session() as session:
        name = await session.scalar(select(Deployment.name).where(Deployment.id == 1))
    if name is None:
        raise RuntimeError("the database has no deployment row; it was not migrated")
    return name
