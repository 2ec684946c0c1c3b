from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from quire.api.base import Answer
from quire.api.operations import OPERATIONS
from quire.web.openapi import component, openapi_document, route_table
from tests.support.contract import check_answer
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio


def _documented(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
    }


def _refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


async def test_every_api_route_is_documented(app: Starlette) -> None:
    served = {(method, path) for method, path, _ in route_table(app.routes)}
    documented = _documented(openapi_document(app.routes))
    api_routes = {entry for entry in served if entry[1].startswith("/api/")}
    assert api_routes - documented == set(), "add these routes to quire.api.operations.OPERATIONS"


async def test_every_documented_operation_is_served(app: Starlette) -> None:
    served = {(method, path) for method, path, _ in route_table(app.routes)}
    documented = _documented(openapi_document(app.routes))
    assert documented - served == set()


def test_an_operation_without_a_route_is_refused() -> None:
    with pytest.raises(LookupError, match="documented but not served"):
        openapi_document([])


async def test_every_operation_says_what_it_does(app: Starlette) -> None:
    document = openapi_document(app.routes)
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert operation["summary"], (method, path)
            assert operation["description"], f"{method} {path}: its handler has no docstring"
            assert operation["operationId"], (method, path)


async def test_every_reference_resolves(app: Starlette) -> None:
    document = openapi_document(app.routes)
    for ref in _refs(document):
        node: Any = document
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        assert node


async def test_the_document_describes_bodies_parameters_and_security(app: Starlette) -> None:
    document = openapi_document(app.routes)
    assert document["openapi"] == "3.1.0"
    edit = document["paths"]["/api/documents/edit"]["post"]
    assert edit["requestBody"]["required"] is True
    schema = document["components"]["schemas"]["EditBody"]
    assert set(schema["required"]) == {"find", "replace"}
    save = document["paths"]["/api/documents/save"]["post"]
    assert save["requestBody"]["required"] is False
    wait = document["paths"]["/api/reviews/{review_id}/wait"]["get"]
    assert {(p["name"], p["in"]) for p in wait["parameters"]} == {
        ("review_id", "path"),
        ("wait_ms", "query"),
    }
    assert document["paths"]["/health"]["get"]["security"] == []
    assert "security" not in edit
    assert {"bearer", "session"} <= set(document["components"]["securitySchemes"])


async def test_operation_ids_are_unique(app: Starlette) -> None:
    ids = [
        operation["operationId"]
        for operations in openapi_document(app.routes)["paths"].values()
        for operation in operations.values()
    ]
    assert len(ids) == len(set(ids))


async def test_the_document_is_served_to_signed_in_clients(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/openapi.json", headers=AUTH)
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Quire"
    # A single-mode server leaves out what only multi mode serves (the account and admin pages).
    single = [operation for operation in OPERATIONS if not operation.multi]
    assert len(single) == len(_documented(response.json()))


def test_routes_inside_mounts_are_listed_without_converters() -> None:
    async def endpoint(request: object) -> JSONResponse:
        return JSONResponse({})

    routes = [Mount("/api/x", routes=[Route("/{item:int}", endpoint, methods=["GET", "POST"])])]
    assert [(method, path) for method, path, _ in route_table(routes)] == [
        ("GET", "/api/x/{item}"),
        ("POST", "/api/x/{item}"),
    ]


async def test_an_operation_with_several_answer_shapes_documents_each(app: Starlette) -> None:
    document = openapi_document(app.routes)
    answer = document["paths"]["/api/render"]["post"]["responses"]["200"]["content"]
    assert answer["application/json"]["schema"] == {
        "oneOf": [
            {"$ref": "#/components/schemas/Rendered"},
            {"$ref": "#/components/schemas/RenderedTexts"},
        ]
    }


def test_the_contract_check_takes_any_of_an_operations_shapes() -> None:
    request = httpx.Request("POST", "http://127.0.0.1/api/render")
    texts = httpx.Response(200, json={"items": []}, request=request)
    check_answer(texts)
    other = httpx.Response(200, json={"html": 1}, request=request)
    with pytest.raises(AssertionError, match="field `html` of Rendered") as caught:
        check_answer(other)
    assert "field `items` of RenderedTexts" in str(caught.value)


def test_two_models_of_one_name_are_refused() -> None:
    # Two answers named alike would share one generated TypeScript type: one would be wrong.
    def model(field: str) -> type[Answer]:
        return type("Twin", (Answer,), {"__annotations__": {field: str}})

    schemas: dict[str, Any] = {}
    component(model("path"), schemas)
    component(model("path"), schemas)  # the same shape again is the same model
    with pytest.raises(LookupError, match="two API models are named Twin"):
        component(model("other"), schemas)
