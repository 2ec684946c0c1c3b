"""Every request an account has open, so taking its access away ends them at once.

In multi mode each account request (a WebSocket for live editing or events, a long wait for a
review or a chat message, or a plain request) runs inside a cancel scope kept here under the
credential it signed in with. ``recheck`` signs every open credential in again: one that no
longer signs in (a revoked or expired token, an ended session, a disabled or deleted account)
or whose access changed (a grant given or taken) has its requests cancelled; a WebSocket is
then closed with code 4401 or 4403, an HTTP request that had not answered yet gets 401 or 403.

Changes made in this server call ``recheck`` at once; changes made by ``quire user`` in another
process are found by the loop ``watching`` runs while anything is open: every ``RECHECK_S`` it
reads the access-change counter, and signs the open credentials in again when it moved (or
every ``EXPIRY_RECHECK_S`` regardless, for expiry times).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quire.core.teams.grants import includes
from quire.services.users.access import Access, GrantedAccess
from quire.web.auth import WS_FORBIDDEN, WS_UNAUTHORIZED, Credential, SignedIn, TeamSignIn
from quire.web.errors import error_response
from quire.web.events import CLOSE_RECONNECT, EVENTS_PATH
from quire.web.sync import SYNC_PATH

logger = logging.getLogger(__name__)

RECHECK_S = 1.0
"""How often the access-change counter is looked at for open requests: a change made by
another process ends them within this long."""
EXPIRY_RECHECK_S = 30.0
"""How often open requests are signed in again with no change counted, for the times that
end a credential (a token's expiry, a session's idle limit): those are given in days."""

DOCUMENTS_PREFIX = SYNC_PATH.removesuffix("{doc_id}")
"""Where the live documents' sockets are (``/ws/documents/``)."""

ENDED = "Your access was taken away: sign in again, or ask a workspace admin."
GREW = "Your access grew: reconnect and reload the window state."


@dataclass(eq=False)
class _Open:
    """One running request: how it signed in, and how to stop it."""

    signed: SignedIn
    scope: anyio.CancelScope
    ended: str | None = None
    """Why it was stopped: ``signed-out``, ``access-changed`` or ``access-grew`` (None while
    it runs)."""
    reloads: bool = False
    """A window's event stream (``/ws/events``) or a live document's socket: ended when the
    account's grants grow too, so the window reconnects, reloads and shows what it was just
    granted, and an editor that could only read a document may change it once it is back."""


