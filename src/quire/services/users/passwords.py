"""Hashing and checking passwords with argon2id (argon2-cffi), off the event loop.

Owns the parameters and how many hashes run at once; never logs or returns a password.

Parameters: RFC 9106's second recommended option ("low memory"): argon2id, 3 passes over
64 MiB with 4 lanes, a 16-byte random salt and a 32-byte tag; about 50 ms on one core of a
current machine. At most ``HASHES_AT_ONCE`` hashes run together, so a burst of sign-ins costs
at most 4 x 64 MiB of memory. A stored hash with older parameters is replaced by one with these
at the next successful sign-in.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

TIME_COST = 3
MEMORY_COST_KIB = 64 * 1024
PARALLELISM = 4
HASH_LEN = 32
SALT_LEN = 16
HASHES_AT_ONCE = 4


@dataclass(frozen=True)
class Checked:
    """A password check's outcome: whether it matched, and the hash to store in place of the
    old one when its parameters are out of date (None: keep it)."""

    matched: bool
    rehashed: str | None = None


class Passwords:
    """argon2id hashes; pass a cheaper ``hasher`` in tests only."""

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self._hasher = hasher or PasswordHasher(
            time_cost=TIME_COST,
            memory_cost=MEMORY_COST_KIB,
            parallelism=PARALLELISM,
            hash_len=HASH_LEN,
            salt_len=SALT_LEN,
            type=Type.ID,
        )
        self._limiter = anyio.CapacityLimiter(HASHES_AT_ONCE)
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        """The argon2id hash (PHC string, salt included) of ``password``."""
        return await anyio.to_thread.run_sync(self._hasher.hash, password, limiter=self._limiter)

    async def check(self, hashed: str | None, password: str) -> Checked:
        """Whether ``password`` matches ``hashed``. With no hash (an unknown username, or an
        account with no password) a dummy hash is checked all the same, so the answer takes
        as long whether or not the account exists, and is always False."""
        if hashed is None:
            if self._dummy is None:
                self._dummy = await self.hash("no account has this password")
            await anyio.to_thread.run_sync(
                self._verify, self._dummy, password, limiter=self._limiter
            )
            return Checked(False)
        matched = await anyio.to_thread.run_sync(
            self._verify, hashed, password, limiter=self._limiter
        )
        if not matched or not self._hasher.check_needs_rehash(hashed):
            return Checked(matched)
        return Checked(True, await self.hash(password))

    def _verify(self, hashed: str, password: str) -> bool:
        try:
            return self._hasher.verify(hashed, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
