"""The human review loop as tools: request_review and get_user_annotations.

request_review registers a review with the server and waits for the person server-side (a
long-poll, never blocking the connection's other requests); get_user_annotations reads the
verdict and tasks from the server, or the tasks from disk when no server answers.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import anyio
from pydantic import MISSING

from quire.api.reviews import FileAnnotations, ReviewOutcome, ReviewRecord, TaskItem
from quire.core.errors import InvalidArgument, QuireError, ServerUnreachable, TokenRefused
from quire.core.views import REVIEW_TIMEOUT_MS, REVIEW_WAIT_MS
from quire.fs.documents import read_document
from quire.markdown.edits import check_request_size
from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec

NEEDS_ONE = (
    "request_review needs one of `path`, `content` or `review_id`: pass path to have the "
    "person review a file, content for inline Markdown, or review_id to keep waiting on a "
    "review an earlier call returned as pending."
)


def _check_combination(args: dict[str, Any]) -> None:
    if not any(name in args for name in ("path", "content", "review_id")):
        raise InvalidArgument(NEEDS_ONE, argument="path")
    if "path" in args and "content" in args:
        raise InvalidArgument(
            "Pass either `path` or `content` to request_review, not both: a review is of a "
            "file or of inline text.",
            argument="content",
        )


async def request_review_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Ask the person to review a file or inline text, and wait for the verdict."""
    _check_combination(args)
    path = None
    if "path" in args:
        path = str(await env.document_path(args["path"], "path", "review"))
    content = args.get("content")
    if content is not None:
        check_request_size(content)
    timeout_ms = args.get("timeout_ms")
    wait_ms = int(args.get("wait_ms", REVIEW_WAIT_MS[2]))
    blocking = bool(args.get("blocking", True))
    api = await env.link.api()
    review_id = args.get("review_id")
    if review_id is None:
        review_id = await api.request_review(
            path=path, content=content, timeout_ms=timeout_ms, requested_by=env.client_name
        )
        if not blocking:
            return ReviewOutcome(
                review_id=review_id, status="pending", message=_IN_THE_PANEL
            ).dump()
        return (await api.wait_review(review_id, wait_ms)).dump()
    if not blocking:
        record = await api.review(review_id)
        _check_resent(record, path=path, content=content, timeout_ms=timeout_ms)
        return _from_record(record, env.services.clock()).dump()
    outcome = await api.resume_review(
        review_id, wait_ms, path=path, content=content, timeout_ms=timeout_ms
    )
    return outcome.dump()


_IN_THE_PANEL = (
    "The review is in the person's review panel. Call request_review with this review_id to "
    "wait for the verdict, or get_user_annotations with the path to read it later."
)


def _check_resent(
    record: ReviewRecord, *, path: str | None, content: str | None, timeout_ms: int | None
) -> None:
    resent = (
        ("path", path, record.path),
        ("content", content, record.content),
        ("timeout_ms", timeout_ms, record.timeout_ms),
    )
    for argument, value, requested in resent:
        if value is not None and requested != value:
            raise InvalidArgument(
                f"`{argument}` differs from what review {record.review_id} was requested "
                f"with, and a review cannot change once requested. Leave `{argument}` out to "
                "keep waiting on that review, or leave review_id out to request a new one.",
                argument=argument,
            )


def _from_record(record: ReviewRecord, now_ms: int) -> ReviewOutcome:
    if record.status == "pending":
        if record.deadline <= now_ms:
            return ReviewOutcome(verdict="timeout", review_id=record.review_id, comments=None)
        return ReviewOutcome(status="pending", review_id=record.review_id)
    assert record.verdict is not None, "a review that is not pending has its verdict"
    return ReviewOutcome(
        verdict=record.verdict,
        review_id=record.review_id,
        comments=record.comments,
        late=True if record.late else MISSING,
        superseded_by=record.superseded_by or MISSING,
    )


class ToolAnnotations(FileAnnotations):
    """get_user_annotations' result: the server's annotations of the file, or with no server
    (`serverRunning: false`) or a refused token (`serverAuthFailed: true`) its tasks read
    from disk, with a `note` saying why there is no verdict."""

    server_running: bool | MISSING = MISSING
    server_auth_failed: bool | MISSING = MISSING


