"""The human review loop: requests, the person's verdicts, waits that wake on a decision.

Owns a review's life (pending, decided, timeout, superseded, late). The database is the durable
truth and is written before anyone is told; pending reviews are also held in memory (write-
through), so a decision is one UPDATE and a waiter is handed the outcome instead of reading it.
A deadline timer records timeouts; nothing polls. Opening the file is the window's job. A
review is its user's alone; in multi mode a review of a file the account may no longer read is
not found, as an unknown one is.
"""

from __future__ import annotations

import itertools
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

import anyio
from anyio.abc import TaskGroup
from sqlalchemy.exc import SQLAlchemyError

from quire.api.events import ReviewData, ReviewEvent
from quire.core.errors import InvalidArgument, QuireError, ReviewNotFound, ReviewRefused
from quire.core.paths import moved_path
from quire.core.views import (
    DECISIONS,
    REVIEW_WAIT_MS,
    REVIEWS_KEPT,
    Decision,
    ReviewStatus,
    whole_number,
)
from quire.db import reviews as store
from quire.db.reviews import StoredReview
from quire.services.document_access import readable
from quire.services.replicas.fanout import Alone, Fanout, Wakeups
from quire.services.reviews.checks import check_request, check_resume, check_storable, content_hash
from quire.services.reviews.results import (
    Annotations,
    Ended,
    StillPending,
    WaitOutcome,
    ended_message,
    review_record,
)
from quire.services.reviews.texts import ReviewTexts, resolve
from quire.services.reviews.timer import DeadlineTimer, Sleep, wait_or_sleep
from quire.services.waiters import Waiters

if TYPE_CHECKING:
    from quire.db.engine import Database
    from quire.services.events import EventBus
    from quire.services.live.documents import LiveDocuments
    from quire.services.windows import Windows

logger = logging.getLogger(__name__)

TOPIC = "reviews"
"""The replicas' topic of ended reviews: the review's id."""
TIMER_RETRY_S = 1.0
"""How long the deadline timer waits before trying again when the database failed it."""
_REVIEW_ID = re.compile(r"[0-9a-f]{1,64}")


