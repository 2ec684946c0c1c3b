"""Test-wide settings."""

from hypothesis import HealthCheck, settings

# Shared CI machines are slow and uneven: judge properties by their outcome, never their speed.
settings.register_profile(
    "quire", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200
)
settings.load_profile("quire")
