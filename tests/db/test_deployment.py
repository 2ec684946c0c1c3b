"""Every database is born with a deployment name of its own, kept as long as it lives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quire.db.deployment import deployment_name
from quire.db.engine import Database, open_database
from quire.settings.database import database_url

pytestmark = pytest.mark.anyio


async def test_a_database_keeps_its_name_and_another_gets_another(
    database: Database, tmp_path: Path
) -> None:
    name = await deployment_name(database)
    assert re.fullmatch(r"[0-9a-f]{32}", name)
    assert await deployment_name(database) == name
    other = await open_database(database_url(None, tmp_path / "other"))
    try:
        assert await deployment_name(other) != name
    finally:
        await other.close()
