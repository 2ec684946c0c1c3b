"""HTTP routes of the human review loop: request, wait, read, decide, the panel's review, and a
file's annotations.

Thin: parse the request, call the reviews service, answer with its ``quire.api.reviews`` model.
Waiting happens in the service.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.reviews import ActiveReview, DecisionBody, RequestBody, WaitBody
from quire.core.errors import InvalidArgument
from quire.core.views import REVIEW_WAIT_MS, whole_number
from quire.services.reviews.results import (
    checked_review,
    file_annotations,
    requested_outcome,
    review_record,
    wait_outcome,
)
from quire.web.answers import answer
from quire.web.arguments import (
    absolute_path,
    query_args,
    query_int,
    read_body,
)
from quire.web.authors import requesting_agent
from quire.web.context import current_user, services_of


async def request_review(request: Request) -> Response:
    """Register a review of `path` (opened in Read view) or of inline `content`, with
    `timeout_ms` (5,000 to 600,000, default 300,000) for the person to decide. Answers
    `{reviewId, status: "pending", deadline}`; a pending review ends as superseded. With
    `wait_ms` (1,000 to 600,000, checked before anything is registered) it then waits as
    GET .../wait does and answers that wait's result. Without `requested_by`, a token request
    is recorded as asked by the agent of its `X-Quire-Agent` header (`agent` without one)."""
    body = await read_body(request, RequestBody)
    if body.wait_ms is not None:
        whole_number(body.wait_ms, "wait_ms", REVIEW_WAIT_MS[0], REVIEW_WAIT_MS[1])
    user = current_user(request)
    reviews = services_of(request).reviews
    asked_by = body.requested_by
    review = await reviews.request(
        user,
        path=_path(body.path),
        content=body.content,
        timeout_ms=body.timeout_ms,
        requested_by=requesting_agent(request) if asked_by is None else asked_by,
    )
    if body.wait_ms is not None:
        return answer(wait_outcome(await reviews.wait(user, review.id, body.wait_ms)))
    return answer(requested_outcome(review))


async def active_review(request: Request) -> Response:
    """`{review}`: the review the panel shows (the newest pending one within its window), or
    null."""
    query_args(request, ())
    review = await services_of(request).reviews.active(current_user(request))
    return answer(ActiveReview(review=None if review is None else review_record(review)))


async def get_review(request: Request) -> Response:
    """The review record: status, verdict, comments, late, supersededBy, what was reviewed,
    its deadline, and `stale` (the file changed since the review was requested)."""
    query_args(request, ())
    reviews = services_of(request).reviews
    review = await reviews.get(current_user(request), _review_id(request))
    return answer(checked_review(review, stale=await reviews.is_stale(review)))


async def wait_review(request: Request) -> Response:
    """Wait at most `wait_ms` (1,000 to 600,000, default 50,000) for the verdict: answers
    `{verdict, reviewId, comments, late?, supersededBy?, stale?, message?}` the moment the
    person decides, the timeout verdict once the review's window closes, or `{status:
    "pending", reviewId}` when wait_ms runs out."""
    values = query_args(request, ("wait_ms",))
    outcome = await services_of(request).reviews.wait(
        current_user(request), _review_id(request), query_int(values, "wait_ms")
    )
    return answer(wait_outcome(outcome))


async def resume_review(request: Request) -> Response:
    """Wait for a verdict as GET .../wait does, after checking that the resent `path`,
    `content` and `timeout_ms` are what the review was requested with (400 naming the one
    that differs, and nothing waits)."""
    body = await read_body(request, WaitBody)
    outcome = await services_of(request).reviews.wait(
        current_user(request),
        _review_id(request),
        body.wait_ms,
        path=_path(body.path),
        content=body.content,
        timeout_ms=body.timeout_ms,
    )
    return answer(wait_outcome(outcome))


async def decide_review(request: Request) -> Response:
    """The person's verdict: approved, changes_requested or dismissed, with optional
    `comments`. A decision after the review ended is recorded with `late: true`. Answers
    the review record; 409 when the review was already decided."""
    body = await read_body(request, DecisionBody)
    review = await services_of(request).reviews.decide(
        current_user(request), _review_id(request), body.verdict, body.comments
    )
    return answer(review_record(review))


async def get_annotations(request: Request) -> Response:
    """What the person left on the file at `path`: the newest review's verdict, comments,
    late and stale (null verdict with no review), and its task checkboxes from the live
    buffer when the document is open, else from the file (`tasksNote` says why a file
    could not be read)."""
    values = query_args(request, ("path",))
    raw = values.get("path")
    if raw is None:
        raise InvalidArgument(
            "`path` is required: pass the absolute path of the file whose annotations to read.",
            argument="path",
        )
    result = await services_of(request).reviews.annotations(
        current_user(request), absolute_path(raw)
    )
    return answer(file_annotations(result))


def _path(raw: str | None) -> Path | None:
    return None if raw is None else absolute_path(raw)


def _review_id(request: Request) -> str:
    value = request.path_params["review_id"]
    assert isinstance(value, str)
    return value


routes: list[BaseRoute] = [
    Route("/api/reviews", request_review, methods=["POST"]),
    Route("/api/reviews/active", active_review, methods=["GET"]),
    Route("/api/reviews/{review_id}", get_review, methods=["GET"]),
    Route("/api/reviews/{review_id}/wait", wait_review, methods=["GET"]),
    Route("/api/reviews/{review_id}/wait", resume_review, methods=["POST"]),
    Route("/api/reviews/{review_id}/decision", decide_review, methods=["POST"]),
    Route("/api/annotations", get_annotations, methods=["GET"]),
]
