"""A database URL setting: the kinds Quire opens, read for async drivers, no password shown."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from quire.core.errors import InvalidArgument
from quire.db import engine
from quire.settings.database import POSTGRES_DRIVER, SQLITE_DRIVER, database_url, masked

SECRET = "s3cr3t-Pa55word"


def _all_text(err: BaseException) -> str:
    parts = ["".join(traceback.format_exception(err)), repr(err)]
    seen: BaseException | None = err
    while seen is not None:
        parts.append(str(seen))
        seen = seen.__cause__ or seen.__context__
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "postgresql+asyncpg://quire:pw@db.example:5432/quire",
            "postgresql+asyncpg://quire:pw@db.example:5432/quire",
        ),
        (
            "postgresql://quire:pw@db.example/quire",
            "postgresql+asyncpg://quire:pw@db.example/quire",
        ),
        ("postgres://quire@localhost/quire", "postgresql+asyncpg://quire@localhost/quire"),
        ("POSTGRES://quire@localhost/quire", "postgresql+asyncpg://quire@localhost/quire"),
        ("  postgresql://h/d  ", "postgresql+asyncpg://h/d"),
        ("sqlite:////var/lib/quire/q.db", "sqlite+aiosqlite:////var/lib/quire/q.db"),
        ("sqlite+aiosqlite:////tmp/q.db", "sqlite+aiosqlite:////tmp/q.db"),
        ("sqlite+aiosqlite:///relative.db", "sqlite+aiosqlite:///relative.db"),
    ],
)
def test_a_url_of_a_kind_that_works_is_read_for_its_async_driver(url: str, expected: str) -> None:
    assert database_url(url, Path("/state")) == expected


@pytest.mark.parametrize("folder", ["state dir", "a?b", "100%", "at@sign#hash"])
def test_no_url_means_sqlite_in_the_state_folder(tmp_path: Path, folder: str) -> None:
    url = make_url(database_url(None, tmp_path / folder))
    assert url.drivername == "sqlite+aiosqlite"
    assert url.database == str(tmp_path / folder / "quire.db")


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "nonsense",
        "\x00",
        "mysql://root:s3cr3t-Pa55word@db/quire",
        "mysql+aiomysql://root:s3cr3t-Pa55word@db/quire",
        "postgresql+psycopg2://quire:s3cr3t-Pa55word@db/quire",
        "oracle://scott:s3cr3t-Pa55word@db/orcl",
        "http://user:s3cr3t-Pa55word@example.com/",
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite+aiosqlite://",
        "://user:s3cr3t-Pa55word@host",
        "user:s3cr3t-Pa55word@host/db",
        "postgresql://user:s3cr3t-Pa55word@host:notaport/db",
    ],
)
def test_a_url_of_another_kind_is_refused_naming_the_kinds_that_work(url: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        database_url(url, Path("/state"))
    assert "sqlite+aiosqlite:///" in caught.value.message
    assert "postgresql+asyncpg://" in caught.value.message
    assert caught.value.argument == "db"
    assert SECRET not in _all_text(caught.value)


def test_the_drivers_named_are_the_ones_the_database_layer_opens() -> None:
    assert (SQLITE_DRIVER, POSTGRES_DRIVER) == (engine.SQLITE_DRIVER, engine.POSTGRES_DRIVER)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://quire:pw@db.example:5432/quire",
        "postgres://quire@localhost/quire",
        "sqlite:////var/lib/quire/q.db",
        "postgresql://u:p%40ss@h/d?ssl=require",
    ],
)
def test_sqlalchemy_reads_the_url_as_the_person_wrote_it(url: str) -> None:
    given, read = make_url(url), make_url(database_url(url, Path("/state")))
    assert (read.username, read.password, read.host, read.port, read.database, read.query) == (
        given.username, given.password, given.host, given.port, given.database, given.query
    )  # fmt: skip


def test_a_shown_url_has_its_password_masked() -> None:
    assert masked(f"postgresql://quire:{SECRET}@db/quire") == "postgresql://quire:***@db/quire"
    assert masked("postgresql://quire@db/quire") == "postgresql://quire@db/quire"
