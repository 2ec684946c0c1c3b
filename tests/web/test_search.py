"""`GET /api/search` through the real app: what it finds and shows, its bounds, the files it
skips and says so, and its strict parameters (empty, huge, regex metacharacters, bad bytes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.settings.model import Settings
from tests.web.conftest import AUTH, PORT

pytestmark = pytest.mark.anyio


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    first, second = tmp_path / "notes", tmp_path / "papers"
    for folder in (first, second):
        folder.mkdir()
    return Settings(workspaces=(first, second), state_dir=tmp_path / "state", port=PORT)


@pytest.fixture
def notes(settings: Settings) -> Path:
    return settings.workspaces[0].resolve()


@pytest.fixture
def papers(settings: Settings) -> Path:
    return settings.workspaces[1].resolve()


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


async def search(client: httpx.AsyncClient, query: str = "", **params: Any) -> httpx.Response:
    url = "/api/search" + (f"?{query}" if query else "")
    return await client.get(url, params=params or None, headers=AUTH)


async def found(client: httpx.AsyncClient, **params: Any) -> dict[str, Any]:
    response = await search(client, **params)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def refused(response: httpx.Response, argument: str) -> str:
    assert response.status_code == 400, response.text
    detail = response.json()["error"]
    assert detail["type"] == "InvalidArgument"
    assert detail["argument"] == argument
    message: str = detail["message"]
    return message


async def test_a_search_answers_each_file_with_its_title_and_matching_lines(
    client: httpx.AsyncClient, notes: Path, papers: Path
) -> None:
    plan = write(notes / "plan.md", "# The plan\n\nShip the Beacon.\nThen the beacon again.\n")
    idea = write(papers / "deep" / "idea.md", "# Idea\n\nA beacon, once.\n")
    write(notes / "other.md", "# Other\n\nNothing to see.\n")
    data = await found(client, q="beacon")
    assert data["query"] == "beacon"
    assert data["results"] == [
        {
            "path": str(plan),
            "title": "The plan",
            "matches": 2,
            "lines": [
                {"line": 3, "text": "Ship the Beacon."},
                {"line": 4, "text": "Then the beacon again."},
            ],
        },
        {
            "path": str(idea),
            "title": "Idea",
            "matches": 1,
            "lines": [{"line": 3, "text": "A beacon, once."}],
        },
    ]
    assert data["total"] == 2
    assert data["searched"] == 3
    assert data["truncated"] is False
    assert data["unread"] == []
    assert data["unreadCount"] == 0
    assert "note" not in data


@pytest.mark.parametrize(
    ("query", "hit"),
    [
        ("a.*b", True),
        ("a.b", False),
        ("(x)[y]", True),
        ("^start", False),
        ("$5 + 10%", True),
        ("back\\slash", True),
        ("C:\\path", False),
        ("{2,3}", True),
        ("**bold**", True),
        ("?", True),
        ("|", True),
        ("%", True),
    ],
)
async def test_regex_metacharacters_are_searched_as_plain_text(
    client: httpx.AsyncClient, notes: Path, query: str, hit: bool
) -> None:
    write(
        notes / "symbols.md",
        "# Symbols\n\nstart: a.*b (x)[y] costs $5 + 10% | back\\slash {2,3}?\n\n**bold**\n",
    )
    data = await found(client, q=query)
    assert (data["total"] == 1) is hit


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
async def test_an_empty_query_is_refused(client: httpx.AsyncClient, query: str) -> None:
    message = refused(await search(client, q=query), "q")
    assert "empty" in message


async def test_a_missing_query_is_refused(client: httpx.AsyncClient) -> None:
    assert "empty" in refused(await search(client), "q")


async def test_a_huge_query_is_refused_and_the_longest_allowed_is_searched(
    client: httpx.AsyncClient, notes: Path
) -> None:
    write(notes / "long.md", "# Long\n\n" + "ab" * 600 + "\n")
    message = refused(await search(client, q="ab" * 500 + "a"), "q")
    assert "1,001 characters" in message
    assert "at most 1,000" in message
    data = await found(client, q="ab" * 500)
    assert data["total"] == 1
    assert "ab" * 50 in data["results"][0]["lines"][0]["text"]


async def test_a_query_as_long_as_a_url_may_be_is_refused(client: httpx.AsyncClient) -> None:
    message = refused(await search(client, q="x" * 60_000), "q")
    assert "60,000 characters" in message


async def test_the_query_is_trimmed_and_matched_ignoring_case(
    client: httpx.AsyncClient, notes: Path
) -> None:
    write(notes / "case.md", "# Case\n\nThe Straße counts.\nSo does this STRASSE.\n")
    data = await found(client, q="  strasse  ")
    assert data["query"] == "strasse"
    assert data["results"][0]["matches"] == 2
    assert (await found(client, q="STRASSE COUNTS"))["total"] == 1
    assert (await found(client, q="straße counts"))["total"] == 1
    assert (await found(client, q="strasse  counts"))["total"] == 0


async def test_unicode_queries_find_their_text(client: httpx.AsyncClient, notes: Path) -> None:
    write(notes / "world.md", "# World\n\nこんにちは 🌍 naïve café\u200b here\n")
    for query in ["こんにちは", "🌍", "NAÏVE", "café\u200b"]:
        assert (await found(client, q=query))["total"] == 1, query


async def test_a_query_holding_nul_finds_nothing_and_fails_nothing(
    client: httpx.AsyncClient, notes: Path
) -> None:
    write(notes / "plain.md", "# Plain\n\ntext\n")
    assert (await found(client, q="te\x00xt"))["total"] == 0


async def test_a_query_whose_bytes_are_not_utf8_is_refused(client: httpx.AsyncClient) -> None:
    message = refused(await search(client, "q=caf%E9"), "q")
    assert "not UTF-8" in message


async def test_a_long_line_shows_the_text_around_the_match(
    client: httpx.AsyncClient, notes: Path
) -> None:
    line = "filler " * 100 + "the hidden treasure" + " more" * 100
    write(notes / "wide.md", f"# Wide\n\n{line}\n")
    shown = (await found(client, q="treasure"))["results"][0]["lines"][0]["text"]
    assert "the hidden treasure" in shown
    assert shown.startswith("…")
    assert shown.endswith("…")
    assert len(shown) <= 202


async def test_files_that_are_not_utf8_are_skipped_and_named(
    client: httpx.AsyncClient, notes: Path
) -> None:
    latin = write(notes / "latin.md", b"# Caf\xe9\n\nneedle\n")
    utf16 = write(notes / "wide.md", "# Wide\n\nneedle\n".encode("utf-16"))
    good = write(notes / "good.md", "# Good\n\nneedle\n")
    data = await found(client, q="needle")
    assert [hit["path"] for hit in data["results"]] == [str(good)]
    reasons = {item["path"]: item["reason"] for item in data["unread"]}
    assert reasons[str(latin)].startswith("not UTF-8 text (byte 6")
    assert reasons[str(utf16)] == "UTF-16 text, not UTF-8"
    assert data["unreadCount"] == 2
    assert "2 files were not searched because they could not be read" in data["note"]
    assert "Convert a file that is not UTF-8 to UTF-8" in data["note"]
    assert data["searched"] == 1


async def test_unread_files_are_named_up_to_twenty_and_all_counted(
    client: httpx.AsyncClient, notes: Path
) -> None:
    for number in range(25):
        write(notes / f"bad{number:02}.md", b"\xff\xfe\xfd not text\n")
    data = await found(client, q="text")
    assert len(data["unread"]) == 20
    assert data["unreadCount"] == 25
    assert "25 files were not searched" in data["note"]


async def test_dotfiles_hidden_folders_and_other_files_are_not_searched(
    client: httpx.AsyncClient, notes: Path
) -> None:
    write(notes / ".secret.md", "needle\n")
    write(notes / ".hidden" / "in.md", "needle\n")
    write(notes / "node_modules" / "pkg.md", "needle\n")
    write(notes / "notes.txt", "needle\n")
    shown = write(notes / "shown.md", "needle\n")
    data = await found(client, q="needle")
    assert [hit["path"] for hit in data["results"]] == [str(shown)]


async def test_a_recent_document_outside_the_workspaces_is_searched_too(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    outside = write(tmp_path / "elsewhere" / "loose.md", "# Loose\n\nneedle\n").resolve()
    opened = await client.post("/api/documents/open", json={"path": str(outside)}, headers=AUTH)
    assert opened.status_code == 200, opened.text
    data = await found(client, q="needle")
    assert [hit["path"] for hit in data["results"]] == [str(outside)]


async def test_workspace_searches_only_that_folder(
    client: httpx.AsyncClient, notes: Path, papers: Path
) -> None:
    write(notes / "a.md", "needle\n")
    mine = write(papers / "b.md", "needle\n")
    data = await found(client, q="needle", workspace=str(papers))
    assert [hit["path"] for hit in data["results"]] == [str(mine)]
    assert (await found(client, q="needle"))["total"] == 2


@pytest.mark.parametrize("workspace", ["", "papers", "/nowhere", "/"])
async def test_a_workspace_that_is_not_served_is_refused(
    client: httpx.AsyncClient, workspace: str
) -> None:
    message = refused(await search(client, q="x", workspace=workspace), "workspace")
    assert "GET /api/workspaces" in message


async def test_limit_caps_the_files_and_total_counts_them_all(
    client: httpx.AsyncClient, notes: Path
) -> None:
    for number in range(5):
        write(notes / f"n{number}.md", "needle\n" * (number + 1))
    data = await found(client, q="needle", limit=2)
    assert [hit["matches"] for hit in data["results"]] == [5, 4]
    assert data["total"] == 5
    assert len((await found(client, q="needle"))["results"]) == 5


@pytest.mark.parametrize("limit", ["0", "201", "-1", "2.0", "ten", "", "1e2"])
async def test_a_limit_outside_one_to_two_hundred_is_refused(
    client: httpx.AsyncClient, limit: str
) -> None:
    message = refused(await search(client, q="x", limit=limit), "limit")
    assert "limit" in message


@pytest.mark.parametrize(
    ("query", "argument"),
    [("q=a&q=b", "q"), ("q=a&lmit=5", "lmit"), ("q=a&path=/x", "path")],
)
async def test_unknown_and_repeated_parameters_are_refused(
    client: httpx.AsyncClient, query: str, argument: str
) -> None:
    refused(await search(client, query), argument)


async def test_search_needs_the_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/search", params={"q": "x"})
    assert response.status_code == 401


async def test_the_openapi_document_lists_search_with_its_parameters(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/api/openapi.json", headers=AUTH)).json()
    operation = document["paths"]["/api/search"]["get"]
    assert [parameter["name"] for parameter in operation["parameters"]] == [
        "q",
        "limit",
        "workspace",
    ]
    assert "unreadCount" in operation["description"]
