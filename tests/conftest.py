"""Test-wide settings and shared fixtures."""

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["tests.support.database"]

# Shared CI machines are slow and uneven: judge properties by their outcome, never their speed.
settings.register_profile(
    "quire", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200
)
settings.load_profile("quire")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
