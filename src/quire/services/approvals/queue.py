"""The approvals queue: an agent's hook queues a request, waits for it server-side, and the
person decides it from the browser; cards answered in the terminal are closed; overdue ones
expire.

Owns a request's life (pending, decided, expired, answered) and its limits. The database is the
truth and is written before anyone is told, so a pending request survives a restart and a hook
that waits again after one still gets the answer. Wake-ups are in memory (one server).
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

import anyio

from quire.api.approvals import ApprovalRecord
from quire.api.events import ApprovalData, ApprovalEvent
from quire.core.approvals.binding import input_hash
from quire.core.approvals.hook_input import HARNESSES
from quire.core.errors import ApprovalNotFound, ApprovalRefused, FileTooLarge, InvalidArgument
from quire.core.views import whole_number
from quire.db import approvals as store
from quire.db import chats as chat_store
from quire.db.approvals import ApprovalStatus, StoredApproval
from quire.db.chats import StoredSession
from quire.services.approvals.chat_lines import ChatLines, asker, in_chat
from quire.services.approvals.records import approval_record, decision_of, decision_value
from quire.services.replicas.fanout import Alone, Fanout, Wakeups
from quire.services.reviews.timer import Sleep, wait_or_sleep
from quire.services.waiters import Waiters

if TYPE_CHECKING:
    from quire.db.engine import Database
    from quire.services.events import EventBus

TTL_MS: Final = (60_000, 3_600_000, 600_000)
"""A request's time to live: least, most and default, in milliseconds."""
WAIT_MS: Final = (1_000, 3_600_000, 50_000)
"""How long one wait may block: least, most and default, in milliseconds."""
MAX_WAITING_PER_ACCOUNT: Final = 100
MAX_WAITING_PER_LABEL: Final = 20
MAX_BODY_BYTES: Final = 64 * 1024
"""The most a request's tool input and suggestions may take, as JSON."""
ENDED_KEPT: Final = 200
PRUNE_EVERY: Final = 16
"""Ended requests past ENDED_KEPT are pruned at the first request and every 16th after."""
ENDED_LISTED: Final = 20
TOPIC = "approvals"
"""The replicas' topic of ended approval requests: the request's id."""
_ID = re.compile(r"[0-9a-f]{8,64}")
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
_MAX_TEXT = 4096