async def get_user_annotations_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """The person's latest verdict on a file and its task checkboxes."""
    path = await env.allowed_path(args["path"], "path", "read")
    try:
        api = await env.link.running()
    except QuireError:
        api = None
    if api is None and not env.remote:
        return await _from_disk(env, path, server_running=False, note=_NO_SERVER_NOTE)
    try:
        if api is None:  # an account's call: the server it reaches is the only source
            api = await env.link.api()
        return (await api.annotations(str(path))).dump()
    except TokenRefused as refused:
        if env.remote:  # an account's refused token reads nothing, not even from disk
            raise
        note = f"{refused} Meanwhile the tasks were read from the file on disk."
        return await _from_disk(env, path, server_auth_failed=True, note=note)
    except ServerUnreachable:
        if env.remote:
            raise
        return await _from_disk(env, path, server_running=False, note=_NO_SERVER_NOTE)


_NO_SERVER_NOTE = (
    "No Quire server is running, so the person's review verdicts (which the server keeps) "
    "could not be read: verdict and comments are null. The tasks were read from the file on "
    "disk. Call request_review (it starts the server) to ask the person for a verdict."
)


async def _from_disk(
    env: ToolEnv,
    path: Path,
    *,
    note: str,
    server_running: bool | MISSING = MISSING,
    server_auth_failed: bool | MISSING = MISSING,
) -> dict[str, Any]:
    tasks: tuple[TaskItem, ...] = ()
    tasks_note: str | MISSING = MISSING
    try:
        folders = await env.folders()
        _file, source = await anyio.to_thread.run_sync(read_document, folders, path)
        from quire.markdown.tasks import extract_tasks  # the parser loads on first use

        found = await anyio.to_thread.run_sync(partial(extract_tasks, source))
        tasks = tuple(TaskItem(line=t.line, checked=t.checked, text=t.text) for t in found)
    except QuireError as exc:
        tasks_note = f"{str(exc).rstrip()} Its tasks were not read."
    return ToolAnnotations(
        path=str(path),
        verdict=None,
        comments=None,
        late=False,
        tasks=tasks,
        tasks_note=tasks_note,
        note=note,
        server_running=server_running,
        server_auth_failed=server_auth_failed,
    ).dump()


REQUEST_REVIEW = ToolSpec(
    name="request_review",
    title="Ask the person for a review",
    description=(
        "BLOCKING human sign-off: shows a file (path) or Markdown (content) in the person's "
        "review panel and waits up to wait_ms per call. Returns {verdict, reviewId, comments} "
        "(approved, changes_requested, dismissed, timeout after timeout_ms, or superseded by a "
        "newer review), or {status: pending, reviewId}: call again with review_id. blocking: "
        "false returns at once. Survives a server restart."
    ),
    input_schema=s.obj(
        {
            "path": s.path("The Markdown file for the person to review."),
            "content": s.text("Inline Markdown for the person to review.", filled=True),
            "blocking": s.boolean("Wait for the verdict (false returns at once).", True),
            "timeout_ms": s.integer(
                "How long the person has to decide, in milliseconds.",
                REVIEW_TIMEOUT_MS[0],
                REVIEW_TIMEOUT_MS[1],
                REVIEW_TIMEOUT_MS[2],
            ),
            "wait_ms": s.integer(
                "The most this call waits, in milliseconds.",
                REVIEW_WAIT_MS[0],
                REVIEW_WAIT_MS[1],
                REVIEW_WAIT_MS[2],
            ),
            "review_id": s.text(
                "Keep waiting on this review (from an earlier pending result).", filled=True
            ),
        }
    ),
    output_schema=s.answer(ReviewOutcome),
    handler=request_review_tool,
)

GET_USER_ANNOTATIONS = ToolSpec(
    name="get_user_annotations",
    title="Read the person's annotations",
    description=(
        "The person's latest review verdict and comments on a file (null when none; late, "
        "stale, supersededBy when they apply) and its task checkboxes [{line, checked, text}], "
        "live when open. With no server, tasks come from disk and note says why."
    ),
    input_schema=s.obj({"path": s.path("The Markdown file.")}, ["path"]),
    output_schema=s.answer(ToolAnnotations),
    handler=get_user_annotations_tool,
    read_only=True,
    idempotent=True,
)
