"""HTTP routes of agent approvals: a hook's request, wait and "answered in the terminal", the
person's decision (from a browser login only), the approvals list, and notices.

Thin: parse the request, call the approvals or notices service, answer with its
``quire.api.approvals`` model. 404 for every route while ``[approvals] enabled`` is off.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.approvals import (
    ApprovalDecisionBody,
    ApprovalDoneBody,
    ApprovalList,
    ApprovalRequestBody,
    ApprovalRequested,
    ApprovalsDone,
    NoticeBody,
    NoticeDismissBody,
    NoticeRaised,
)
from quire.api.base import Ok
from quire.core.errors import BrowserLoginNeeded
from quire.services.app import AppServices
from quire.services.approvals.notices import Notices
from quire.services.approvals.queue import Approvals
from quire.services.approvals.records import approval_outcome
from quire.web.answers import answer
from quire.web.arguments import query_args, query_int, read_body
from quire.web.context import current_user, services_of, signed_in_by_browser
from quire.web.errors import error_response

APPROVALS_TURNED_OFF = (
    "Agent approvals are turned off on this server: add `[approvals]` with `enabled = true` "
    "to its quire.toml and restart `quire serve` to use them. Until then the agent's terminal "
    "answers its own prompts."
)
TOKEN_CANNOT_DECIDE = (
    "Only the person's browser login may decide an approval request: this request came with "
    "an API token, which an agent may hold, and an agent must never approve its own request. "
    "Decide it in the Quire window (the approvals list)."
)

Handler = Callable[[Request, Approvals, Notices], Awaitable[Response]]


def _approvals_route(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``handler``: 404 while approvals are off, else ``handler`` with the
    services."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        services: AppServices = services_of(request)
        approvals, notices = services.approvals, services.notices
        if not services.settings.approvals_enabled or approvals is None or notices is None:
            return error_response(404, "NotFound", APPROVALS_TURNED_OFF)
        return await handler(request, approvals, notices)

    return endpoint


@_approvals_route
async def request_approval(request: Request, approvals: Approvals, _: Notices) -> Response:
    """Queue an agent's permission request or question (what its PermissionRequest hook read)
    for `ttl_ms` (60,000 to 3,600,000, default 600,000): answers `{approvalId, inputHash,
    deadline}`. 409 when 100 requests of the account, or 20 of the machine label, wait; 413
    for a tool input over 64 KB."""
    body = await read_body(request, ApprovalRequestBody)
    approval = await approvals.request(
        current_user(request),
        harness=body.harness,
        session_id=body.session_id,
        cwd=body.cwd,
        tool_name=body.tool_name,
        tool_input=body.tool_input,
        suggestions=body.suggestions,
        machine_label=body.machine_label,
        ttl_ms=body.ttl_ms,
    )
    return answer(
        ApprovalRequested(
            approval_id=approval.id, input_hash=approval.input_hash, deadline=approval.deadline_ms
        )
    )


@_approvals_route
async def list_approvals(request: Request, approvals: Approvals, notices: Notices) -> Response:
    """The approvals list: `{waiting, approvals, notices}`, the pending requests oldest first
    then the recently ended ones, and the live notices."""
    query_args(request, ())
    user = current_user(request)
    records, waiting = await approvals.listing(user)
    live = await notices.live(user)
    return answer(ApprovalList(waiting=waiting, approvals=tuple(records), notices=tuple(live)))


@_approvals_route
async def get_approval(request: Request, approvals: Approvals, _: Notices) -> Response:
    """One request's record: its card, who asks, its deadline and how it ended."""
    query_args(request, ())
    approval = await approvals.get(current_user(request), _approval_id(request))
    return answer(await approvals.record(approval))


@_approvals_route
async def wait_approval(request: Request, approvals: Approvals, _: Notices) -> Response:
    """Wait at most `wait_ms` (1,000 to 3,600,000, default 50,000) for the request to end:
    answers `{approvalId, status, inputHash, decision?}` the moment the person decides, when
    it expires or is answered in the terminal, or with `status: "pending"` when wait_ms runs
    out."""
    values = query_args(request, ("wait_ms",))
    approval = await approvals.wait(
        current_user(request), _approval_id(request), query_int(values, "wait_ms")
    )
    return answer(approval_outcome(approval))


@_approvals_route
async def decide_approval(request: Request, approvals: Approvals, _: Notices) -> Response:
    """The person's decision: `behavior` allow, deny (with `message`, read by the agent word for
    word) or allow_session, bound to `input_hash`; a question's `answers` and `other`. Only a
    browser login decides: an API token gets 403. 409 when the request ended or the hash is
    another input's. Answers the request's record."""
    body = await read_body(request, ApprovalDecisionBody)
    if not signed_in_by_browser(request):
        raise BrowserLoginNeeded(TOKEN_CANNOT_DECIDE)
    approval = await approvals.decide(
        current_user(request),
        _approval_id(request),
        hash_of_input=body.input_hash,
        behavior=body.behavior,
        message=body.message,
        answers=body.answers,
        other=body.other,
    )
    return answer(await approvals.record(approval))


@_approvals_route
async def approvals_done(request: Request, approvals: Approvals, notices: Notices) -> Response:
    """An agent session went on in its terminal: its pending cards for the tool call (every
    pending card of the session without `tool_name`) close as answered there, and its notices
    go away ("stopped" only when a tool ran). Answers `{closed}`."""
    body = await read_body(request, ApprovalDoneBody)
    user = current_user(request)
    closed = await approvals.done(user, body.session_id, body.tool_name, body.tool_input)
    await notices.carried_on(user, body.session_id, tool_ran=body.tool_name is not None)
    return answer(ApprovalsDone(closed=closed))


@_approvals_route
async def raise_notice(request: Request, _: Approvals, notices: Notices) -> Response:
    """Raise a notice for an agent session (terminal, idle, other), replacing the last of its
    kind; a terminal notice is not raised while a card of the session asks. Answers
    `{raised}`."""
    body = await read_body(request, NoticeBody)
    raised = await notices.raise_notice(
        current_user(request),
        session_id=body.session_id,
        kind=body.kind,
        harness=body.harness,
        machine_label=body.machine_label,
        message=body.message,
    )
    return answer(NoticeRaised(raised=raised is not None))


@_approvals_route
async def dismiss_notice(request: Request, _: Approvals, notices: Notices) -> Response:
    """Dismiss the session's notice of `kind`."""
    body = await read_body(request, NoticeDismissBody)
    await notices.dismiss(current_user(request), body.session_id, body.kind)
    return answer(Ok())


def _approval_id(request: Request) -> str:
    value = request.path_params["approval_id"]
    assert isinstance(value, str)
    return value


routes: list[BaseRoute] = [
    Route("/api/approvals", request_approval, methods=["POST"]),
    Route("/api/approvals", list_approvals, methods=["GET"]),
    Route("/api/approvals/done", approvals_done, methods=["POST"]),
    Route("/api/approvals/{approval_id}", get_approval, methods=["GET"]),
    Route("/api/approvals/{approval_id}/wait", wait_approval, methods=["GET"]),
    Route("/api/approvals/{approval_id}/decision", decide_approval, methods=["POST"]),
    Route("/api/notices", raise_notice, methods=["POST"]),
    Route("/api/notices/dismiss", dismiss_notice, methods=["POST"]),
]
