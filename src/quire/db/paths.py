"""SQL over stored file paths: a path and everything below it, and where a move takes them.

Expressions only, for the query modules to build their statements with; paths arrive as the
resolved absolute text the services store.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Text, func, literal
from sqlalchemy.orm import InstrumentedAttribute

PathColumn = ColumnElement[str] | InstrumentedAttribute[str] | InstrumentedAttribute[str | None]
"""A column holding a path (a nullable one too: its NULLs never match)."""


def at_or_below(column: PathColumn, path: str) -> ColumnElement[bool]:
    """Rows whose ``column`` is ``path`` or a path below it (a folder's files)."""
    prefix = path.rstrip("/") + "/"
    return (column == path) | (func.substr(column, 1, len(prefix), type_=Text) == prefix)


def moved_below(column: PathColumn, source: str, target: str) -> ColumnElement[str]:
    """The value ``column`` takes when ``source`` is renamed or moved to ``target``; for rows
    ``at_or_below(column, source)`` only."""
    rest = func.substr(column, len(source.rstrip("/")) + 1, type_=Text)
    return literal(target.rstrip("/"), Text).concat(rest)
