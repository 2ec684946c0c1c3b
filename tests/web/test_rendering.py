"""`POST /api/render` through the real app: Markdown text (one, or a list) as the shared
renderer's sanitised HTML, and the refusals of bodies it cannot take."""

from __future__ import annotations

import httpx
import pytest

from quire.markdown.render import render
from quire.services.rendering import MAX_TEXTS
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio


async def rendered(client: httpx.AsyncClient, body: object) -> httpx.Response:
    return await client.post("/api/render", json=body, headers=AUTH)


@pytest.mark.parametrize(
    ("markdown", "holds"),
    [
        ("**bold** and `code`", "<strong>bold</strong> and <code>code</code>"),
        ("- [ ] a task", 'class="task-list-item-checkbox"'),
        ("# Title", '<h1 id="title">Title</h1>'),
        ("", ""),
        ("a @mention stays text", "a @mention stays text"),
        ("![nod](picture.svg)", '<img src="picture.svg" alt="nod">'),
    ],
)
async def test_markdown_renders_as_the_read_view_does(
    client: httpx.AsyncClient, markdown: str, holds: str
) -> None:
    response = await rendered(client, {"markdown": markdown})
    assert response.status_code == 200, response.text
    data = response.json()
    assert holds in data["html"]
    assert data["html"] == render(markdown).html


@pytest.mark.parametrize(
    ("markdown", "never"),
    [
        ("<script>alert(1)</script>", "<script"),
        ('<img src="x.png" onerror="alert(1)">', "onerror"),
        ("[click](javascript:alert(1))", 'href="javascript:'),
        ('<a href="javascript:alert(1)">x</a>', 'href="javascript:'),
        ('<iframe src="https://example.com"></iframe>', "<iframe"),
        ('<svg onload="alert(1)"><circle r="1"/></svg>', "<svg"),
        ("![x](data:text/html;base64,PHNjcmlwdD4=)", 'src="data:text'),
        ('<img src="data:text/html;base64,PHNjcmlwdD4=">', 'src="data:text'),
        ('<a href="vbscript:msgbox(1)">x</a>', 'href="vbscript:'),
        ("<style>body{display:none}</style>", "<style"),
    ],
)
async def test_active_content_never_survives(
    client: httpx.AsyncClient, markdown: str, never: str
) -> None:
    response = await rendered(client, {"markdown": markdown})
    assert response.status_code == 200, response.text
    assert never not in response.json()["html"].lower()


async def test_math_and_mermaid_are_flagged_for_the_client(client: httpx.AsyncClient) -> None:
    data = (await rendered(client, {"markdown": "$x^2$\n\n```mermaid\ngraph TD\n```"})).json()
    assert data["has_math"] is True
    assert data["has_mermaid"] is True
    plain = (await rendered(client, {"markdown": "plain"})).json()
    assert (plain["has_math"], plain["has_mermaid"]) == (False, False)


async def test_a_list_of_texts_renders_each_in_order(client: httpx.AsyncClient) -> None:
    texts = ["first *one*", "", "<script>x</script>second", "$y$"]
    response = await rendered(client, {"texts": texts})
    assert response.status_code == 200, response.text
    items = response.json()["items"]
    assert [item["html"] for item in items] == [render(text).html for text in texts]
    assert [item["has_math"] for item in items] == [False, False, False, True]


async def test_an_empty_list_renders_nothing(client: httpx.AsyncClient) -> None:
    response = await rendered(client, {"texts": []})
    assert response.json() == {"items": []}


async def test_the_most_texts_one_request_takes_render(client: httpx.AsyncClient) -> None:
    response = await rendered(client, {"texts": ["x"] * MAX_TEXTS})
    assert response.status_code == 200
    assert len(response.json()["items"]) == MAX_TEXTS


async def test_more_texts_than_the_limit_are_refused(client: httpx.AsyncClient) -> None:
    response = await rendered(client, {"texts": ["x"] * (MAX_TEXTS + 1)})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["argument"] == "texts"
    assert "at most 1,000" in error["message"]


@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({}, "markdown"),
        ({"markdown": "a", "texts": ["b"]}, "markdown"),
        ({"markdown": 5}, "markdown"),
        ({"markdown": None, "texts": None}, "markdown"),
        ({"texts": "not a list"}, "texts"),
        ({"texts": ["ok", 7]}, "texts"),
        ({"markdown": "a", "extra": True}, "extra"),
    ],
)
async def test_bodies_it_cannot_take_are_refused_by_name(
    client: httpx.AsyncClient, body: dict[str, object], argument: str
) -> None:
    response = await rendered(client, body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["argument"] == argument


@pytest.mark.parametrize(
    "raw",
    [b"[]", b"not json", b'{"markdown": "\xff"}', b'"markdown"'],
)
async def test_a_body_that_is_not_a_json_object_is_refused(
    client: httpx.AsyncClient, raw: bytes
) -> None:
    response = await client.post(
        "/api/render", content=raw, headers={**AUTH, "Content-Type": "application/json"}
    )
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("markdown", "holds"),
    [
        ("NUL \x00 inside", "NUL \ufffd inside"),
        ("\u202egnp.exe", "\u202egnp.exe"),
        ("\ufeffBOM first", "<p>BOM first</p>"),
        ("x" * 200_000, "x" * 200_000),
        ("caf\u00e9 \U0001f600", "caf\u00e9 \U0001f600"),
    ],
)
async def test_odd_text_still_renders(client: httpx.AsyncClient, markdown: str, holds: str) -> None:
    response = await rendered(client, {"markdown": markdown})
    assert response.status_code == 200, response.text
    assert holds in response.json()["html"]


async def test_a_lone_surrogate_is_refused_as_no_text(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/render",
        content=b'{"markdown": "a \\ud800 b"}',
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == "markdown"


async def test_a_lone_surrogate_in_a_list_shows_as_a_replacement_character(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/api/render",
        content=b'{"texts": ["a \\ud800 b"]}',
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["items"][0]["html"] == "<p>a \ufffd b</p>\n"


async def test_rendering_needs_the_token(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/render", json={"markdown": "x"})
    assert response.status_code == 401
