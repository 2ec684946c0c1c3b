"""The users services over one test database, with a cheap hasher and a clock the test moves."""

from __future__ import annotations

from dataclasses import dataclass, field

from argon2 import PasswordHasher

from quire.db.engine import Database
from quire.services.users.accounts import Accounts
from quire.services.users.grants import Grants
from quire.services.users.passwords import Passwords
from quire.services.users.sessions import BrowserSessions
from quire.services.users.sign_in import SignIn
from quire.services.users.tokens import Tokens

PASSWORD = "correct horse battery staple"
START_MS = 1_800_000_000_000


def cheap_passwords() -> Passwords:
    """argon2id with the smallest costs, so tests run fast (never in the product)."""
    return Passwords(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


@dataclass
class Clock:
    """A clock in epoch milliseconds that moves only when told."""

    now: int = START_MS

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@dataclass
class World:
    """Every users service over one database and one clock."""

    database: Database
    clock: Clock = field(default_factory=Clock)
    passwords: Passwords = field(default_factory=cheap_passwords)

    def __post_init__(self) -> None:
        self.accounts = Accounts(self.database, self.passwords, clock=self.clock)
        self.tokens = Tokens(self.database, clock=self.clock)
        self.sessions = BrowserSessions(self.database, clock=self.clock)
        self.sign_in = SignIn(self.database, self.passwords, clock=self.clock)
        self.grants = Grants(self.database, clock=self.clock)