class Approvals:
    """Every user's approval requests; one instance per server, in the process's event loop."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        *,
        clock: Callable[[], int],
        sleep: Sleep = anyio.sleep,
        lines: ChatLines | None = None,
        fanout: Fanout | None = None,
    ) -> None:
        self._db = db
        self._lines = lines
        self._bus = bus
        self._clock = clock
        self._sleep = sleep
        self._lock = anyio.Lock()
        """Held by every change of a request's status, so each is decided against the last."""
        self._waiters: Waiters[StoredApproval] = Waiters()
        self._fanout = fanout or Alone()
        self._fanout.listen(TOPIC, Wakeups(self._waiters.nudge, self._waiters.nudge_all))
        self._requests = 0
        self._queued: dict[str, StoredApproval] = {}
        """The requests this server queued and has not seen end: a decision needs no read
        (the stored status is still checked by the write itself)."""

    async def request(
        self,
        user: str,
        *,
        harness: str,
        session_id: str,
        cwd: str,
        tool_name: str,
        tool_input: dict[str, Any],
        suggestions: list[dict[str, Any]],
        machine_label: str,
        ttl_ms: int | None = None,
    ) -> StoredApproval:
        """Queue a request for ``ttl_ms`` (60,000 to 3,600,000, default 600,000).

        Raises InvalidArgument for a bad field, FileTooLarge for an input over 64 KB, and
        ApprovalRefused when the account has 100 requests waiting or the machine label 20
        (then the agent's terminal answers).
        """
        low, high, default = TTL_MS
        ttl = default if ttl_ms is None else whole_number(ttl_ms, "ttl_ms", low, high)
        _check_fields(harness, session_id, cwd, tool_name, machine_label)
        size = len(json.dumps([tool_input, suggestions], ensure_ascii=False).encode())
        if size > MAX_BODY_BYTES:
            raise FileTooLarge(
                f"The request's tool input is {size:,} bytes as JSON; at most {MAX_BODY_BYTES:,} "
                "are sent. Answer it in the agent's terminal."
            )
        async with self._lock:
            now = self._clock()
            approval = StoredApproval(
                id=f"{now:012x}{secrets.token_hex(8)}",
                user_id=user,
                harness=harness,
                machine_label=machine_label,
                session_id=session_id,
                cwd=cwd,
                tool_name=tool_name,
                tool_input=tool_input,
                suggestions=tuple(suggestions),
                input_hash=input_hash(tool_name, tool_input),
                created_at_ms=now,
                deadline_ms=now + ttl,
                status="pending",
            )
            with anyio.CancelScope(shield=True):
                if not await self._insert(approval, check_caps=False):
                    # Full: the overdue ones no longer wait, so expire them and count again.
                    await self._expire_overdue(user, now)
                    await self._insert(approval, check_caps=True)
            self._queued[approval.id] = approval
        record = await self._announce(approval)
        if self._lines is not None and record.chat_path is not None and record.agent_name:
            who = asker(record.agent_name, approval.harness, approval.machine_label)
            line = f"⏳ {who} is waiting for approval (answer it in Quire's approvals)."
            await self._lines.say(user, approval.session_id, record.chat_path, line)
        return approval

    async def _insert(self, approval: StoredApproval, *, check_caps: bool) -> bool:
        """Store ``approval`` unless the caps are reached: then False, or with ``check_caps``
        ApprovalRefused saying which."""
        user, label = approval.user_id, approval.machine_label
        async with self._db.session() as session, session.begin():
            total, on_label = await store.waiting_counts(session, user, label)
            if total >= MAX_WAITING_PER_ACCOUNT or on_label >= MAX_WAITING_PER_LABEL:
                if check_caps:
                    _check_caps(total, on_label, label)
                return False
            await store.insert_approval(session, approval)
            self._requests += 1
            if self._requests % PRUNE_EVERY == 1:
                await store.prune_approvals(session, user, ENDED_KEPT)
        return True

    async def get(self, user: str, approval_id: str) -> StoredApproval:
        """The request ``approval_id`` of ``user``, expired once its deadline passed.
        Raises ApprovalNotFound for an id this user cannot see."""
        approval = await self._load(user, approval_id)
        if approval.status == "pending" and self._clock() >= approval.deadline_ms:
            return await self._end(approval, "expired")
        return approval

    async def wait(self, user: str, approval_id: str, wait_ms: int | None = None) -> StoredApproval:
        """Wait at most ``wait_ms`` (1,000 to 3,600,000, default 50,000) for the request to
        end; returns it as it then stands (still pending when ``wait_ms`` ran out)."""
        low, high, default = WAIT_MS
        budget = default if wait_ms is None else whole_number(wait_ms, "wait_ms", low, high)
        with self._waiters.listening(approval_id) as wakeup:
            approval = await self.get(user, approval_id)
            ends = self._clock() + budget
            while approval.status == "pending":
                now = self._clock()
                if now >= ends:
                    return approval
                await wait_or_sleep(wakeup, min(ends, approval.deadline_ms) - now, self._sleep)
                ended = self._waiters.outcome(approval_id)
                approval = ended if ended is not None else await self.get(user, approval_id)
                if wakeup.is_set():
                    wakeup = self._waiters.rearm(approval_id)
        return approval

    async def decide(
        self,
        user: str,
        approval_id: str,
        *,
        hash_of_input: str,
        behavior: str,
        message: str | None = None,
        answers: list[list[int]] | None = None,
        other: list[str] | None = None,
    ) -> StoredApproval:
        """Record the person's decision, bound to ``hash_of_input``: the hash of the tool input
        the card showed. Raises ApprovalRefused when the request ended already or the hash is
        another input's, InvalidArgument for answers that do not fit."""
        async with self._lock:
            approval = self._queued.get(approval_id)
            if approval is None or approval.user_id != user:
                approval = await self.get(user, approval_id)
            elif self._clock() >= approval.deadline_ms:
                approval = await self._end(approval, "expired")
            if approval.status != "pending":
                raise ApprovalRefused(_ended_message(approval))
            if not isinstance(hash_of_input, str) or not hmac.compare_digest(
                hash_of_input.encode(), approval.input_hash.encode()
            ):
                raise ApprovalRefused(
                    f"The decision names another tool input than the request {approval.id} "
                    "carries; nothing was decided. Reload the approvals list and decide on "
                    "the card as it is now."
                )
            decision = decision_value(decision_of(approval, behavior, message, answers, other))
            decided, written = await self._write(approval, "decided", decision)
            if not written:
                raise ApprovalRefused(_ended_message(decided))
        await self._announce(decided)
        await self._fanout.flush()  # a hook waiting on another replica hears of it first
        return decided

    async def done(
        self,
        user: str,
        session_id: str,
        tool_name: str | None = None,
        tool_input: dict[str, Any] | None = None,
    ) -> int:
        """Close as answered in the terminal the session's pending requests for this tool
        call (every pending one of the session without ``tool_name``); returns how many."""
        wanted = None if tool_name is None else input_hash(tool_name, tool_input or {})
        async with self._db.session() as session:
            found = await store.session_pending(session, user, session_id)
        closed = 0
        for approval in found:
            if wanted is None or approval.input_hash == wanted:
                async with self._lock:
                    ended = await self._end(approval, "answered")
                closed += ended.status == "answered"
        return closed

    async def has_pending(self, user: str, session_id: str) -> bool:
        """Whether the agent session has a card waiting now."""
        async with self._db.session() as session:
            found = await store.session_pending(session, user, session_id)
        return any(approval.deadline_ms > self._clock() for approval in found)

    async def listing(self, user: str) -> tuple[list[ApprovalRecord], int]:
        """The records of the user's pending requests (oldest first) then the recently
        ended ones (newest first), and how many are pending."""
        async with self._db.session() as session:
            overdue = await store.overdue_ids(session, user, self._clock())
        if overdue:
            async with self._lock:
                await self._expire_overdue(user, self._clock())
        async with self._db.session() as session:
            pending = await store.pending_approvals(session, user)
            ended = await store.recent_ended(session, user, ENDED_LISTED)
            every = [*pending, *ended]
            chats = await chat_store.sessions_named(
                session, user, {approval.session_id for approval in every}
            )
        records = [_with_chat(approval, chats.get(approval.session_id)) for approval in every]
        return records, len(pending)

    async def record(self, approval: StoredApproval) -> ApprovalRecord:
        """The window's record of ``approval``, with the agent's chat name when the session's
        last chat command named one."""
        async with self._db.session() as session:
            chat = await chat_store.get_session(session, approval.user_id, approval.session_id)
        return _with_chat(approval, chat)

    async def _load(self, user: str, approval_id: str) -> StoredApproval:
        approval = None
        if isinstance(approval_id, str) and _ID.fullmatch(approval_id):
            async with self._db.session() as session:
                approval = await store.get_approval(session, approval_id)
        if approval is None or approval.user_id != user:
            raise ApprovalNotFound(
                f"No approval request has the id {approval_id!r}. It was never made here, or "
                f"it is no longer kept (the last {ENDED_KEPT} ended ones are). The agent's "
                "terminal answers it."
            )
        return approval

    async def _end(self, approval: StoredApproval, status: ApprovalStatus) -> StoredApproval:
        """End ``approval`` as ``status`` (expired, answered) if still pending; returns it as
        it then stands. The caller holds the lock, or accepts a race it re-reads."""
        ended, written = await self._write(approval, status, None)
        if written:
            await self._announce(ended)
        return ended

    async def _write(
        self, approval: StoredApproval, status: ApprovalStatus, decision: dict[str, Any] | None
    ) -> tuple[StoredApproval, bool]:
        """Store how ``approval`` ended if it is still pending; returns it as it then stands
        and whether this call wrote it. Shielded: a cancelled request still records it."""
        now = self._clock()
        self._queued.pop(approval.id, None)
        with anyio.CancelScope(shield=True):
            async with self._db.session() as session, session.begin():
                written = await store.record_end(
                    session, approval.id, status, decided_at_ms=now, decision=decision
                )
                stored = None if written else await store.get_approval(session, approval.id)
        if stored is not None:
            # It ended meanwhile (another server on this database, or a race): that stands.
            return stored, False
        return replace(approval, status=status, decision=decision, decided_at_ms=now), True

    async def _expire_overdue(self, user: str, now: int) -> None:
        async with self._db.session() as session:
            overdue = await store.overdue_ids(session, user, now)
        for approval_id in overdue:
            await self._end(await self._load(user, approval_id), "expired")

    async def _announce(self, approval: StoredApproval) -> ApprovalRecord:
        # The hooks waiting on it hear first: they are what an agent is blocked on.
        if approval.status != "pending":
            self._waiters.wake(approval.id, approval)
            self._fanout.send(TOPIC, approval.id)
        action = "new" if approval.status == "pending" else approval.status
        record = await self.record(approval)
        self._bus.publish(
            approval.user_id, ApprovalEvent(data=ApprovalData(action=action, approval=record))
        )
        return record


