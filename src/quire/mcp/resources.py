"""The MCP resources: ``quire://current``, ``quire://recent-documents``, the search template and
one ``file://`` resource per workspace file.

Reads need a running server (none is started for them); ``resources/read`` of a file accepts
only paths the server advertises, decoded, and then applies the allowed-folder and document
rules, so the resource channel never reads an arbitrary file.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, NoReturn

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from quire.api.windows import RecentDocuments
from quire.client.api import QuireApi
from quire.client.files import FileApi
from quire.core.errors import InvalidArgument, QuireError
from quire.fs.documents import read_document
from quire.mcp.arguments import closest
from quire.mcp.context import ToolEnv
from quire.mcp.pages import more_lines, text_page
from quire.mcp.search import search
from quire.mcp.uris import (
    SEARCH_PREFIX,
    file_uri,
    file_uri_candidates,
    parse_search,
    split_page_query,
)

logger = logging.getLogger(__name__)

CURRENT_URI = "quire://current"
RECENT_URI = "quire://recent-documents"
SEARCH_TEMPLATE = "text://vault-search?q={query}"
RESOURCE_NOT_FOUND = -32002
SERVER_ERROR = -32000
MORE_KEY = "quire/more"
UNLISTED_KEY = "quire/workspaceFilesUnlisted"
TRUNCATED_KEY = "quire/workspaceFilesTruncated"
NOT_RUNNING = (
    "No Quire server is running, so there is nothing to read here. Call the open_file tool "
    "(it starts the server), then read this resource again."
)

STATIC = (
    types.Resource(
        uri=CURRENT_URI,
        name="current",
        title="The open document",
        description=(
            "The live Markdown of the document open in Quire (unsaved edits included). Over "
            "~20,000 tokens it is cut at a line; _meta quire/more then names the URI "
            "(?offset=N&limit=M, in lines) that reads on, as for file:// resources."
        ),
        mime_type="text/markdown",
    ),
    types.Resource(
        uri=RECENT_URI,
        name="recent-documents",
        title="Recent documents",
        description=(
            "Recently opened documents that still exist, each with path, title, mtimeMs and "
            "a 200-character preview, as {documents, count, skipped}."
        ),
        mime_type="application/json",
    ),
)

TEMPLATE = types.ResourceTemplate(
    uri_template=SEARCH_TEMPLATE,
    name="vault-search",
    title="Search the workspace",
    description=(
        "The search_vault search as a resource. Optional &limit= (1 to 200), &mode=grep|words, "
        "&cursor= (a nextCursor), &vault=DIR to search a folder on disk (no server needed) "
        "and &semantic=true|false. Any other parameter, a repeated one or a malformed escape "
        "is refused."
    ),
    mime_type="application/json",
)


def fail(code: int, message: str) -> NoReturn:
    """Answer the request with a JSON-RPC error (the message is what the agent reads)."""
    raise MCPError(code=code, message=message)


async def list_resources(env: ToolEnv) -> types.ListResourcesResult:
    """The static resources and one ``file://`` resource per listed workspace file."""
    resources = list(STATIC)
    meta: dict[str, Any] = {}
    try:
        api = await env.link.running()
        if api is None:
            meta[UNLISTED_KEY] = "No Quire server is running, so its workspace files are unlisted."
        else:
            files, note = await api.all_files()
            resources.extend(
                types.Resource(
                    uri=file_uri(item.path),
                    name=item.rel_path or Path(item.path).name,
                    mime_type="text/markdown",
                )
                for item in files
            )
            if note:
                meta[TRUNCATED_KEY] = note
    except QuireError as exc:
        meta[UNLISTED_KEY] = str(exc)
    if UNLISTED_KEY in meta:
        logger.info("workspace files not listed as resources: %s", meta[UNLISTED_KEY])
    return types.ListResourcesResult(resources=resources, _meta=meta or None)


async def read_resource(env: ToolEnv, uri: str) -> types.ReadResourceResult:
    """Read one resource; errors are JSON-RPC errors with the reason."""
    if uri == RECENT_URI:
        return _json(uri, await _recent(env))
    if uri.startswith(SEARCH_PREFIX):
        return _json(uri, await _search(env, uri))
    if uri.startswith((CURRENT_URI, "file://")):
        try:
            base, query = split_page_query(uri)
        except InvalidArgument as exc:
            fail(types.INVALID_PARAMS, str(exc))
        if base == CURRENT_URI:
            return _document(uri, base, query, await _current(env))
        if base.startswith("file://"):
            return _document(uri, base, query, await _file(env, base))
    known = [CURRENT_URI, RECENT_URI, SEARCH_PREFIX + "q="]
    guess = closest(uri, known)
    hint = f" Did you mean {guess}?" if guess else ""
    fail(
        types.INVALID_PARAMS,
        f"Unknown resource {uri[:200]!r}.{hint} Call resources/list for the resources Quire "
        "offers.",
    )


