"""``GET /api/search``, ``/api/backlinks`` and ``/api/titles``: the search index's answers.

Thin: parse the query strictly, call ``services.search``, answer its ``quire.api.search`` model.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.search import SEARCH_MODES, Reindexed, Titles
from quire.core.errors import InvalidArgument
from quire.services.search import LIMIT, SearchService
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, query_int
from quire.web.context import current_user, services_of

PARAMETERS = ("q", "mode", "limit", "cursor", "workspace")


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


def _search_service(request: Request) -> SearchService:
    search = services_of(request).search
    if search is None:
        raise RuntimeError("This server was built without its search service.")
    return search


async def search(request: Request) -> Response:
    """Search the workspaces for `q` (1 to 1,000 characters; `tag:NAME` terms keep only notes
    tagged NAME). `mode` grep (default): the files holding `q` ignoring case; words: the files
    holding every word, best first; semantic: the words ranking fused with the notes nearest
    in meaning (the semantic extra; without it the words ranking and a note). `limit` 1 to
    200 (default 50) files; `cursor` (a nextCursor) gives the next page; `workspace` (a path
    from GET /api/workspaces) searches one folder. Each hit has the line of its first match
    and a snippet with the match between U+0002 and U+0003; `note` says when the index is
    still being built, files could not be read (listed in `unreadable`) or semantic search
    is not installed."""
    _require_utf8(request)
    values = query_args(request, PARAMETERS)
    limit = query_int(values, "limit")
    mode = values.get("mode", "grep")
    if mode not in SEARCH_MODES:
        raise InvalidArgument(
            f"`mode` must be one of {', '.join(SEARCH_MODES)}, got {mode!r}.", argument="mode"
        )
    page = await _search_service(request).search(
        values.get("q", ""),
        mode=mode,
        limit=LIMIT[2] if limit is None else limit,
        cursor=values.get("cursor"),
        workspace=values.get("workspace"),
    )
    return answer(page)


async def backlinks(request: Request) -> Response:
    """The notes that link to the document at `path` (absolute): by a wikilink naming its file
    or its path in its workspace, or by a Markdown link; each with its title and the line of
    its first such link."""
    values = query_args(request, ("path",))
    raw = values.get("path")
    if raw is None:
        raise InvalidArgument(
            "`path` is required: pass the absolute path of the document whose backlinks to list.",
            argument="path",
        )
    return answer(await _search_service(request).backlinks(absolute_path(raw)))


async def titles(request: Request) -> Response:
    """Quick open: the documents whose title or path fits `q` (fuzzy: its characters in
    order), best first, the person's recent documents first among equals; `limit` 1 to 200
    (default 50)."""
    _require_utf8(request)
    values = query_args(request, ("q", "limit"))
    limit = query_int(values, "limit")
    services = services_of(request)
    recents = await services.windows.recent(current_user(request), 200)
    query = values.get("q", "")
    hits = await _search_service(request).titles(
        query, LIMIT[2] if limit is None else limit, recent=[item.path for item in recents]
    )
    return answer(Titles(query=query, hits=hits))


async def reindex(request: Request) -> Response:
    """Rebuild the search index from nothing (the files are read again) and answer once it is
    done: how many notes it indexed and how many files it could not read."""
    search = _search_service(request)
    indexed = await search.reindex()
    return answer(Reindexed(indexed=indexed, unreadable=await search.unreadable_count()))


routes: list[BaseRoute] = [
    Route("/api/search/reindex", reindex, methods=["POST"]),
    Route("/api/search", search, methods=["GET"]),
    Route("/api/backlinks", backlinks, methods=["GET"]),
    Route("/api/titles", titles, methods=["GET"]),
]
