"""The OpenAPI 3.1 description of the HTTP API, served at ``/api/openapi.json``.

Built from an explicit table of operations (summary, body model, query parameters) joined
with the routes' own docstrings, so the words cannot drift from the handlers; a test checks
that the table and the app's ``/api/`` routes name the same operations.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount, Route

from quire import __version__
from quire.api.base import SCHEMA_REFS, Answer, AnswerSchema
from quire.api.errors import ErrorBody
from quire.api.events import EVENTS
from quire.api.operations import OPERATIONS, Operation
from quire.web.auth import SESSION_COOKIE

OPENAPI_PATH = "/api/openapi.json"
"""Where the document is served; the operation table lists it under the same path."""
_PARAMETER = re.compile(r"{([^}:]+)(:[^}]+)?}")


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
    does not serve. Operations served in multi mode only are left out of a single-mode
    server's document.
    """
    handlers = {(method, path): route for method, path, route in route_table(routes)}
    paths: dict[str, dict[str, Any]] = {}
    schemas: dict[str, Any] = {}
    component(ErrorBody, schemas)
    # /ws/events is no HTTP operation, but its frames are contract too (and typed in the UI).
    events = EVENTS.json_schema(
        by_alias=True, mode="serialization", ref_template=SCHEMA_REFS, schema_generator=AnswerSchema
    )
    schemas.update(events.pop("$defs", {}))
    schemas["Event"] = events
    for operation in OPERATIONS:
        route = handlers.get((operation.method, operation.path))
        if route is None and operation.multi:
            continue  # a single-mode server does not serve the account and admin changes
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
                        "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
                    },
                }
            },
        },
    }


async def openapi_endpoint(request: Request) -> JSONResponse:
    """This OpenAPI 3.1 document."""
    return JSONResponse(openapi_document(request.app.routes))


def component(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, str]:
    """A ``$ref`` to ``model``'s schema, added (with the models it uses) to ``schemas``: an
    answer as it is sent, a request body as it is read."""
    if issubclass(model, Answer):
        schema = model.schema_of(SCHEMA_REFS)
    else:
        schema = model.model_json_schema(by_alias=True, mode="validation", ref_template=SCHEMA_REFS)
    schemas.update(schema.pop("$defs", {}))
    taken = schemas.get(model.__name__)
    if taken is not None and taken != schema:
        # Two models of one name would share one TypeScript type: the UI would read the wrong
        # shape for one of them.
        raise LookupError(f"two API models are named {model.__name__}: rename one")
    schemas[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _operation(operation: Operation, route: Route, schemas: dict[str, Any]) -> dict[str, Any]:
    shapes = [component(model, schemas) for model in operation.answers]
    answer = shapes[0] if len(shapes) == 1 else {"oneOf": shapes} if shapes else {}
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
            "200": {"description": "Done.", "content": {operation.media: {"schema": answer}}},
            "default": {"$ref": "#/components/responses/Error"},
        },
    }
    if operation.body is not None:
        described["requestBody"] = {
            "required": any(field.is_required() for field in operation.body.model_fields.values()),
            "content": {"application/json": {"schema": component(operation.body, schemas)}},
        }
    if operation.public:
        described["security"] = []
    return described


def _plain_path(path: str) -> str:
    """``/a/{id:int}`` → ``/a/{id}``: OpenAPI path templates carry no converters."""
    return _PARAMETER.sub(lambda match: "{" + match.group(1) + "}", path)
