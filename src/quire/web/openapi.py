"""The OpenAPI 3.1 description of the HTTP API, served at ``/api/openapi.json``.

Built from an explicit table of operations (summary, body model, query parameters) joined
with the routes' own docstrings, so the words cannot drift from the handlers; a test checks
that the table and the app's ``/api/`` routes name the same operations.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount, Route

from quire import __version__
from quire.web import agents, chats, documents, preview, rendering, reviews, windows
from quire.web.auth import SESSION_COOKIE

OPENAPI_PATH = "/api/openapi.json"
_PARAMETER = re.compile(r"{([^}:]+)(:[^}]+)?}")


@dataclass(frozen=True)
class Query:
    """A query parameter: its name, JSON type and meaning."""

    name: str
    kind: str
    description: str
    required: bool = False


@dataclass(frozen=True)
class Operation:
    """One documented method on one path."""

    method: str
    path: str
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    query: tuple[Query, ...] = ()
    public: bool = False


OPERATIONS: tuple[Operation, ...] = (
    Operation("GET", "/health", "Whether the server is up (no token needed)", "server",
              public=True),
    Operation("GET", OPENAPI_PATH, "This description of the API", "server"),
    Operation("POST", "/api/documents/open", "Open a file in the window", "documents",
              documents.OpenBody),
    Operation("GET", "/api/documents/current", "The open document's live text", "documents"),
    Operation("POST", "/api/documents/edit", "Replace one exact occurrence", "documents",
              documents.EditBody),
    Operation("POST", "/api/documents/stream-edit", "Preview a find/replace", "documents",
              documents.StreamEditBody),
    Operation("POST", "/api/documents/stream-edit-apply", "Apply a previewed find/replace",
              "documents", documents.ApplyBody),
    Operation("POST", "/api/documents/set-content", "Replace the whole text", "documents",
              documents.ContentBody),
    Operation("POST", "/api/documents/save", "Save the open document", "documents",
              documents.SaveBody),
    Operation("GET", "/api/documents/render", "The Read view's HTML of an open document",
              "documents", query=(Query("docId", "string", "The open tab's docId.", True),
                                  Query("part", "string", "head: a long document's start."))),
    Operation("GET", "/api/documents/state", "Unsaved edits and conflict of an open document",
              "documents", query=(Query("docId", "string", "The open tab's docId.", True),)),
    Operation("POST", "/api/documents/toggle-task", "Tick or clear a task checkbox",
              "documents", preview.ToggleTaskBody),
    Operation("POST", "/api/documents/resolve-conflict", "Keep your text or the file's",
              "documents", preview.ResolveConflictBody),
    Operation("POST", "/api/render", "Any Markdown text as sanitised HTML", "documents",
              rendering.RenderBody),
    Operation("GET", "/api/window", "The window state", "window"),
    Operation("POST", "/api/window/present", "Present a document", "window", windows.PresentBody),
    Operation("POST", "/api/window/leave-present", "Leave present mode", "window",
              windows.NoBody),
    Operation("POST", "/api/window/view", "Set a tab's view", "window", windows.ViewBody),
    Operation("POST", "/api/window/activate", "Make a tab active", "window", windows.TabBody),
    Operation("POST", "/api/window/close", "Close a tab", "window", windows.TabBody),
    Operation("GET", "/api/recent", "Recently opened documents", "window",
              query=(Query("limit", "integer", "1 to 200, default 10."),)),
    Operation("GET", "/api/files", "The workspaces' Markdown files, a page at a time", "window",
              query=(Query("cursor", "string", "The nextCursor of the previous page."),
                     Query("limit", "integer", "1 to 1,000, default 100."))),
    Operation("GET", "/api/workspaces", "The folders this server serves", "window"),
    Operation("POST", "/api/reviews", "Request a review", "reviews", reviews.RequestBody),
    Operation("GET", "/api/reviews/active", "The review in the panel", "reviews"),
    Operation("GET", "/api/reviews/{review_id}", "A review's record", "reviews"),
    Operation("GET", "/api/reviews/{review_id}/wait", "Wait for a verdict", "reviews",
              query=(Query("wait_ms", "integer", "1,000 to 600,000, default 50,000."),)),
    Operation("POST", "/api/reviews/{review_id}/wait", "Resume waiting for a verdict",
              "reviews", reviews.WaitBody),
    Operation("POST", "/api/reviews/{review_id}/decision", "Decide a review", "reviews",
              reviews.DecisionBody),
    Operation("GET", "/api/annotations", "A file's review verdict, comments and tasks",
              "reviews", query=(Query("path", "string", "The file's absolute path.", True),)),
    Operation("GET", "/api/search", "Search the documents for a phrase", "search",
              query=(Query("q", "string", "The words to find, 1 to 1,000 characters.", True),
                     Query("limit", "integer", "1 to 200, default 50."),
                     Query("workspace", "string", "Search only this served folder."))),
    Operation("GET", "/api/agents", "The coding agents and hooks Quire connects", "agents"),
    Operation("POST", "/api/agents/{agent_id}/connect", "Register Quire with an agent",
              "agents", agents.ConnectBody),
    Operation("POST", "/api/agents/hook", "Install or remove Quire's agent hooks", "agents",
              agents.HookBody),
    Operation("GET", "/api/chats", "The chats, most recently active first", "chats",
              query=(Query("workspace", "string", "Only the chats of this served folder."),
                     Query("as", "string", "The reader whose unread messages to count."))),
    Operation("POST", "/api/chats", "Create a chat, or make a note one", "chats",
              chats.ChatCreateBody),
    Operation("GET", "/api/chats/read", "A chat's messages, presence and roles", "chats",
              query=(Query("path", "string", "The chat's absolute path.", True),
                     Query("as", "string", "Mark everything read for this name."),
                     Query("after", "integer", "Only messages numbered above this."),
                     Query("session", "string", "The agent session reading, for keepalive."))),
    Operation("POST", "/api/chats/post", "Post a message or a slash command", "chats",
              chats.ChatPostBody),
    Operation("POST", "/api/chats/wait", "Wait for new messages", "chats", chats.ChatWaitBody),
    Operation("POST", "/api/chats/leave", "Leave a chat", "chats", chats.ChatLeaveBody),
    Operation("GET", "/api/chats/session", "An agent session's last chat command", "chats",
              query=(Query("id", "string", "The agent's session id.", True),)),
    Operation("POST", "/api/chats/session/stop", "Record a stop attempt of a session",
              "chats", chats.ChatStopBody),
    Operation("POST", "/api/chats/pin", "Pin or unpin a chat", "chats", chats.ChatPinBody),
    Operation("POST", "/api/chats/delete", "Delete a chat", "chats", chats.ChatPathBody),
    Operation("GET", "/api/chats/gifs", "The chat pictures of a workspace", "chats",
              query=(Query("workspace", "string", "The served folder.", True),)),
    Operation("GET", "/api/chats/gif", "One chat picture, served inert", "chats",
              query=(Query("workspace", "string", "The served folder.", True),
                     Query("name", "string", "The picture's name.", True))),
    Operation("POST", "/api/chats/avatar", "Set a name's avatar", "chats",
              chats.ChatAvatarBody),
)  # fmt: skip
"""Every operation of the HTTP API, in the order the document lists them."""

_DESCRIPTION = (
    "The HTTP API of a Quire server. Every operation except /health needs "
    "`Authorization: Bearer <token>` (the token is in the state folder's server.json) or the "
    "browser's session cookie. A token request may name the agent it acts for in "
    "`X-Quire-Agent` (percent-encoded UTF-8): its changes are attributed to that name, or to "
    '`agent` without one. Errors answer `{"error": {"type", "message", '
    '"argument"?, "matchCount"?}}`. Live channels are WebSockets, outside this document: '
    "/ws/events carries window events as JSON text frames, and /ws/documents/{docId} speaks "
    "the Yjs sync protocol of one open document."
)


def route_table(routes: Iterable[BaseRoute], prefix: str = "") -> Iterator[tuple[str, str, Route]]:
    """(method, path, route) of every HTTP route, Mounts included; HEAD is left out."""
    for route in routes:
        if isinstance(route, Mount):
            yield from route_table(route.routes, prefix + route.path)
        elif isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    yield method, _plain_path(prefix + route.path), route


def openapi_document(routes: Iterable[BaseRoute]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of OPERATIONS, with each handler's docstring as description.

    Raises LookupError when an operation has no route: the table names something the app
    does not serve.
    """
    handlers = {(method, path): route for method, path, route in route_table(routes)}
    paths: dict[str, dict[str, Any]] = {}
    schemas: dict[str, Any] = {"Error": _ERROR_SCHEMA}
    for operation in OPERATIONS:
        route = handlers.get((operation.method, operation.path))
        if route is None:
            raise LookupError(f"{operation.method} {operation.path} is documented but not served")
        paths.setdefault(operation.path, {})[operation.method.lower()] = _operation(
            operation, route, schemas
        )
    return {
        "openapi": "3.1.0",
        "info": {"title": "Quire", "version": __version__, "description": _DESCRIPTION},
        "security": [{"bearer": []}, {"session": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "session": {"type": "apiKey", "in": "cookie", "name": SESSION_COOKIE},
            },
            "responses": {
                "Error": {
                    "description": "The request was refused; the message says why and what "
                    "to do next.",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                }
            },
        },
    }


