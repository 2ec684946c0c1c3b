"""A team server's people: accounts, sign-in, sessions, tokens and grants over one database,
and the access a signed-in account has on the served folders.

Built once per multi-mode server (``AppServices.team``); the ``quire user`` commands build the
same services over the same database, so a change made there counts on the server's next
request.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from quire.db.access_changes import QuickCounter, access_changes
from quire.db.engine import Database
from quire.db.private_chats import private_chats_for
from quire.services.users.access import GrantedAccess
from quire.services.users.accounts import Accounts
from quire.services.users.grants import Grants, reaching
from quire.services.users.identity import Identity
from quire.services.users.passwords import Passwords
from quire.services.users.sessions import BrowserSessions
from quire.services.users.sign_in import SignIn
from quire.services.users.tokens import Tokens


def workspace_names(folders: Sequence[Path]) -> tuple[tuple[Path, str], ...]:
    """Each served folder with the name grants use for it (its folder name, as
    ``GET /api/workspaces`` shows it), in NFC as grants store names: a folder whose name the
    disk holds in NFD (as macOS may) still matches its grants."""
    return tuple((folder, unicodedata.normalize("NFC", folder.name)) for folder in folders)


class Team:
    """The people of a team server and what they may reach."""

    def __init__(self, db: Database, folders: Sequence[Path], *, clock: Callable[[], int]) -> None:
        self._db = db
        self._workspaces = workspace_names(folders)
        passwords = Passwords()
        self.accounts = Accounts(db, passwords, clock=clock)
        self.sign_in = SignIn(db, passwords, clock=clock)
        self.sessions = BrowserSessions(db, clock=clock)
        self.tokens = Tokens(db, clock=clock)
        self.grants = Grants(db, clock=clock)
        path = db.engine.url.database
        self._quick = None
        if db.backend == "sqlite" and path and path != ":memory:":
            self._quick = QuickCounter(path)
            db.on_close(self._close_quick)

    async def _close_quick(self) -> None:
        if self._quick is not None:
            self._quick.close()

    async def changes(self) -> int:
        """The access-change counter: it moves with every change (by any process) that can
        alter a sign-in or an account's access, and with nothing else."""
        quick = None if self._quick is None else self._quick.read()
        if quick is not None:
            return quick
        async with self._db.session() as session:
            return await access_changes(session)

    async def access_of(self, identity: Identity) -> GrantedAccess:
        """What ``identity`` may reach now: every grant of its own and of its groups, less
        the private chats it is not a member of."""
        async with self._db.session() as session:
            grants = await reaching(session, identity.user_id)
            private = await private_chats_for(session, identity.user_id)
        return GrantedAccess(
            account=identity,
            grants=grants,
            workspaces=self._workspaces,
            hidden=frozenset(Path(chat.path) for chat in private if not chat.member),
            joined=frozenset(Path(chat.path) for chat in private if chat.member),
            born_private=frozenset(Path(chat.path) for chat in private if chat.born_private),
        )
