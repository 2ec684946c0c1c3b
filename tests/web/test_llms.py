"""``GET /llms.txt`` serves the package's copy, to a client with the token only."""

import httpx
import pytest

from quire.web.llms import LLMS_TXT
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio


async def test_llms_txt_is_served_as_plain_text_with_the_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/llms.txt", headers=AUTH)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.content == LLMS_TXT.read_bytes()
    assert response.text.startswith("# Quire\n")


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Cookie": "quire_session=made-up"}],
    ids=["none", "wrong token", "made-up cookie"],
)
async def test_llms_txt_needs_the_token_like_every_route_but_health(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    response = await client.get("/llms.txt", headers=headers)
    assert response.status_code == 401
    assert "# Quire" not in response.text


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_llms_txt_answers_only_get(client: httpx.AsyncClient, method: str) -> None:
    response = await client.request(method, "/llms.txt", headers=AUTH)
    assert response.status_code == 405