class Reviews:
    """Every user's reviews; one instance per server, sharing the process's event loop.

    ``async with reviews:`` restores the pending reviews and runs the deadline timer until the
    block ends. Without it everything still works, but a timeout is recorded only when someone
    next reads or waits on the review.
    """

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        windows: Windows,
        documents: LiveDocuments,
        *,
        clock: Callable[[], int],
        sleep: Sleep = anyio.sleep,
        timer: Sleep | None = None,
        keep: int = REVIEWS_KEPT,
        fanout: Fanout | None = None,
    ) -> None:
        self._db = db
        self._bus = bus
        self._windows = windows
        self._documents = documents
        self._texts = ReviewTexts(documents)
        self._fanout = fanout or Alone()
        self._clock = clock
        self._sleep = sleep
        self._timer = sleep if timer is None else timer
        self._deadlines = DeadlineTimer(
            next_deadline=self._next_deadline,
            on_due=self._expire_overdue,
            clock=clock,
            sleep=self._timer,
        )
        self._keep = keep
        self._lock = anyio.Lock()
        """Held by every change of a review's status, so each is decided against the last."""
        self._pending: dict[str, StoredReview] = {}
        """Every pending review in the database (once restored), by id: the write-through copy."""
        self._restored = False
        self._waiters: Waiters[StoredReview] = Waiters()
        self._fanout.listen(TOPIC, Wakeups(self._heard, lambda: self._heard(None)))
        self._sequence = itertools.count()
        self._task_group: TaskGroup | None = None

    async def __aenter__(self) -> Self:
        await self._ready()
        group = anyio.create_task_group()
        await group.__aenter__()
        self._task_group = group
        group.start_soon(self._deadlines.run)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        group, self._task_group = self._task_group, None
        if group is not None:
            group.cancel_scope.cancel()
            # The block's own exception is not the timer's: it passes on as it is, unwrapped.
            await group.__aexit__(None, None, None)

    async def request(
        self,
        user: str,
        *,
        path: Path | None = None,
        content: str | None = None,
        timeout_ms: int | None = None,
        requested_by: str | None = None,
    ) -> StoredReview:
        """Register a review of the file at ``path`` (opened in Read view) or of inline
        ``content``, with ``timeout_ms`` (5,000 to 600,000, default 300,000) for the person to
        decide. The user's pending review, if any, ends at once as ``superseded`` naming this
        one. Raises InvalidArgument for bad arguments; a file the window cannot open raises
        its reason and registers nothing.
        """
        window_ms, by = check_request(user, path, content, timeout_ms, requested_by)
        if content is not None:
            text, stored_path = content, None
        else:
            assert path is not None
            opened = await self._windows.open(user, path, "read", verb="review")
            text, stored_path = await self._documents.text(opened.doc_id), str(opened.path)
        await self._ready()
        async with self._lock:
            now = self._clock()
            review = StoredReview(
                id=f"{now:012x}{next(self._sequence) % 0x10000:04x}{secrets.token_hex(4)}",
                user_id=user,
                path=stored_path,
                content=content,
                content_hash=content_hash(text),
                requested_by=by,
                timeout_ms=window_ms,
                created_at_ms=now,
                deadline_ms=now + window_ms,
                status="pending",
                verdict=None,
                comments=None,
                decided_at_ms=None,
                late=False,
                superseded_by=None,
            )
            # Shielded: a cancelled request must not leave memory and database apart.
            with anyio.CancelScope(shield=True):
                ended = await self._insert(review, now)
        for closed in ended:
            self._announce(closed)
        self._announce(review)
        # The other replicas hear of it before the agent does: each keeps the deadline, so the
        # timeout is recorded even if this replica dies right after answering.
        await self._fanout.flush()
        return review

    async def _insert(self, review: StoredReview, now: int) -> list[StoredReview]:
        """Store ``review``, ending the user's pending ones, in one transaction; returns
        those it ended."""
        ended: list[StoredReview] = []
        async with self._db.session() as session, session.begin():
            for old in await store.pending_reviews(session, review.user_id):
                closed = _ended_by(old, review.id, now)
                if await store.record_outcome(session, closed, was="pending"):
                    ended.append(closed)
            await store.insert_review(session, review)
            await store.prune_reviews(session, review.user_id, self._keep)
        for closed in ended:
            self._pending.pop(closed.id, None)
        self._pending[review.id] = review
        self._deadlines.reschedule()
        return ended

    async def get(self, user: str, review_id: str) -> StoredReview:
        """The review ``review_id`` of ``user``, its timeout recorded once its window closed.

        Raises InvalidArgument for a blank id and ReviewNotFound for an unknown one.
        """
        await self._ready()
        return await self._settle(await self._find(user, review_id))

    async def wait(
        self,
        user: str,
        review_id: str,
        wait_ms: int | None = None,
        *,
        path: Path | None = None,
        content: str | None = None,
        timeout_ms: int | None = None,
    ) -> WaitOutcome:
        """Wait at most ``wait_ms`` (1,000 to 600,000, default 50,000) for the review's verdict.

        Returns the moment the person decides (or a newer review supersedes it), the
        ``timeout`` verdict once its window closes, else StillPending when ``wait_ms`` runs
        out. ``path``, ``content`` and ``timeout_ms`` may be resent unchanged; one that
        differs from the request is refused (InvalidArgument naming it) and nothing waits.
        """
        low, high, default = REVIEW_WAIT_MS
        budget = default if wait_ms is None else whole_number(wait_ms, "wait_ms", low, high)
        with self._waiters.listening(review_id) as wakeup:
            review = await self.get(user, review_id)
            resolved = None if path is None else await resolve(path)
            check_resume(review, resolved, content, timeout_ms)
            wait_ends = self._clock() + budget
            while review.status == "pending":
                now = self._clock()
                if now >= wait_ends:
                    return StillPending(review.id)
                await wait_or_sleep(wakeup, min(wait_ends, review.deadline_ms) - now, self._sleep)
                review = self._waiters.outcome(review_id) or await self.get(user, review_id)
                if wakeup.is_set():
                    wakeup = self._waiters.rearm(review_id)
        return await self._ended(review)

    async def decide(
        self, user: str, review_id: str, verdict: Decision, comments: str | None = None
    ) -> StoredReview:
        """Record the person's verdict: approved, changes_requested or dismissed.

        A decision after the review ended (its window closed, or a newer review replaced it)
        is still recorded, with ``late`` set. The verdict is committed before any waiter
        hears of it, and this returns once every waiter it woke has taken it. Raises
        ReviewRefused for a review already decided, ReviewNotFound for an unknown one,
        InvalidArgument for a bad verdict.
        """
        if verdict not in DECISIONS:
            raise InvalidArgument(
                f"`verdict` must be one of {', '.join(DECISIONS)}, got {verdict!r}.",
                argument="verdict",
            )
        if comments is not None:
            check_storable(comments, "comments")
        await self._ready()
        async with self._lock:
            review = await self._find(user, review_id)
            while True:
                if review.status == "decided":
                    raise ReviewRefused(
                        f"The review {review.id} was already decided ({review.verdict}); a "
                        "verdict cannot be changed. Ask for a new review to give another."
                    )
                now = self._clock()
                decided = replace(
                    review,
                    status="decided",
                    verdict=verdict,
                    comments=comments,
                    decided_at_ms=now,
                    late=review.status != "pending" or now >= review.deadline_ms,
                )
                if await self._write(decided, was=review.status):
                    break
                # Another server on this database changed the review: decide on what it stored.
                review = await self._load(user, review_id)
        self._announce(decided)
        # The agents waiting on this verdict answer before the person's click is acknowledged:
        # they are the ones blocked on it, and each is only a turn of the event loop (or, on
        # another replica, a signal) away.
        await self._fanout.flush()
        await self._waiters.taken(review_id)
        return decided

    async def active(self, user: str) -> StoredReview | None:
        """The review the panel shows: the user's newest pending review within its window."""
        await self._ready()
        mine = [
            review
            for review in self._pending.values()
            if review.user_id == user and _readable(review)
        ]
        for review in sorted(mine, key=_age, reverse=True):
            settled = await self._settle(review)
            if settled.status == "pending":
                return settled
        return None

    async def latest_for_path(self, user: str, path: Path) -> StoredReview | None:
        """The user's newest review of the file at ``path`` (compared after resolving
        symlinks), its timeout recorded once its window closed; None when there is none."""
        resolved = await resolve(path)
        if not readable(resolved):
            return None
        await self._ready()
        async with self._db.session() as session:
            review = await store.latest_for_path(session, user, str(resolved))
        if review is None:
            return None
        return await self._settle(self._pending.get(review.id, review))

    async def annotations(self, user: str, path: Path) -> Annotations:
        """The newest review of ``path`` (verdict, comments, late, stale) and its tasks, read
        from the live buffer when the document is open, else from the file. A file that
        cannot be read gives no tasks and a ``tasks_note`` saying why; this never raises for
        the file's sake."""
        return await self._texts.annotations(path, await self.latest_for_path(user, path))

    async def moved(self, source: Path, target: Path) -> None:
        """The file ``source`` (or the folder ``source`` and its files) was renamed or moved to
        ``target``: its reviews, pending or ended, are now of the file at its new path."""
        await self._ready()
        async with self._lock:
            # Shielded: a cancelled move must not leave memory and database apart.
            with anyio.CancelScope(shield=True):
                async with self._db.session() as session, session.begin():
                    await store.move_reviews(session, str(source), str(target))
            for review in list(self._pending.values()):
                new = None if review.path is None else moved_path(Path(review.path), source, target)
                if new is not None:
                    self._pending[review.id] = replace(review, path=str(new))

    async def is_stale(self, review: StoredReview) -> bool:
        """Whether the file a review is about changed since (or cannot be read to compare);
        a review of inline content is never stale."""
        return await self._texts.is_stale(review)

    async def _ended(self, review: StoredReview) -> Ended:
        assert review.verdict is not None
        stale = await self.is_stale(review)
        return Ended(review, review.verdict, stale, ended_message(review))

    def _heard(self, review_id: str | None) -> None:
        """Another replica requested or ended ``review_id`` (None: maybe some, unheard)."""
        if self._task_group is not None:
            self._task_group.start_soon(self._reread, review_id)

    async def _reread(self, review_id: str | None) -> None:
        """Read ``review_id`` (None: every pending review) from the database again, so this
        replica's copy of the pending reviews holds what another replica changed, and wake
        its waiters to look."""
        try:
            async with self._lock:
                async with self._db.session() as session:
                    if review_id is None:
                        found = await store.all_pending_reviews(session)
                        self._pending = {review.id: review for review in found}
                    else:
                        review = await store.get_review(session, review_id)
                        if review is not None and review.status == "pending":
                            self._pending[review.id] = review
                        else:
                            self._pending.pop(review_id, None)
                self._deadlines.reschedule()
        except (SQLAlchemyError, OSError):
            logger.exception("Could not read reviews changed by another replica again")
        if review_id is None:
            self._waiters.nudge_all()
        else:
            self._waiters.nudge(review_id)

    async def _ready(self) -> None:
        """Load the pending reviews from the database once, before anything relies on them."""
        if self._restored:
            return
        async with self._lock:
            if self._restored:
                return
            with anyio.CancelScope(shield=True):
                async with self._db.session() as session:
                    pending = await store.all_pending_reviews(session)
            for review in pending:
                self._pending.setdefault(review.id, review)
            self._restored = True
            self._deadlines.reschedule()

    async def _find(self, user: str, review_id: str) -> StoredReview:
        """The review as it stands: the in-memory copy while pending, else the stored one."""
        if not isinstance(review_id, str) or not review_id.strip():
            raise InvalidArgument(
                "`review_id` must not be empty: pass the reviewId a review request returned.",
                argument="review_id",
            )
        review = self._pending.get(review_id)
        if review is None or review.user_id != user:
            review = await self._load(user, review_id)
        if not _readable(review):
            raise self._not_found(review_id)
        return review

    async def _load(self, user: str, review_id: str) -> StoredReview:
        review = None
        if _REVIEW_ID.fullmatch(review_id):
            async with self._db.session() as session:
                review = await store.get_review(session, review_id)
        if review is None or review.user_id != user:
            raise self._not_found(review_id)
        return review

    def _not_found(self, review_id: str) -> ReviewNotFound:
        return ReviewNotFound(
            f"No review has the id '{review_id}'. It was never requested here, or it is no "
            f"longer kept (the server keeps each person's last {self._keep} reviews and "
            "the newest review of each file). Request a new review."
        )

    async def _write(self, review: StoredReview, *, was: ReviewStatus) -> bool:
        """Store ``review``'s outcome in one transaction if its stored status is still
        ``was``; either way it is no longer pending here. Shielded from cancellation, so
        memory and database never disagree."""
        with anyio.CancelScope(shield=True):
            async with self._db.session() as session, session.begin():
                written = await store.record_outcome(session, review, was=was)
            self._pending.pop(review.id, None)
        return written

    async def _settle(self, review: StoredReview) -> StoredReview:
        """``review``, with its timeout recorded when its window has closed undecided."""
        if review.status != "pending" or self._clock() < review.deadline_ms:
            return review
        return await self._expire(review)

    async def _expire(self, review: StoredReview) -> StoredReview:
        """Record the timeout of ``review`` if it is still pending past its deadline; returns
        the review as it then stands."""
        async with self._lock:
            current = self._pending.get(review.id)
            if current is None:
                # It ended meanwhile (a decision, a newer review), or another server holds it.
                current = await self._load(review.user_id, review.id)
            if current.status != "pending" or self._clock() < current.deadline_ms:
                return current
            expired = replace(current, status="timeout", verdict="timeout")
            if not await self._write(expired, was="pending"):
                # Another server on this database ended it first: what it stored stands.
                expired = await self._load(current.user_id, current.id)
        self._announce(expired)
        return expired

    def _next_deadline(self) -> int | None:
        return min((review.deadline_ms for review in self._pending.values()), default=None)

    async def _expire_overdue(self, now: int) -> None:
        for review in [held for held in self._pending.values() if held.deadline_ms <= now]:
            if review.id not in self._pending:
                continue
            try:
                # Shielded: stopping the server waits for a timeout being recorded.
                with anyio.CancelScope(shield=True):
                    await self._expire(review)
            except (SQLAlchemyError, OSError, QuireError):
                logger.exception(
                    "Could not record the timeout of review %s; trying again in %g s.",
                    review.id,
                    TIMER_RETRY_S,
                )
                await self._timer(TIMER_RETRY_S)
                return

    def _announce(self, review: StoredReview) -> None:
        self._waiters.wake(review.id, review if review.status != "pending" else None)
        self._fanout.send(TOPIC, review.id)
        action = "new" if review.status == "pending" else review.status
        self._bus.publish(
            review.user_id,
            ReviewEvent(data=ReviewData(action=action, review=review_record(review))),
        )


def _readable(review: StoredReview) -> bool:
    """Whether the request may read the file ``review`` is about (inline content: always)."""
    return review.path is None or readable(Path(review.path))


def _age(review: StoredReview) -> tuple[int, str]:
    return (review.created_at_ms, review.id)


def _ended_by(old: StoredReview, newer: str, now: int) -> StoredReview:
    if now >= old.deadline_ms:
        return replace(old, status="timeout", verdict="timeout")
    return replace(old, status="superseded", verdict="superseded", superseded_by=newer)
