"""One statement that inserts a row or, when a row with the same keys exists, updates it (or
leaves it), on both backends: so two writers of one row (two replicas among them) never
collide."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from quire.db.models import Base

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql


async def upsert(
    session: AsyncSession,
    model: type[Base],
    values: Mapping[str, Any],
    *,
    keys: tuple[str, ...],
    changed: Iterable[str] | None = None,
) -> None:
    """Insert a row, or update ``changed`` columns (all but the keys by default; none keeps
    the row as it is) of the row with the same keys."""
    columns = [name for name in values if name not in keys] if changed is None else list(changed)
    statement: postgresql.Insert | sqlite.Insert
    if session.get_bind().dialect.name == "postgresql":
        # Imported here: PostgreSQL's dialect takes tens of milliseconds to load, which a
        # server on SQLite (every laptop's) would pay on its start for nothing.
        from sqlalchemy.dialects import postgresql

        statement = postgresql.insert(model)
    else:
        statement = sqlite.insert(model)
    statement = statement.values(dict(values))
    if columns:
        upsert = statement.on_conflict_do_update(
            index_elements=list(keys),
            set_={name: statement.excluded[name] for name in columns},
        )
    else:
        upsert = statement.on_conflict_do_nothing(index_elements=list(keys))
    await session.execute(upsert)