async def _running(env: ToolEnv) -> QuireApi:
    try:
        api = await env.link.running()
    except QuireError as exc:
        fail(SERVER_ERROR, str(exc))
    if api is None:
        fail(SERVER_ERROR, NOT_RUNNING)
    return api


async def _current(env: ToolEnv) -> str:
    api = await _running(env)
    try:
        current = await api.current()
    except QuireError as exc:
        fail(SERVER_ERROR, str(exc))
    if current.path is None:
        fail(RESOURCE_NOT_FOUND, "No document is open in Quire. Open one first (open_file).")
    return current.content


async def _recent(env: ToolEnv) -> dict[str, Any]:
    """The recent documents the server describes; a local call keeps those in its allowed
    folders (an account's call gets what the server's grants let it read)."""
    api = await _running(env)
    try:
        described = await api.recent_documents(200)
    except QuireError as exc:
        fail(SERVER_ERROR, str(exc))
    if env.remote:
        return described.dump()
    allowed = await env.folders()
    kept = tuple(doc for doc in described.documents if allowed.contains(Path(doc.path)))
    skipped = described.skipped
    outside = skipped.not_allowed + len(described.documents) - len(kept)
    return RecentDocuments(
        documents=kept,
        count=len(kept),
        skipped=skipped.model_copy(update={"not_allowed": outside}),
    ).dump()


async def _search(env: ToolEnv, uri: str) -> dict[str, Any]:
    try:
        parsed = parse_search(uri)
        return await search(
            env,
            parsed.query,
            limit=parsed.limit,
            semantic=parsed.semantic,
            vault=parsed.vault,
            mode=parsed.mode,
            cursor=parsed.cursor,
            start_server=False,
        )
    except InvalidArgument as exc:
        fail(types.INVALID_PARAMS, str(exc))
    except QuireError as exc:
        fail(SERVER_ERROR, str(exc))


async def _file(env: ToolEnv, uri: str) -> str:
    try:
        candidates = file_uri_candidates(uri)
        decode_error = None
    except InvalidArgument as exc:
        candidates = (uri[len("file://") :], None)
        decode_error = exc
    if candidates is None:
        fail(types.INVALID_PARAMS, f"{uri[:200]!r} is not a file:// URI of an absolute path.")
    api = await _running(env)
    try:
        files, _ = await api.all_files()
        recent = await api.recent(200)
    except QuireError as exc:
        fail(SERVER_ERROR, str(exc))
    advertised = {item.path for item in files} | {item.path for item in recent}
    as_written, decoded = candidates
    if as_written in advertised:
        path = as_written
    elif decode_error is not None:
        fail(types.INVALID_PARAMS, str(decode_error))
    elif decoded is not None and decoded in advertised:
        path = decoded
    else:
        fail(
            RESOURCE_NOT_FOUND,
            f"{uri[:200]!r} is not a file Quire lists (a workspace file or a recent "
            "document). Open it with the open_file tool first, or call resources/list.",
        )
    try:
        if env.remote:  # the server's disk, read through its API under the account's grants
            return await FileApi(api).text(path)
        allowed = await env.folders()
        _found, text = await anyio.to_thread.run_sync(read_document, allowed, Path(path))
        return text
    except QuireError as exc:
        fail(RESOURCE_NOT_FOUND, str(exc))


def _document(uri: str, base: str, query: dict[str, int], text: str) -> types.ReadResourceResult:
    """One page of a document resource, with ``_meta`` naming the URI that reads on."""
    try:
        page = text_page(text, query)
    except InvalidArgument as exc:
        fail(types.INVALID_PARAMS, str(exc))
    result = _text(uri, page.text, "text/markdown")
    more = more_lines(page, "resources/read", {})
    if more is None:
        return result
    if more.get("call") is not None:
        limit = f"&limit={query['limit']}" if "limit" in query else ""
        next_uri = f"{base}?offset={page.next_offset}{limit}"
        more["call"] = {"name": "resources/read", "arguments": {"uri": next_uri}}
    return types.ReadResourceResult(contents=result.contents, _meta={MORE_KEY: more})


def _text(uri: str, text: str, mime: str) -> types.ReadResourceResult:
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)]
    )


def _json(uri: str, data: dict[str, Any]) -> types.ReadResourceResult:
    return _text(uri, json.dumps(data, ensure_ascii=False), "application/json")
