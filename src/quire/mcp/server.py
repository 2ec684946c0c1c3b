"""Builds Quire's MCP server (the SDK's low-level ``Server``) from the catalog, resources and
prompts, with strict argument checking and tool errors as ``isError`` results.

Transport-free: ``quire mcp`` runs it over stdio and ``quire serve`` over Streamable HTTP.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar

import mcp_types as types
import pydantic_core
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp_types.version import is_version_at_least

from quire import __version__
from quire.core.errors import EditRefused, QuireError
from quire.mcp.arguments import check, closest, describe
from quire.mcp.catalog import (
    BY_NAME,
    CHAT_OFF,
    CHAT_TOOL_NAMES,
    NO_SERVER_TOOLS,
    NOT_REMOTE,
    listed_tools,
    offered,
)
from quire.mcp.context import Services, ToolEnv, ToolOutput, ToolSpec
from quire.mcp.prompts import get_prompt, listed_prompts
from quire.mcp.resources import TEMPLATE, list_resources, read_resource
from quire.mcp.roots import RootsNeeded

logger = logging.getLogger(__name__)
R = TypeVar("R")

INSTRUCTIONS = (
    "Quire shows Markdown documents to a person in a browser window and lets you work on them "
    "together. Start with open_file: it shows a document to the person (starting the Quire "
    "server in the background when none runs) and makes it the open document. Then use "
    "get_current_content to read its live text, edit_document for exact, unique find/replace "
    "edits (prefer it to set_content and replace_document, which rewrite everything), "
    "present_document to show a finished result, and request_review for the person's "
    "sign-off.\n\nThe review loop: request_review (path or content) puts the document in the "
    "person's review panel and waits for Approve, Request changes or Dismiss. When it returns "
    "{status: pending, reviewId}, call request_review again with review_id to keep waiting. "
    "On changes_requested, apply the comments with edit_document and request a review again. "
    "get_user_annotations reads the latest verdict and the task checkboxes later.\n\nWithout "
    "a server these work from disk: " + ", ".join(NO_SERVER_TOOLS) + ".\n\nPaths may be "
    "absolute, relative to the working directory, or start with ~/, and must lie in an "
    "allowed folder (the server's workspaces, folders passed with --allow, and the client's "
    "roots). Argument errors and tool failures come back as results with isError: read the "
    "message, it names the next call to make."
)


def error_result(error: QuireError) -> types.CallToolResult:
    """A tool failure as the model reads it: ``isError`` with the message (and match count)."""
    structured = None
    if isinstance(error, EditRefused) and error.match_count is not None:
        structured = {"error": str(error), "matchCount": error.match_count}
    return types.CallToolResult(
        content=[types.TextContent(text=str(error))],
        structured_content=structured,
        is_error=True,
    )


def success_result(output: dict[str, Any] | ToolOutput) -> types.CallToolResult:
    """A tool's answer: the structured content, and the same as JSON text."""
    if isinstance(output, ToolOutput):
        data, text = output.data, output.text
    else:
        data, text = output, None
    if text is None:
        text = json_text(data)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=data)


def json_text(data: dict[str, Any]) -> str:
    """``data`` as compact JSON text, non-ASCII characters as themselves.

    pydantic's encoder is several times faster than ``json.dumps`` on a large document; what it
    refuses (a lone surrogate) goes through ``json.dumps``, which writes it escaped.
    """
    try:
        return pydantic_core.to_json(data).decode()
    except pydantic_core.PydanticSerializationError:
        return json.dumps(data, separators=(",", ":"))


def unknown_tool(name: str, chat_enabled: bool = True, remote: bool = False) -> MCPError:
    """The protocol error for a tool name that is not in the catalog (or not offered)."""
    if name in BY_NAME:
        reason = CHAT_OFF if name in CHAT_TOOL_NAMES and not chat_enabled else NOT_REMOTE
        return MCPError(code=types.INVALID_PARAMS, message=reason.format(name=name))
    guess = closest(name, [tool.name for tool in listed_tools(chat_enabled, remote)])
    hint = f" Did you mean {guess!r}?" if guess else ""
    return MCPError(
        code=types.INVALID_PARAMS,
        message=f"Unknown tool {name[:100]!r}.{hint} Call tools/list for the tools Quire offers.",
    )


async def run_tool(tool: ToolSpec, env: ToolEnv, arguments: object) -> types.CallToolResult:
    """Check the arguments, run the tool, and turn any failure into an ``isError`` result."""
    try:
        checked = check(tool.name, tool.input_schema, arguments)
        return success_result(await tool.handler(env, checked))
    except QuireError as error:
        return error_result(error)
    except RootsNeeded:
        raise
    except Exception as error:  # a bug must still reach the model as words, not a hang
        logger.exception("tool %s failed", tool.name)
        return error_result(
            QuireError(
                f"{tool.name} failed unexpectedly ({type(error).__name__}: {error}). This is a "
                "bug in Quire; retrying may not help. The details are in the MCP server's log."
            )
        )


STATELESS_ERA = "2026-07-28"
"""The first protocol revision with one request per call: a server asks the client for input
(roots) only by answering ``input_required``."""


