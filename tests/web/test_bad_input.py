"""Hostile input through the HTTP API: over-deep or over-large JSON on every JSON route and
over-long file names on every route that takes a path answer 4xx naming the limit, never 500."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from quire.api.operations import OPERATIONS
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

JSON_ROUTES = sorted(
    {
        re.sub(r"\{[^}]+\}", "r-0", op.path)
        for op in OPERATIONS
        if op.body is not None and not op.multi  # multi mode's: tests/teams/test_admin_api.py
    }
)

HOSTILE_BODIES: dict[str, tuple[str, str]] = {
    "5,000 nested arrays": ("[" * 5000 + "]" * 5000, "at most 64 levels"),
    "5,000 nested objects": ('{"a":' * 5000 + "1" + "}" * 5000, "at most 64 levels"),
    "deep inside a field": ('{"path": ' + "[" * 100 + "]" * 100 + "}", "at most 64 levels"),
    "a 5,000-digit integer": ('{"path": ' + "7" * 5000 + "}", "must fit in 64 bits"),
    "a negative 5,000-digit integer": ('{"a": -' + "7" * 5000 + "}", "must fit in 64 bits"),
    "an integer one past 64 bits": ('{"limit": 9223372036854775808}', "must fit in 64 bits"),
    "a huge exponent": ('{"line": 1e999999999}', "too large for a 64-bit"),
    "a 5,000-digit fraction": ('{"line": 0.' + "1" * 5000 + "}", "at most 40"),
    "NaN": ('{"line": NaN}', "not a JSON number"),
    "-Infinity": ('{"line": -Infinity}', "not a JSON number"),
}


@pytest.mark.parametrize("route", JSON_ROUTES)
async def test_every_json_route_refuses_deep_and_huge_json_with_400_naming_the_limit(
    client: httpx.AsyncClient, route: str
) -> None:
    for name, (body, limit) in HOSTILE_BODIES.items():
        response = await client.post(
            route, content=body, headers={**AUTH, "Content-Type": "application/json"}
        )
        assert response.status_code == 400, f"{route} {name}: {response.text}"
        error = response.json()["error"]
        assert error["type"] == "InvalidArgument", name
        assert limit in error["message"], f"{route} {name}: {error['message']}"


async def test_brackets_inside_strings_do_not_count_towards_the_depth(
    client: httpx.AsyncClient,
) -> None:
    text = "[" * 5000 + "{" * 5000
    response = await client.post("/api/render", json={"markdown": text}, headers=AUTH)
    assert response.status_code == 200, response.text


async def test_a_body_over_16_mib_is_refused_with_413_naming_the_limit(
    client: httpx.AsyncClient,
) -> None:
    body = "[" * (16 * 1024 * 1024 + 1)
    for route in ("/api/render", "/api/chats/post", "/api/documents/set-content"):
        response = await client.post(route, content=body, headers=AUTH)
        assert response.status_code == 413, response.text
        assert "16 MiB" in response.json()["error"]["message"]


def long_paths(workspace: Path) -> dict[str, tuple[str, str]]:
    """A 260-character name, and a path over PATH_MAX of names that are each allowed."""
    return {
        "a 260-character name": (str(workspace / ("n" * 257 + ".md")), "at most 255 bytes"),
        "a 260-byte name in UTF-8": (str(workspace / ("é" * 128 + ".md")), "at most 255 bytes"),
        "a path over PATH_MAX": (
            str(workspace.joinpath(*["d" * 250] * 20, "x.md")),
            "",  # the OS says ENOENT for the first missing folder, or ENAMETOOLONG
        ),
    }


PATH_ROUTES: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("POST", "/api/documents/open", {}),
    ("POST", "/api/window/present", {}),
    ("POST", "/api/reviews", {}),
    ("POST", "/api/chats", {"title": "T"}),
    ("POST", "/api/chats/post", {"as": "builder", "body": "hi"}),
    ("POST", "/api/chats/wait", {"as": "builder", "after": 0, "timeoutMs": 1000}),
    ("POST", "/api/chats/leave", {"as": "builder"}),
    ("POST", "/api/chats/pin", {"pinned": True}),
    ("POST", "/api/chats/delete", {}),
    ("GET", "/api/chats/read", {}),
    ("POST", "/api/export", {"format": "html"}),
    ("GET", "/api/backlinks", {}),
    ("GET", "/api/annotations", {}),
)


@pytest.mark.parametrize(("method", "route", "extra"), PATH_ROUTES)
async def test_an_over_long_name_is_a_4xx_naming_the_limit_on_every_path_route(
    client: httpx.AsyncClient, tmp_path: Path, method: str, route: str, extra: dict[str, object]
) -> None:
    for name, (path, limit) in long_paths(tmp_path / "workspace").items():
        if method == "GET":
            response = await client.get(route, params={"path": path}, headers=AUTH)
        else:
            response = await client.post(route, json={"path": path, **extra}, headers=AUTH)
        assert response.status_code < 500, f"{route} {name}: {response.text}"
        if response.status_code == 200:
            continue  # a lookup that finds nothing for the path (backlinks, annotations)
        message = response.json()["error"]["message"]
        if route != "/api/export":  # refused by the sandbox's containment check before any open
            assert limit in message, f"{route} {name}: {message}"
