"""The human review loop: requests, the person's verdicts, waits that wake on a decision.

Owns a review's life (pending, decided, timeout, superseded, late), stored in the database and
tied to the content hash of what was reviewed. It never polls: a wait sleeps on an event that a
decision, a newer review or the window's end sets. Opening the file is the window's job.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import secrets
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from sqlalchemy.ext.asyncio import AsyncSession

from quire.core.errors import InvalidArgument, QuireError, ReviewNotFound, ReviewRefused
from quire.core.views import (
    DECISIONS,
    REVIEW_TIMEOUT_MS,
    REVIEW_WAIT_MS,
    REVIEWS_KEPT,
    Decision,
    document_id,
    whole_number,
)
from quire.db import reviews as store
from quire.db.reviews import StoredReview
from quire.fs.safeio import read_document
from quire.markdown.tasks import Task, extract_tasks
from quire.services.events import Event
from quire.services.review_results import (
    Annotations,
    Ended,
    StillPending,
    WaitOutcome,
    ended_message,
    review_data,
)

if TYPE_CHECKING:
    from quire.db.engine import Database
    from quire.services.documents import LiveDocuments
    from quire.services.events import EventBus
    from quire.services.windows import Windows

MAX_REQUESTED_BY = 200
_REVIEW_ID = re.compile(r"[0-9a-f]{1,64}")


class Reviews:
    """Every user's reviews; one instance per server, sharing the process's event loop."""

    def __init__(
        self,
        db: Database,
        bus: EventBus,
        windows: Windows,
        documents: LiveDocuments,
        *,
        clock: Callable[[], int],
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        keep: int = REVIEWS_KEPT,
    ) -> None:
        self._db = db
        self._bus = bus
        self._windows = windows
        self._documents = documents
        self._clock = clock
        self._sleep = sleep
        self._keep = keep
        self._lock = anyio.Lock()
        self._wakeups: dict[str, anyio.Event] = {}
        self._listeners: dict[str, int] = {}
        self._outcomes: dict[str, StoredReview] = {}
        """The ended review that woke each waited-on id, kept while someone listens."""
        self._sequence = itertools.count()

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
        low, high, default = REVIEW_TIMEOUT_MS
        window_ms = (
            default if timeout_ms is None else whole_number(timeout_ms, "timeout_ms", low, high)
        )
        by = user if requested_by is None else _requester(requested_by)
        if (path is None) == (content is None):
            raise InvalidArgument(
                "Pass either `path` (a file to review) or `content` (inline Markdown to "
                "review), not both and not neither.",
                argument="path" if path is not None else "content",
            )
        if content is not None:
            _check_content(content)
            text, stored_path = content, None
        else:
            assert path is not None
            opened = await self._windows.open(user, path, "read", verb="review")
            text, stored_path = await self._documents.text(opened.doc_id), str(opened.path)
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
            async with self._db.session() as session, session.begin():
                ended: list[StoredReview] = []
                for old in await store.pending_reviews(session, user):
                    closed = _ended_by(old, review.id, now)
                    await store.save_outcome(session, closed)
                    ended.append(closed)
                await store.insert_review(session, review)
                await store.prune_reviews(session, user, self._keep)
        for closed in ended:
            self._announce(user, closed.status, closed)
        self._announce(user, "new", review)
        return review

    async def get(self, user: str, review_id: str) -> StoredReview:
        """The review ``review_id`` of ``user``, its timeout recorded once its window closed.

        Raises InvalidArgument for a blank id and ReviewNotFound for an unknown one.
        """
        return await self._settled(user, review_id)

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
        with self._listening(review_id) as wakeup:
            review = await self._settled(user, review_id)
            resolved = None if path is None else await _resolve(path)
            _check_resume(review, resolved, content, timeout_ms)
            wait_ends = self._clock() + budget
            while review.status == "pending":
                now = self._clock()
                if now >= wait_ends:
                    return StillPending(review.id)
                await self._until(wakeup, min(wait_ends, review.deadline_ms) - now)
                # The review that woke us is handed over, sparing a read on the wake-up path.
                review = self._outcomes.get(review_id) or await self._settled(user, review_id)
        return await self._ended(review)

    async def decide(
        self, user: str, review_id: str, verdict: Decision, comments: str | None = None
    ) -> StoredReview:
        """Record the person's verdict: approved, changes_requested or dismissed.

        A decision after the review ended (its window closed, or a newer review replaced it)
        is still recorded, with ``late`` set. Raises ReviewRefused for a review already
        decided, ReviewNotFound for an unknown one, InvalidArgument for a bad verdict.
        """
        if verdict not in DECISIONS:
            raise InvalidArgument(
                f"`verdict` must be one of {', '.join(DECISIONS)}, got {verdict!r}.",
                argument="verdict",
            )
        if comments is not None:
            _check_storable(comments, "comments")
        # One transaction reads and writes the review: the person is waiting on the click.
        async with self._lock, self._db.session() as session, session.begin():
            review = await self._load(user, review_id, session)
            if review.status == "decided":
                raise ReviewRefused(
                    f"The review {review.id} was already decided ({review.verdict}); a verdict "
                    "cannot be changed. Ask for a new review to give another."
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
            await store.save_outcome(session, decided)
        self._announce(user, "decided", decided)
        return decided

    async def active(self, user: str) -> StoredReview | None:
        """The review the panel shows: the user's newest pending review within its window."""
        async with self._db.session() as session:
            pending = await store.pending_reviews(session, user)
        for review in pending:
            settled = await self._settled(user, review.id)
            if settled.status == "pending":
                return settled
        return None

    async def latest_for_path(self, user: str, path: Path) -> StoredReview | None:
        """The user's newest review of the file at ``path`` (compared after resolving
        symlinks), its timeout recorded once its window closed; None when there is none."""
        resolved = await _resolve(path)
        async with self._db.session() as session:
            review = await store.latest_for_path(session, user, str(resolved))
        return None if review is None else await self._settled(user, review.id)

    async def annotations(self, user: str, path: Path) -> Annotations:
        """The newest review of ``path`` (verdict, comments, late, stale) and its tasks, read
        from the live buffer when the document is open, else from the file. A file that
        cannot be read gives no tasks and a ``tasks_note`` saying why; this never raises for
        the file's sake."""
        review = await self.latest_for_path(user, path)
        tasks: list[Task] = []
        note = None
        text: str | None = None
        try:
            text = await self._text_of(path)
        except QuireError as err:
            note = f"{err.message} Its tasks were not read."
        else:
            tasks = extract_tasks(text)
        stale = None
        if review is not None:
            stale = text is None or content_hash(text) != review.content_hash
        return Annotations(path, review, stale, tasks, note)

    async def is_stale(self, review: StoredReview) -> bool:
        """Whether the file a review is about changed since (or cannot be read to compare);
        a review of inline content is never stale."""
        if review.path is None:
            return False
        try:
            text = await self._text_of(Path(review.path))
        except QuireError:
            return True
        return content_hash(text) != review.content_hash

    async def _ended(self, review: StoredReview) -> Ended:
        assert review.verdict is not None
        stale = await self.is_stale(review)
        return Ended(review, review.verdict, stale, ended_message(review))

    async def _text_of(self, path: Path) -> str:
        doc_id = document_id(await _resolve(path))
        if self._documents.get(doc_id) is not None:
            return await self._documents.text(doc_id)
        return await anyio.to_thread.run_sync(read_document, path)

    async def _load(
        self, user: str, review_id: str, session: AsyncSession | None = None
    ) -> StoredReview:
        if not isinstance(review_id, str) or not review_id.strip():
            raise InvalidArgument(
                "`review_id` must not be empty: pass the reviewId a review request returned.",
                argument="review_id",
            )
        review = None
        if _REVIEW_ID.fullmatch(review_id):
            if session is not None:
                review = await store.get_review(session, review_id)
            else:
                async with self._db.session() as own:
                    review = await store.get_review(own, review_id)
        if review is None or review.user_id != user:
            raise ReviewNotFound(
                f"No review has the id '{review_id}'. It was never requested here, or it is no "
                f"longer kept (the server keeps each person's last {self._keep} reviews and "
                "the newest review of each file). Request a new review."
            )
        return review

    async def _settled(self, user: str, review_id: str) -> StoredReview:
        """The review, with its timeout recorded when its window has closed undecided."""
        review = await self._load(user, review_id)
        if review.status != "pending" or self._clock() < review.deadline_ms:
            return review
        async with self._lock:
            review = await self._load(user, review_id)
            if review.status != "pending":
                return review
            expired = replace(review, status="timeout", verdict="timeout")
            async with self._db.session() as session, session.begin():
                await store.save_outcome(session, expired)
        self._announce(user, "timeout", expired)
        return expired

    async def _until(self, wakeup: anyio.Event, delay_ms: int) -> None:
        """Return when ``wakeup`` is set or ``delay_ms`` has passed, whichever comes first."""
        async with anyio.create_task_group() as group:

            async def alarm() -> None:
                await self._sleep(max(delay_ms, 1) / 1000)
                group.cancel_scope.cancel()

            group.start_soon(alarm)
            await wakeup.wait()
            group.cancel_scope.cancel()

    @contextmanager
    def _listening(self, review_id: str) -> Iterator[anyio.Event]:
        # The event is taken before the review is read, so a decision committed in between
        # is either seen by the read or wakes the event.
        wakeup = self._wakeups.get(review_id)
        if wakeup is None:
            wakeup = self._wakeups[review_id] = anyio.Event()
        self._listeners[review_id] = self._listeners.get(review_id, 0) + 1
        try:
            yield wakeup
        finally:
            left = self._listeners.pop(review_id) - 1
            if left:
                self._listeners[review_id] = left
            else:
                self._outcomes.pop(review_id, None)
                if self._wakeups.get(review_id) is wakeup:
                    del self._wakeups[review_id]

    def _announce(self, user: str, action: str, review: StoredReview) -> None:
        wakeup = self._wakeups.pop(review.id, None)
        if wakeup is not None:
            if review.status != "pending":
                self._outcomes[review.id] = review
            wakeup.set()
        self._bus.publish(user, Event("review", {"action": action, "review": review_data(review)}))