@dataclass
class OpenConnections:
    """The open requests of accounts, by credential."""

    sign_in: TeamSignIn
    _open: dict[Credential, set[_Open]] = field(default_factory=dict)
    _wake: anyio.Event = field(default_factory=anyio.Event)
    _scope_type: type[anyio.CancelScope] | None = None
    """The running backend's cancel scope class: ``anyio.CancelScope()`` looks the backend up
    on every call (a third of what watching a request costs), and it never changes while the
    app runs."""

    def __len__(self) -> int:
        return sum(len(items) for items in self._open.values())

    async def run(
        self, signed: SignedIn, app: ASGIApp, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Serve the request, stopping it if its credential or access is taken away."""
        assert signed.credential is not None
        started = closed = False
        reloads = scope["type"] == "websocket" and _reconnects(str(scope.get("path", "")))
        if self._scope_type is None:
            self._scope_type = type(anyio.CancelScope())
        item = _Open(signed, self._scope_type(), reloads=reloads)

        async def watched_send(message: Message) -> None:
            nonlocal started, closed
            if message["type"] in ("http.response.start", "websocket.accept"):
                started = True
            if message["type"] == "websocket.close" or message["type"] == "websocket.send":
                started = True
            if message["type"] == "websocket.close":
                if closed:
                    return
                closed = True
                if item.ended is not None:
                    # The route's own clean-up closes its socket as it is cancelled (often
                    # with 1000): the client must learn why instead.
                    message = _close_message(item.ended)
            await send(message)

        self._open.setdefault(signed.credential, set()).add(item)
        self._wake.set()
        try:
            with item.scope:
                await app(scope, receive, watched_send)
        finally:
            items = self._open.get(signed.credential)
            if items is not None:
                items.discard(item)
                if not items:
                    del self._open[signed.credential]
        if item.ended is not None and not closed:
            await _answer_ended(scope, send, item.ended, started=started)

    async def recheck(self, *, only: Callable[[SignedIn], bool] = lambda signed: True) -> int:
        """Sign every open credential in again (those ``only`` picks) and stop the requests
        whose credential no longer signs in or whose access changed; how many were stopped."""
        stopped = 0
        for credential, items in list(self._open.items()):
            picked = [item for item in items if only(item.signed)]
            if not picked:
                continue
            try:
                now = await self.sign_in.check(credential)
            except Exception:
                logger.exception("Checking an open connection's access failed; closing it")
                now = None
            for item in picked:
                reason = _reason(item.signed, now)
                if now is not None and (reason is None or reason == "access-grew"):
                    # What it keeps is judged against the access last seen, not the one it
                    # opened with: a private chat joined since then counts as held.
                    item.signed = now
                if reason == "access-grew" and not item.reloads:
                    continue
                if reason is not None and item.ended is None:
                    item.ended = reason
                    item.scope.cancel()
                    stopped += 1
        return stopped

    @asynccontextmanager
    async def watching(self) -> AsyncIterator[None]:
        """Recheck every ``RECHECK_S`` while requests are open, until the block ends."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._loop)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    async def _loop(self) -> None:
        # Every request that opens from now on signs in against this counter or a later one.
        checked: int | None = await self.sign_in.team.changes()
        checked_at = anyio.current_time()
        while True:
            if not self._open:
                self._wake = anyio.Event()
                await self._wake.wait()
            await anyio.sleep(RECHECK_S)
            try:
                # Read before the recheck: a change made during it is caught on the next turn.
                changes = await self.sign_in.team.changes()
                now = anyio.current_time()
                if changes == checked and now - checked_at < EXPIRY_RECHECK_S:
                    continue
                await self.recheck()
                checked, checked_at = changes, now
            except Exception:
                logger.exception("Rechecking open connections failed")


def _reason(before: SignedIn, now: SignedIn | None) -> str | None:
    """Why a request that signed in as ``before`` must stop, now that its credential signs in
    as ``now``: gone, or another account, role or narrower grants (a role taken away ends
    what it allowed, such as an admin page's open requests)."""
    if now is None:
        return "signed-out"
    if (
        now.user != before.user
        or now.access.identity != before.access.identity
        or not _keeps(before.access, now.access)
    ):
        return "access-changed"
    if _grew(before.access, now.access):
        return "access-grew"
    return None


def _grew(before: Access, now: Access) -> bool:
    """Whether ``now`` holds grants ``before`` did not (it kept all of ``before``'s)."""
    return (
        isinstance(before, GrantedAccess)
        and isinstance(now, GrantedAccess)
        and set(now.grants) != set(before.grants)
    )


def _keeps(before: Access, now: Access) -> bool:
    """Whether ``now`` still gives everything ``before`` gave (grants only add access, so
    keeping what every grant gave keeps every path; a new grant, or read made write, ends
    nothing). A private chat newly
    hidden takes access away when the account was on it (removed from its members) or when
    it was made private after it was created (it was open to the account); a chat created
    private by someone else ends nothing, since the account never had it."""
    if not isinstance(before, GrantedAccess) or not isinstance(now, GrantedAccess):
        return before == now
    if not all(includes(now.grants, grant) for grant in before.grants):
        return False
    newly_hidden = now.hidden - before.hidden
    return all(chat not in before.joined and chat in now.born_private for chat in newly_hidden)


async def _answer_ended(scope: Scope, send: Send, reason: str, *, started: bool) -> None:
    """Tell the client its request ended because its access did: a close code on a
    WebSocket, a 401/403 on a request that had not answered yet (else nothing: the connection
    ends)."""
    try:
        if scope["type"] == "websocket":
            await send(_close_message(reason))
        elif not started:
            status = 401 if reason == "signed-out" else 403
            title = "Unauthorized" if status == 401 else "Forbidden"
            await error_response(status, title, ENDED)(scope, _no_body, send)
    except Exception:  # the client went away meanwhile
        logger.debug("Could not tell a client its access ended", exc_info=True)


def _reconnects(path: str) -> bool:
    """Whether the socket at ``path`` holds what it may do from its start (the grants it
    opened with), so it must reconnect to take grants given since."""
    return path == EVENTS_PATH or path.startswith(DOCUMENTS_PREFIX)


def _close_message(reason: str) -> Message:
    """The close a stopped socket gets: reconnect (access grew), 4401 or 4403."""
    if reason == "access-grew":
        return {"type": "websocket.close", "code": CLOSE_RECONNECT, "reason": GREW}
    code = WS_UNAUTHORIZED if reason == "signed-out" else WS_FORBIDDEN
    return {"type": "websocket.close", "code": code, "reason": ENDED}


async def _no_body() -> Message:
    return {"type": "http.disconnect"}
