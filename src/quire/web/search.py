"""``GET /api/search``: the window's search over the served documents and the recent ones.

Thin: parse the query strictly, call ``services.search``, answer its model.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.core.errors import InvalidArgument
from quire.services.search import LIMIT, search_documents, served_folder
from quire.web.answers import answer
from quire.web.arguments import query_args, query_int
from quire.web.context import current_user, services_of

PARAMETERS = ("q", "limit", "workspace")


def _require_utf8(request: Request) -> None:
    # Starlette replaces bytes that are not UTF-8 with U+FFFD, which would search for it.
    raw = request.scope.get("query_string", b"").decode("latin-1")
    try:
        parse_qsl(raw, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise InvalidArgument(
            "The search's parameters are not UTF-8 text once percent-decoded. Encode the "
            "words as UTF-8 before percent-encoding them.",
            argument="q",
        ) from None


async def search(request: Request) -> Response:
    """Search the workspaces' Markdown documents and the recent ones for `q` (one phrase,
    ignoring case; 1 to 1,000 characters). `limit` (1 to 200, default 50) caps the files
    returned, those with the most matching lines first; `workspace` (a path from
    GET /api/workspaces) searches only that folder. Answers `{query, results: [{path, title,
    matches, lines: [{line, text}]}], total, searched, truncated, unread: [{path, reason}],
    unreadCount, note?}`: each result shows its first three matching lines (1-based line, the
    text around the match); files that cannot be read are named in unread (the first 20) and
    note, and truncated says when not every file was searched."""
    _require_utf8(request)
    values = query_args(request, PARAMETERS)
    limit = query_int(values, "limit")
    services = services_of(request)
    raw_workspace = values.get("workspace")
    workspace = None if raw_workspace is None else served_folder(services.workspaces, raw_workspace)
    recents = await services.windows.recent(current_user(request), 200)
    found = await search_documents(
        services.workspaces,
        [item.path for item in recents],
        values.get("q", ""),
        limit=LIMIT[2] if limit is None else limit,
        workspace=workspace,
    )
    return answer(found)


routes: list[BaseRoute] = [Route("/api/search", search, methods=["GET"])]
