"""The shape of API tokens and browser sessions, and how long each lives.

Pure rules: the services draw the random parts and keep only SHA-256 digests. A token reads
``qt_<id>_<secret>``: the id (12 hex digits, not secret) finds its row, the digest of the
whole token is then compared in constant time, so a lookup's timing says nothing about the
secret.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from quire.core.errors import InvalidArgument

TOKEN_PREFIX = "qt_"
_TOKEN = re.compile(r"qt_(?P<id>[0-9a-f]{12})_(?P<secret>[A-Za-z0-9_-]{43})\Z")
_DURATION = re.compile(r"(?P<count>[1-9][0-9]{0,4})(?P<unit>[hdw])\Z")
_UNIT_MS = {"h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000}
MAX_TOKEN_LIFETIME_MS = 3 * 366 * 86_400_000


@dataclass(frozen=True)
class SessionPolicy:
    """A browser session ends after ``idle_ms`` unused or ``lifetime_ms`` after sign-in;
    its last-seen time is written at most once per ``touch_ms``."""

    idle_ms: int = 7 * 86_400_000
    lifetime_ms: int = 30 * 86_400_000
    touch_ms: int = 60_000


DEFAULT_SESSION_POLICY = SessionPolicy()


def digest(secret: str) -> str:
    """The SHA-256 hex digest stored in place of a token or session id."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def token_text(token_id: str, secret: str) -> str:
    """The token a person is shown once, from its id and secret."""
    return f"{TOKEN_PREFIX}{token_id}_{secret}"


def token_id_of(token: str) -> str | None:
    """The id part of a well-formed token, None for anything else."""
    found = _TOKEN.match(token)
    return None if found is None else found.group("id")


def session_alive(
    policy: SessionPolicy, *, created_at_ms: int, last_seen_at_ms: int, now_ms: int
) -> bool:
    """Whether a session created and last seen at those times may still be used."""
    return now_ms - last_seen_at_ms < policy.idle_ms and now_ms - created_at_ms < policy.lifetime_ms


def token_expiry(raw: str, *, now_ms: int) -> int:
    """When a token given ``--expires raw`` expires, in epoch milliseconds.

    ``raw`` is a duration (``12h``, ``30d``, ``8w``) or a date (``2027-01-31``, the end of
    that day in UTC). Raises InvalidArgument for anything else, a time not in the future, or
    one more than three years ahead.
    """
    text = raw.strip().lower()
    found = _DURATION.match(text)
    if found is not None:
        expires = now_ms + int(found.group("count")) * _UNIT_MS[found.group("unit")]
    else:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise _bad_expiry(raw, "is neither a duration nor a date") from None
        end = datetime(day.year, day.month, day.day, 23, 59, 59, tzinfo=UTC)
        expires = int(end.timestamp() * 1000)
    if expires <= now_ms:
        raise _bad_expiry(raw, "is in the past")
    if expires - now_ms > MAX_TOKEN_LIFETIME_MS:
        raise _bad_expiry(raw, "is more than three years ahead")
    return expires


def _bad_expiry(raw: str, why: str) -> InvalidArgument:
    return InvalidArgument(
        f"The expiry {raw!r} {why}: give a duration such as 12h, 30d or 8w, or a date such "
        "as 2027-01-31 (tokens end at that day's end, UTC), at most three years ahead.",
        argument="expires",
    )
