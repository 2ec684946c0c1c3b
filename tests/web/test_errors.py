import inspect
import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from quire.core import errors
from quire.web.errors import STATUS, status_of
from quire.web.limits import RequestTooLarge
from tests.web.conftest import AUTH, BASE_URL

pytestmark = pytest.mark.anyio

ERROR_CLASSES = [
    cls
    for _, cls in inspect.getmembers(errors, inspect.isclass)
    if issubclass(cls, errors.QuireError) and cls.__module__ == errors.__name__
]


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda cls: cls.__name__)
def test_every_error_class_has_its_own_status(cls: type[errors.QuireError]) -> None:
    assert cls in STATUS, f"add {cls.__name__} to quire.web.errors.STATUS"


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (errors.InvalidArgument("x"), 400),
        (errors.PathRefused("x"), 400),
        (errors.FileMissing("x"), 404),
        (errors.FileTooLarge("x"), 413),
        (RequestTooLarge("x"), 413),
        (errors.NotUtf8("x"), 400),
        (errors.EditRefused("x"), 409),
        (errors.DocumentInvalid("x"), 400),
        (errors.StorageFailed("x"), 500),
        (errors.NotOpen("x"), 409),
        (errors.ReviewNotFound("x"), 404),
        (errors.ReviewRefused("x"), 409),
        (errors.AgentNotDetected("x"), 409),
        (errors.ServerAlreadyRunning("x"), 409),
        (errors.ServerFailed("x"), 502),
        (errors.NoSuchEndpoint("x"), 502),
        (errors.QuireError("x"), 400),
    ],
)
def test_each_error_maps_to_its_status(error: errors.QuireError, status: int) -> None:
    assert status_of(error) == status


async def _raise(request: Request) -> Response:
    raise _RAISED[request.path_params["name"]]


_RAISED: dict[str, Exception] = {
    "argument": errors.InvalidArgument("`limit` must be 1 to 200, got 0.", argument="limit"),
    "edit": errors.EditRefused("`find` occurs 3 times; make it unique.", match_count=3),
    "missing": errors.FileMissing("No file at /w/a.md; check the path."),
    "large": RequestTooLarge("Too big; send less."),
    "bug": RuntimeError("internal detail: /secret/path and a password"),
}


@pytest.fixture
async def raising(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    app.router.routes.append(Route("/api/raise/{name}", _raise))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
        yield client


@pytest.mark.parametrize(
    ("name", "status", "expected"),
    [
        (
            "argument",
            400,
            {
                "type": "InvalidArgument",
                "message": "`limit` must be 1 to 200, got 0.",
                "argument": "limit",
            },
        ),
        (
            "edit",
            409,
            {
                "type": "EditRefused",
                "message": "`find` occurs 3 times; make it unique.",
                "matchCount": 3,
            },
        ),
        ("missing", 404, {"type": "FileMissing", "message": "No file at /w/a.md; check the path."}),
        ("large", 413, {"type": "FileTooLarge", "message": "Too big; send less."}),
    ],
)
async def test_a_quire_error_answers_json_with_its_type_and_message(
    raising: httpx.AsyncClient, name: str, status: int, expected: dict[str, object]
) -> None:
    response = await raising.get(f"/api/raise/{name}", headers=AUTH)
    assert response.status_code == status
    assert response.json() == {"error": expected}


async def test_an_unexpected_error_is_logged_and_answered_without_internals(
    raising: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="quire.web.errors"):
        response = await raising.get("/api/raise/bug", headers=AUTH)
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["type"] == "InternalError"
    assert "secret" not in response.text
    assert "RuntimeError" not in response.text
    assert "log" in error["message"]
    logged = [record for record in caplog.records if record.name == "quire.web.errors"]
    assert logged
    assert logged[0].exc_info is not None
    assert "/api/raise/bug" in logged[0].getMessage()


async def test_an_unknown_api_path_answers_json_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/nothing-here", headers=AUTH)
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["type"] == "NotFound"
    assert "/api/openapi.json" in error["message"]


async def test_a_wrong_method_answers_json_405(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/documents/edit", headers=AUTH)
    assert response.status_code == 405
    assert response.json()["error"]["type"] == "MethodNotAllowed"
    assert "POST" in response.headers["allow"]


async def test_editing_with_no_document_open_is_a_409(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/documents/edit", headers=AUTH, json={"find": "a", "replace": "b"}
    )
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "NotOpen"


async def test_a_body_that_is_not_json_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/documents/edit", headers=AUTH, content=b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "InvalidArgument"