def _with_chat(approval: StoredApproval, chat: StoredSession | None) -> ApprovalRecord:
    """The record, under the agent's chat name when it used a chat, and placed in that chat
    only while the agent is still in it."""
    if chat is None:
        return approval_record(approval)
    path = chat.chat_path if in_chat(chat) else None
    return approval_record(approval, agent_name=chat.reader, chat_path=path)


def _check_fields(
    harness: str, session_id: str, cwd: str, tool_name: str, machine_label: str
) -> None:
    if harness not in HARNESSES:
        raise InvalidArgument(
            f"`harness` must be one of {', '.join(HARNESSES)}, not {harness!r}.",
            argument="harness",
        )
    for name, value in (("session_id", session_id), ("cwd", cwd), ("tool_name", tool_name)):
        if not value.strip() or "\0" in value or len(value) > _MAX_TEXT:
            raise InvalidArgument(
                f"`{name}` must be non-empty text of at most {_MAX_TEXT:,} characters.",
                argument=name,
            )
    if len(session_id) > 200:
        raise InvalidArgument("`session_id` is over 200 characters.", argument="session_id")
    if not _LABEL.fullmatch(machine_label):
        raise InvalidArgument(
            "`machine_label` must be 1-63 letters, digits, dots, dashes or underscores.",
            argument="machine_label",
        )


def _check_caps(total: int, on_label: int, machine_label: str) -> None:
    if total >= MAX_WAITING_PER_ACCOUNT:
        raise ApprovalRefused(
            f"{total} approval requests already wait for this account (at most "
            f"{MAX_WAITING_PER_ACCOUNT}); this one stays in the agent's terminal. Answer or let "
            "the waiting ones expire."
        )
    if on_label >= MAX_WAITING_PER_LABEL:
        raise ApprovalRefused(
            f"{on_label} approval requests already wait from the machine {machine_label!r} (at "
            f"most {MAX_WAITING_PER_LABEL}); this one stays in the agent's terminal."
        )


def _ended_message(approval: StoredApproval) -> str:
    match approval.status:
        case "decided":
            what = "was already decided"
        case "expired":
            what = "expired"
        case "answered":
            what = "was answered in the agent's terminal"
        case "pending":
            what = "is still pending"
    return f"The approval request {approval.id} {what}; a decision cannot change it now."
