"""``/api/history…``: a note's commits, a version, a diff, blame, restore and the timeline.

Thin: parse the query or body strictly, call ``services.history``, answer its
``quire.api.history`` model.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.history import RestoreBody
from quire.core.errors import InvalidArgument
from quire.services.history.service import HistoryService
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, query_int, read_body
from quire.web.authors import request_author
from quire.web.context import services_of


def _history(request: Request) -> HistoryService:
    history = services_of(request).history
    if history is None:
        raise RuntimeError("This server was built without its history service.")
    return history


def _required(values: dict[str, str], name: str, what: str) -> str:
    raw = values.get(name)
    if raw is None:
        raise InvalidArgument(f"`{name}` is required: pass {what}.", argument=name)
    return raw


async def note_history(request: Request) -> Response:
    """The commits of the note `path` (absolute), newest first, renames followed: `limit` 1 to
    200 (default 20), `cursor` (a nextCursor) for the next page."""
    values = query_args(request, ("path", "limit", "cursor"))
    path = absolute_path(_required(values, "path", "the note's absolute path"))
    page = await _history(request).note_history(
        path, limit=query_int(values, "limit"), cursor=values.get("cursor")
    )
    return answer(page)


async def version(request: Request) -> Response:
    """The note `path` as it was at the commit `rev` (an id from its history, HEAD, HEAD~N)."""
    values = query_args(request, ("path", "rev"))
    path = absolute_path(_required(values, "path", "the note's absolute path"))
    rev = _required(values, "rev", "a commit id from the note's history")
    return answer(await _history(request).version(path, rev))


async def diff(request: Request) -> Response:
    """The unified diff of the note `path` from the commit `from` to the commit `to`
    (default HEAD)."""
    values = query_args(request, ("path", "from", "to"))
    path = absolute_path(_required(values, "path", "the note's absolute path"))
    start = _required(values, "from", "the older commit id")
    return answer(await _history(request).diff(path, start, values.get("to", "HEAD")))


async def blame(request: Request) -> Response:
    """Each line of the note `path` at `rev` (default HEAD) with its last author and agent."""
    values = query_args(request, ("path", "rev"))
    path = absolute_path(_required(values, "path", "the note's absolute path"))
    return answer(await _history(request).blame(path, values.get("rev", "HEAD")))


async def restore(request: Request) -> Response:
    """Make the note hold its text at `rev` again: through its live document (open editors
    merge it), saved, and committed as `Restore to REV`."""
    body = await read_body(request, RestoreBody)
    restored = await _history(request).restore(
        absolute_path(body.path), body.rev, author=request_author(request)
    )
    return answer(restored)


async def timeline(request: Request) -> Response:
    """Recent commits across the workspaces, newest first: `author` keeps a person's (their
    own and their agents'), `agent` one agent's; `limit` 1 to 200, `cursor` as above."""
    values = query_args(request, ("limit", "cursor", "author", "agent"))
    page = await _history(request).timeline(
        limit=query_int(values, "limit"),
        cursor=values.get("cursor"),
        author=values.get("author") or None,
        agent=values.get("agent") or None,
    )
    return answer(page)


routes: list[BaseRoute] = [
    Route("/api/history", note_history, methods=["GET"]),
    Route("/api/history/version", version, methods=["GET"]),
    Route("/api/history/diff", diff, methods=["GET"]),
    Route("/api/history/blame", blame, methods=["GET"]),
    Route("/api/history/restore", restore, methods=["POST"]),
    Route("/api/history/timeline", timeline, methods=["GET"]),
]