async def openapi_endpoint(request: Request) -> JSONResponse:
    """This OpenAPI 3.1 document."""
    return JSONResponse(openapi_document(request.app.routes))


def _operation(operation: Operation, route: Route, schemas: dict[str, Any]) -> dict[str, Any]:
    described: dict[str, Any] = {
        "operationId": route.name,
        "summary": operation.summary,
        "description": inspect.cleandoc(route.endpoint.__doc__ or ""),
        "tags": [operation.tag],
        "parameters": [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in (match.group(1) for match in _PARAMETER.finditer(operation.path))
        ]
        + [
            {
                "name": query.name,
                "in": "query",
                "required": query.required,
                "description": query.description,
                "schema": {"type": query.kind},
            }
            for query in operation.query
        ],
        "responses": {
            "200": {"description": "Done.", "content": {"application/json": {"schema": {}}}},
            "default": {"$ref": "#/components/responses/Error"},
        },
    }
    if operation.body is not None:
        name = operation.body.__name__
        schema = operation.body.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[name] = schema
        described["requestBody"] = {
            "required": any(field.is_required() for field in operation.body.model_fields.values()),
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
        }
    if operation.public:
        described["security"] = []
    return described


def _plain_path(path: str) -> str:
    """``/a/{id:int}`` → ``/a/{id}``: OpenAPI path templates carry no converters."""
    return _PARAMETER.sub(lambda match: "{" + match.group(1) + "}", path)


_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "message"],
            "properties": {
                "type": {"type": "string", "description": "The error's class, e.g. EditRefused."},
                "message": {"type": "string", "description": "What happened, what to do next."},
                "argument": {"type": "string", "description": "The argument at fault."},
                "matchCount": {"type": "integer", "description": "How often find occurs."},
            },
        }
    },
}
