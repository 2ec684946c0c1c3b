"""The quiet step's timer corrects itself: a timer that fires a fixed time late (a busy event
loop, the selector's rounding) is started that much early after a few batches, and the
correction stays within its bounds whatever it is told."""

from __future__ import annotations

import pytest

from quire.vault import watch
from quire.vault.watch import _Batches


def _batches() -> _Batches:
    # The notify loop and its stop signal are not used by the timer's correction.
    return _Batches(None, None, step_ms=50, tick_ms=1, debounce_ms=1600)  # type: ignore[arg-type]


@pytest.mark.parametrize("lateness_ms", [0.0, 0.3, 0.8, 1.3, 1.9])
def test_a_timer_late_by_a_fixed_time_is_started_that_much_early(lateness_ms: float) -> None:
    lateness = lateness_ms / 1000
    with _batches() as batches:
        for _batch in range(60):
            # Started ``early`` before its due time and fired ``lateness`` after that.
            batches._correct(lateness - batches._early_s)
        assert batches._early_s == pytest.approx(lateness, abs=1e-5)


def test_the_correction_stays_within_its_bounds() -> None:
    with _batches() as batches:
        for _batch in range(100):
            batches._correct(0.5)  # half a second late, again and again
        assert batches._early_s == watch._TIMER_EARLY_MOST_S
        for _batch in range(100):
            batches._correct(-0.5)
        assert batches._early_s == 0.0
