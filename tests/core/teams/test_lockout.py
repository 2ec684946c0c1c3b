"""Lockout: per username and per address, a sliding window, and address keys."""

from __future__ import annotations

import pytest

from quire.core.teams.lockout import LockoutPolicy, address_key, locked_until, lockout_ends

MINUTE = 60_000
POLICY = LockoutPolicy(per_account=3, per_address=5, window_ms=10 * MINUTE)


def test_fewer_failures_than_the_limit_lock_nothing() -> None:
    assert locked_until([1, 2], limit=3, window_ms=10 * MINUTE, now_ms=3) is None


def test_the_limit_within_the_window_locks_until_enough_failures_age_out() -> None:
    failures = [0, 1 * MINUTE, 2 * MINUTE, 3 * MINUTE]
    # The 3rd newest failure (at 1 minute) leaves the window at 11 minutes.
    assert locked_until(failures, limit=3, window_ms=10 * MINUTE, now_ms=4 * MINUTE) == (
        11 * MINUTE
    )
    assert locked_until(failures, limit=3, window_ms=10 * MINUTE, now_ms=11 * MINUTE) is None


def test_failures_outside_the_window_or_in_the_future_do_not_count() -> None:
    failures = [0, 1, 2, 10**12]
    assert locked_until(failures, limit=3, window_ms=10, now_ms=100) is None


def test_the_address_limit_locks_even_when_every_name_is_under_its_own() -> None:
    spray = [n * MINUTE for n in range(5)]
    assert lockout_ends(POLICY, account_failures=[], address_failures=spray, now_ms=5 * MINUTE) == (
        10 * MINUTE
    )


def test_the_later_of_the_two_locks_decides() -> None:
    ends = lockout_ends(
        POLICY,
        account_failures=[MINUTE, 2 * MINUTE, 3 * MINUTE],
        address_failures=[n * 1000 for n in range(5)],
        now_ms=3 * MINUTE,
    )
    assert ends == 11 * MINUTE


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7 ", "203.0.113.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("testclient", "unknown"),
        ("", "unknown"),
        (None, "unknown"),
    ],
)
def test_an_address_is_counted_by_its_key(address: str | None, key: str) -> None:
    assert address_key(address) == key
