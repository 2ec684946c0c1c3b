"""Which database URL the server uses: the kinds Quire can open, read for their async drivers.

Owns the check of a ``--db`` / ``QUIRE_DB`` / ``server.db`` value and the default (SQLite in the
state folder); the database layer is handed the URL this returns. Pure text work on the
standard library, so a client that reads settings never loads SQLAlchemy; it never shows a
password.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from quire.core.errors import InvalidArgument

DB_FILE_NAME = "quire.db"
SQLITE_DRIVER = "sqlite+aiosqlite"
POSTGRES_DRIVER = "postgresql+asyncpg"
_SQLITE_SCHEMES = frozenset({"sqlite", SQLITE_DRIVER})
POSTGRES_SCHEMES = frozenset({"postgresql", "postgres", POSTGRES_DRIVER})
KINDS_THAT_WORK = (
    f"use {SQLITE_DRIVER}:///path/to/quire.db for SQLite, or "
    f"{POSTGRES_DRIVER}://user:password@host:5432/dbname for PostgreSQL "
    "(postgresql:// and postgres:// are read as the same)"
)
# The shape SQLAlchemy's make_url reads: scheme://[user[:password]@][host][:port][/database][?query]
_URL = re.compile(
    r"(?P<scheme>[\w+]+)://"
    r"(?:(?P<user>[^:/]*)(?::(?P<password>[^@]*))?@)?"
    r"(?:\[(?P<ipv6>[^/?]+)\]|(?P<host>[^/:?]+))?"
    r"(?::(?P<port>[^/?]*))?"
    r"(?:/(?P<database>[^?]*))?"
    r"(?:\?(?P<query>.*))?\Z",
    re.S,
)


def database_url(url: str | None, state_dir: Path) -> str:
    """The URL Quire connects to for ``url`` (``None``: SQLite in ``state_dir``).

    postgresql:// and postgres:// become postgresql+asyncpg://, sqlite:// becomes
    sqlite+aiosqlite://; any other kind raises InvalidArgument naming the kinds that work.
    """
    if url is None:
        return f"{SQLITE_DRIVER}:///{quote(str(state_dir / DB_FILE_NAME), safe='/')}"
    text = url.strip()
    if not text:
        raise InvalidArgument(f"The database URL is empty: {KINDS_THAT_WORK}.", argument="db")
    parts = _URL.match(text)
    port = parts.group("port") if parts else None
    if parts is None or (port and not port.isdecimal()):
        raise InvalidArgument(
            f"The database URL {mask_unparsed(text)!r} is not a URL: {KINDS_THAT_WORK}.",
            argument="db",
        )
    scheme, rest = parts.group("scheme").lower(), text.partition("://")[2]
    if scheme in POSTGRES_SCHEMES:
        return f"{POSTGRES_DRIVER}://{rest}"
    if scheme in _SQLITE_SCHEMES:
        database = parts.group("database")
        if database in (None, "", ":memory:") or database.startswith("file:"):
            raise InvalidArgument(
                f"The SQLite URL {masked(text)!r} names no file; Quire keeps its state "
                f"in a file that outlives the server: {KINDS_THAT_WORK}.",
                argument="db",
            )
        return f"{SQLITE_DRIVER}://{rest}"
    raise InvalidArgument(
        f"Quire cannot use the database URL {masked(text)!r}: {KINDS_THAT_WORK}.",
        argument="db",
    )


def masked(url: str) -> str:
    """``url`` with its password replaced by ***, safe to show."""
    parts = _URL.match(url)
    if parts is None or parts.group("password") is None:
        return mask_unparsed(url)
    start, end = parts.span("password")
    return f"{url[:start]}***{url[end:]}"


def mask_unparsed(url: str) -> str:
    """Mask what could be a password in text that is not a URL Quire can read."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url if "@" not in url else "***"
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"