async def _resolve(path: Path) -> Path:
    return Path(await anyio.to_thread.run_sync(os.path.realpath, path))


def content_hash(text: str) -> str:
    """The SHA-256 (hex) of a text as UTF-8: what a review of it is tied to."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _ended_by(old: StoredReview, newer: str, now: int) -> StoredReview:
    if now >= old.deadline_ms:
        return replace(old, status="timeout", verdict="timeout")
    return replace(old, status="superseded", verdict="superseded", superseded_by=newer)


def _check_resume(
    review: StoredReview, resolved_path: Path | None, content: str | None, timeout_ms: int | None
) -> None:
    refusal = (
        "A resumed review cannot change: resend it unchanged or leave it out, or request a new "
        "review (without review_id) for the new text."
    )
    if timeout_ms is not None and timeout_ms != review.timeout_ms:
        raise InvalidArgument(
            f"`timeout_ms` {timeout_ms!r} differs from the {review.timeout_ms} that review "
            f"{review.id} was requested with. {refusal}",
            argument="timeout_ms",
        )
    if resolved_path is not None and str(resolved_path) != review.path:
        what = "inline content" if review.path is None else f"'{review.path}'"
        raise InvalidArgument(
            f"`path` '{resolved_path}' differs from what review {review.id} was requested for "
            f"({what}). {refusal}",
            argument="path",
        )
    if content is not None and content != review.content:
        what = "a file" if review.content is None else "other content"
        raise InvalidArgument(
            f"`content` differs from what review {review.id} was requested for ({what}). {refusal}",
            argument="content",
        )


def _check_content(content: str) -> None:
    if not isinstance(content, str) or not content.strip():
        raise InvalidArgument(
            "`content` must not be empty or only whitespace: pass the Markdown to review, or "
            "a path instead.",
            argument="content",
        )
    _check_storable(content, "content")


def _check_storable(value: str, argument: str) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"`{argument}` must be text (a string), got {type(value).__name__}.",
            argument=argument,
        )
    if "\0" in value:
        raise InvalidArgument(
            f"`{argument}` contains a NUL character (\\0), which text cannot hold. Send it "
            "without the NUL.",
            argument=argument,
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidArgument(
            f"`{argument}` holds an unpaired surrogate (character {err.start + 1}), which is "
            "not text. Send valid Unicode text.",
            argument=argument,
        ) from None


def _requester(requested_by: str) -> str:
    _check_storable(requested_by, "requested_by")
    name = requested_by.strip()
    if not name or len(name) > MAX_REQUESTED_BY:
        raise InvalidArgument(
            f"`requested_by` must be a name of 1 to {MAX_REQUESTED_BY} characters (who asks "
            f"for the review), got {requested_by!r}.",
            argument="requested_by",
        )
    return name
