"""Test-wide settings and shared fixtures."""

import pytest
from hypothesis import HealthCheck, settings

from tests.support.workers import heavy_files_first

pytest_plugins = ["tests.support.database"]

# Shared CI machines are slow and uneven: judge properties by their outcome, never their speed.
settings.register_profile(
    "quire", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200
)
settings.load_profile("quire")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the browser test files go first (see heavy_files_first); a serial
    run keeps the files in their usual order."""
    if hasattr(config, "workerinput"):
        items[:] = heavy_files_first(items)