def client_key(ctx: ServerRequestContext[Any]) -> str | None:
    """Which client connection a request came on: ``stdio`` (one process serves one
    connection, of either era) or the HTTP transport's ``mcp-session-id``. None for an HTTP
    request of no session (the 2026-07-28 per-request envelope): nothing in it tells two
    clients apart (their ``clientInfo`` may be the same program twice), so no read is
    remembered for it and a rewrite is merged only from the ``base`` it passes."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    if headers is None:
        return "stdio"
    if is_version_at_least(ctx.protocol_version, STATELESS_ERA):
        return None
    return headers.get("mcp-session-id") or None


ROOTS_KEY = "roots"
"""The key of the roots/list request in an ``input_required`` answer, and of its response."""


def tool_env(
    services: Services,
    ctx: ServerRequestContext[Any],
    params: types.InputResponseRequestParams | None = None,
) -> ToolEnv:
    """One request's view of the services: its session, connection and protocol era, and the
    roots it carries when it answers an ``input_required``."""
    stateless = is_version_at_least(ctx.protocol_version, STATELESS_ERA)
    answered = None
    responses = None if params is None else params.input_responses
    if stateless and responses is not None:
        given = responses.get(ROOTS_KEY)
        if isinstance(given, types.ListRootsResult):
            answered = tuple(str(root.uri) for root in given.roots)
    caller = caller_token(services, ctx)
    return ToolEnv(services, ctx.session, client_key(ctx), stateless, answered, caller)


def caller_token(services: Services, ctx: ServerRequestContext[Any]) -> str | None:
    """The bearer token of the HTTP request that carried this message, when the services act
    for each caller (``/mcp``) and it is not the link's own; None otherwise.

    Read from the request of each message, not the session: a session's calls run in a task
    its first request started, and each call must carry its own request's credential. A
    request without one gets a token no server takes (fail closed; ``/mcp`` refuses such a
    request before it gets here)."""
    if not services.callers:
        return None
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    given = "" if headers is None else str(headers.get("authorization", ""))
    scheme, _, value = given.strip().partition(" ")
    token = value.strip() if scheme.lower() == "bearer" else ""
    own = services.link.fixed
    if own is not None and token and token == own.token:
        return None
    return token or "-"


async def or_roots_required(call: Awaitable[R]) -> R | types.InputRequiredResult:
    """What ``call`` answers, or, when it needs a 2026-07-28 client's roots, the answer that
    asks for them and for the call again."""
    try:
        return await call
    except RootsNeeded:
        return types.InputRequiredResult(input_requests={ROOTS_KEY: types.ListRootsRequest()})


def build_server(services: Services, *, name: str = "quire") -> Server[Any]:
    """Quire's MCP server over ``services``; one instance may serve many connections."""

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        remote = tool_env(services, ctx).remote
        return types.ListToolsResult(tools=listed_tools(services.chat_enabled, remote))

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        env = tool_env(services, ctx, params)
        tool = offered(params.name, services.chat_enabled, env.remote)
        if tool is None:
            raise unknown_tool(params.name, services.chat_enabled, env.remote)
        return await or_roots_required(run_tool(tool, env, params.arguments))

    async def on_list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await list_resources(tool_env(services, ctx))

    async def on_list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[TEMPLATE])

    async def on_read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult | types.InputRequiredResult:
        return await or_roots_required(read_resource(tool_env(services, ctx, params), params.uri))

    async def on_list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=listed_prompts())

    async def on_get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        return await or_roots_required(
            get_prompt(tool_env(services, ctx, params), params.name, params.arguments)
        )

    async def on_roots_changed(
        ctx: ServerRequestContext[Any], params: types.NotificationParams
    ) -> None:
        services.gate.cache.changed()

    server: Server[Any] = Server(
        name,
        version=__version__,
        title="Quire",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=_input_schema,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_templates,
        on_read_resource=on_read_resource,
        on_list_prompts=on_list_prompts,
        on_get_prompt=on_get_prompt,
    )
    # Registered directly: the constructor's roots hook warns that roots are deprecated in the
    # newest revision, but older clients (the ones that send roots) still use them.
    server.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, on_roots_changed
    )
    server.middleware.append(_arguments_not_an_object)
    return server


def _input_schema(name: str) -> Mapping[str, Any] | None:
    tool = BY_NAME.get(name)
    return None if tool is None else tool.input_schema


async def _arguments_not_an_object(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Answer ``tools/call`` whose arguments are not an object with an ``isError`` result.

    The SDK would refuse it as malformed params before the tool is found; the model is
    better served by a result that names the problem, like any other argument error.
    """
    params = ctx.params
    if ctx.method == "tools/call" and isinstance(params, Mapping):
        arguments = params.get("arguments")
        name = params.get("name")
        if arguments is not None and not isinstance(arguments, dict) and name in BY_NAME:
            message = (
                f"The arguments of {name} must be a JSON object mapping names to values, got "
                f"{describe(arguments)}."
            )
            result = error_result(QuireError(message))
            return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return await call_next(ctx)
