"""When repeated failed sign-ins lock an account name or a client address out for a while.

Pure rules over failure times (epoch milliseconds) the caller stored; no clock, no I/O.
Failures are counted per attempted username (whether or not such an account exists, so a lock
tells nothing about which names exist) and per client address (IPv6 by its /64 network, which
one machine usually owns whole), each within a sliding window. A lock lasts until enough of
the failures that caused it leave the window; attempts refused while locked are not counted,
so a locked name unlocks on time however hard someone keeps trying.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class LockoutPolicy:
    """How many failures within ``window_ms`` lock a username, and a client address."""

    per_account: int = 5
    per_address: int = 20
    window_ms: int = 15 * 60 * 1000


DEFAULT_POLICY = LockoutPolicy()


def locked_until(failures: Sequence[int], *, limit: int, window_ms: int, now_ms: int) -> int | None:
    """When the lock ``failures`` (times, any order) cause ends, or None when they cause none.

    ``limit`` failures inside the window lock; the lock ends when the ``limit``-th newest
    failure leaves the window, since then fewer than ``limit`` remain in it.
    """
    recent = sorted(at for at in failures if now_ms - window_ms < at <= now_ms)
    if limit <= 0 or len(recent) < limit:
        return None
    return recent[-limit] + window_ms


def lockout_ends(
    policy: LockoutPolicy,
    *,
    account_failures: Sequence[int],
    address_failures: Sequence[int],
    now_ms: int,
) -> int | None:
    """The time a sign-in may be tried again, or None when neither the username nor the
    address is locked now."""
    ends = [
        end
        for end in (
            locked_until(
                account_failures,
                limit=policy.per_account,
                window_ms=policy.window_ms,
                now_ms=now_ms,
            ),
            locked_until(
                address_failures,
                limit=policy.per_address,
                window_ms=policy.window_ms,
                now_ms=now_ms,
            ),
        )
        if end is not None
    ]
    return max(ends) if ends else None


def address_key(address: str | None) -> str:
    """The key failures from ``address`` are counted under: an IPv4 address as it is, an
    IPv6 address by its /64 network (an IPv4-mapped one as its IPv4 address), anything
    unreadable (or None) as ``unknown``, which all such clients share."""
    if not address:
        return "unknown"
    try:
        parsed = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)
