"""`GET /api/search`, `/api/backlinks` and `/api/titles` through the real app: what the index
finds and shows, its pages, the files it skips and says so, and its strict parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.api.search import MARK_END, MARK_START
from quire.services.app import AppServices
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


@pytest.fixture
async def indexed(services: AppServices) -> Any:
    """Awaitable that brings the index up to date with what the test wrote."""
    search_service = services.search
    assert search_service is not None

    async def catch_up() -> None:
        await search_service.catch_up()

    return catch_up


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


def mark(text: str) -> str:
    return text.replace("[", MARK_START).replace("]", MARK_END)


async def test_a_search_answers_each_file_with_its_title_line_and_snippet(
    client: httpx.AsyncClient, notes: Path, papers: Path, indexed: Any
) -> None:
    plan = write(notes / "plan.md", "# The plan\n\nShip the Beacon.\nThen the beacon again.\n")
    idea = write(papers / "deep" / "idea.md", "# Idea\n\nA beacon, once.\n")
    write(notes / "other.md", "# Other\n\nNothing to see.\n")
    await indexed()
    data = await found(client, q="beacon")
    assert data["query"] == "beacon"
    assert data["mode"] == "grep"
    hits = sorted(data["hits"], key=lambda hit: hit["path"])
    assert hits == sorted(
        [
            {
                "path": str(plan),
                "workspace": str(notes),
                "relPath": "plan.md",
                "title": "The plan",
                "line": 3,
                "snippet": mark("Ship the [Beacon]."),
                "matches": 2,
            },
            {
                "path": str(idea),
                "workspace": str(papers),
                "relPath": "deep/idea.md",
                "title": "Idea",
                "line": 3,
                "snippet": mark("A [beacon], once."),
                "matches": 1,
            },
        ],
        key=lambda hit: str(hit["path"]),
    )
    assert data["truncated"] is False
    assert data["nextCursor"] is None
    assert data["unreadable"] == []
    assert data["note"] is None
    assert data["indexed"] == 3


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
        ('"quoted"', True),
        ("_", False),
    ],
)
async def test_regex_and_query_syntax_is_searched_as_plain_text(
    client: httpx.AsyncClient, notes: Path, query: str, hit: bool, indexed: Any
) -> None:
    write(
        notes / "symbols.md",
        "# Symbols\n\nstart: a.*b (x)[y] costs $5 + 10% | back\\slash {2,3}? "
        '"quoted"\n\n**bold**\n',
    )
    await indexed()
    data = await found(client, q=query)
    assert (len(data["hits"]) == 1) is hit


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
async def test_an_empty_query_is_refused(client: httpx.AsyncClient, query: str) -> None:
    message = refused(await search(client, q=query), "q")
    assert "empty" in message


async def test_a_missing_query_is_refused(client: httpx.AsyncClient) -> None:
    assert "empty" in refused(await search(client), "q")


async def test_a_huge_query_is_refused_and_the_longest_allowed_is_searched(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "long.md", "# Long\n\n" + "ab" * 600 + "\n")
    await indexed()
    message = refused(await search(client, q="ab" * 500 + "a"), "q")
    assert "1,001 characters" in message
    assert "at most 1,000" in message
    data = await found(client, q="ab" * 500)
    assert len(data["hits"]) == 1
    assert MARK_START + "ab" * 50 in data["hits"][0]["snippet"]


async def test_a_query_as_long_as_a_url_may_be_is_refused(client: httpx.AsyncClient) -> None:
    message = refused(await search(client, q="x" * 60_000), "q")
    assert "60,000 characters" in message


async def test_the_query_is_trimmed_and_matched_ignoring_case(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "case.md", "# Case\n\nThe Straße counts.\nSo does this STRASSE.\n")
    await indexed()
    data = await found(client, q="  strasse  ")
    assert data["query"] == "strasse"
    assert data["hits"][0]["matches"] == 2
    assert data["hits"][0]["snippet"] == mark("The [Straße] counts.")
    assert len((await found(client, q="STRASSE COUNTS"))["hits"]) == 1
    assert len((await found(client, q="straße counts"))["hits"]) == 1
    assert len((await found(client, q="strasse  counts"))["hits"]) == 0


async def test_unicode_queries_find_their_text(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "world.md", "# World\n\nこんにちは 🌍 naïve café\u200b here\n")
    await indexed()
    for query in ["こんにちは", "🌍", "NAÏVE", "café\u200b", "に"]:
        assert len((await found(client, q=query))["hits"]) == 1, query


async def test_a_query_holding_nul_finds_nothing_and_fails_nothing(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "plain.md", "# Plain\n\ntext\n")
    await indexed()
    assert (await found(client, q="te\x00xt"))["hits"] == []


async def test_a_query_whose_bytes_are_not_utf8_is_refused(client: httpx.AsyncClient) -> None:
    message = refused(await search(client, "q=caf%E9"), "q")
    assert "not UTF-8" in message


async def test_a_long_line_shows_the_text_around_the_match(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    line = "filler " * 100 + "the hidden treasure" + " more" * 100
    write(notes / "wide.md", f"# Wide\n\n{line}\n")
    await indexed()
    shown = (await found(client, q="treasure"))["hits"][0]["snippet"]
    assert f"the hidden {MARK_START}treasure{MARK_END}" in shown
    assert shown.startswith("…")
    assert shown.endswith("…")
    assert len(shown) <= 164


async def test_files_that_are_not_utf8_are_skipped_and_named(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    latin = write(notes / "latin.md", b"# Caf\xe9\n\nneedle\n")
    utf16 = write(notes / "wide.md", "# Wide\n\nneedle\n".encode("utf-16"))
    good = write(notes / "good.md", "# Good\n\nneedle\n")
    await indexed()
    data = await found(client, q="needle")
    assert [hit["path"] for hit in data["hits"]] == [str(good)]
    reasons = {item["path"]: item["reason"] for item in data["unreadable"]}
    assert reasons[str(latin)].startswith("not UTF-8 text (byte 6")
    assert reasons[str(utf16)] == "UTF-16 text, not UTF-8"
    assert "2 files were not searched because they could not be read" in data["note"]
    assert "Convert a file that is not UTF-8 to UTF-8" in data["note"]


async def test_unreadable_files_are_named_up_to_twenty_and_all_counted(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    for number in range(25):
        write(notes / f"bad{number:02}.md", b"\xff\xfe\xfd not text\n")
    await indexed()
    data = await found(client, q="text")
    assert len(data["unreadable"]) == 20
    assert "25 files were not searched" in data["note"]


async def test_dotfiles_hidden_folders_and_other_files_are_not_searched(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / ".secret.md", "needle\n")
    write(notes / ".hidden" / "in.md", "needle\n")
    write(notes / "node_modules" / "pkg.md", "needle\n")
    write(notes / "notes.txt", "needle\n")
    shown = write(notes / "shown.md", "needle\n")
    await indexed()
    data = await found(client, q="needle")
    assert [hit["path"] for hit in data["hits"]] == [str(shown)]


async def test_workspace_searches_only_that_folder(
    client: httpx.AsyncClient, notes: Path, papers: Path, indexed: Any
) -> None:
    write(notes / "a.md", "needle\n")
    mine = write(papers / "b.md", "needle\n")
    await indexed()
    data = await found(client, q="needle", workspace=str(papers))
    assert [hit["path"] for hit in data["hits"]] == [str(mine)]
    assert len((await found(client, q="needle"))["hits"]) == 2


@pytest.mark.parametrize("workspace", ["", "papers", "/nowhere", "/"])
async def test_a_workspace_that_is_not_served_is_refused(
    client: httpx.AsyncClient, workspace: str
) -> None:
    message = refused(await search(client, q="x", workspace=workspace), "workspace")
    assert "GET /api/workspaces" in message


@pytest.mark.parametrize("mode", ["grep", "words"])
async def test_pages_follow_the_cursor_and_return_every_file_once(
    client: httpx.AsyncClient, notes: Path, indexed: Any, mode: str
) -> None:
    for number in range(7):
        write(notes / f"n{number}.md", "needle\n" * (number + 1))
    await indexed()
    seen: list[str] = []
    cursor: str | None = None
    for _page in range(4):
        params: dict[str, Any] = {"q": "needle", "limit": 2, "mode": mode}
        if cursor is not None:
            params["cursor"] = cursor
        data = await found(client, **params)
        seen += [hit["relPath"] for hit in data["hits"]]
        cursor = data["nextCursor"]
        assert data["truncated"] is (cursor is not None)
        if cursor is None:
            break
    assert sorted(seen) == [f"n{number}.md" for number in range(7)]


@pytest.mark.parametrize("cursor", ["x", "abc.def", "e30.AAAA", "." * 9000])
async def test_a_cursor_the_server_never_gave_out_is_refused(
    client: httpx.AsyncClient, cursor: str
) -> None:
    message = refused(await search(client, q="needle", cursor=cursor), "cursor")
    assert "nextCursor" in message


async def test_a_cursor_of_another_query_is_refused(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    for number in range(3):
        write(notes / f"n{number}.md", "needle\n")
    await indexed()
    cursor = (await found(client, q="needle", limit=1))["nextCursor"]
    assert cursor is not None
    message = refused(await search(client, q="needl", cursor=cursor), "cursor")
    assert "another search" in message


async def test_words_mode_ranks_files_holding_every_word_in_any_order(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "both.md", "# Garden\n\nthe roses bloom in the garden\n")
    write(notes / "one.md", "# Roses\n\nonly roses here\n")
    await indexed()
    data = await found(client, q="Garden ROSES", mode="words")
    assert [hit["relPath"] for hit in data["hits"]] == ["both.md"]
    assert MARK_START + "roses" + MARK_END in data["hits"][0]["snippet"]
    assert data["hits"][0]["line"] in (1, 3)
    assert (await found(client, q="rose", mode="words"))["hits"] == []
    assert len((await found(client, q="ROSES", mode="words"))["hits"]) == 2


async def test_tag_terms_keep_only_the_notes_with_that_tag(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "front.md", "---\ntags: [Plan, ideas]\n---\nneedle\n")
    write(notes / "body.md", "needle and #plan\n")
    write(notes / "code.md", "needle\n```\n#plan\n```\n")
    write(notes / "none.md", "needle\n")
    await indexed()
    for mode in ("grep", "words"):
        data = await found(client, q="needle tag:plan", mode=mode)
        assert sorted(hit["relPath"] for hit in data["hits"]) == ["body.md", "front.md"]
    data = await found(client, q="tag:ideas")
    assert [hit["relPath"] for hit in data["hits"]] == ["front.md"]


@pytest.mark.parametrize("limit", ["0", "201", "-1", "2.0", "ten", "", "1e2"])
async def test_a_limit_outside_one_to_two_hundred_is_refused(
    client: httpx.AsyncClient, limit: str
) -> None:
    message = refused(await search(client, q="x", limit=limit), "limit")
    assert "limit" in message


@pytest.mark.parametrize(
    ("query", "argument"),
    [("q=a&q=b", "q"), ("q=a&lmit=5", "lmit"), ("q=a&path=/x", "path"), ("q=a&mode=re", "mode")],
)
async def test_unknown_and_repeated_parameters_are_refused(
    client: httpx.AsyncClient, query: str, argument: str
) -> None:
    refused(await search(client, query), argument)


async def test_search_needs_the_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/search", params={"q": "x"})
    assert response.status_code == 401


async def test_backlinks_name_the_notes_linking_to_a_document(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    target = write(notes / "sub" / "Target.md", "# Target\n")
    write(notes / "wiki.md", "# Wiki\n\nsee [[Target]] and [[target|again]]\n")
    write(notes / "path.md", "# Path\n\n\nsee [[sub/target#part]]\n")
    write(notes / "md.md", "# Md\n[it](sub/Target.md)\n")
    write(notes / "code.md", "# Code\n`[[Target]]`\n")
    write(notes / "web.md", "# Web\n[x](https://example.com/Target.md)\n")
    await indexed()
    response = await client.get("/api/backlinks", params={"path": str(target)}, headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "path": str(target),
        "links": [
            {"path": str(notes / "md.md"), "title": "Md", "line": 2},
            {"path": str(notes / "path.md"), "title": "Path", "line": 4},
            {"path": str(notes / "wiki.md"), "title": "Wiki", "line": 3},
        ],
    }


async def test_backlinks_need_an_absolute_path(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/backlinks", params={"path": "rel.md"}, headers=AUTH)
    refused(response, "path")


async def test_titles_find_documents_by_title_or_path_fuzzily(
    client: httpx.AsyncClient, notes: Path, indexed: Any
) -> None:
    write(notes / "projects" / "roadmap.md", "# Product Roadmap\n")
    write(notes / "daily.md", "# Daily notes\n")
    write(notes / "prd.md", "# Requirements\n")
    await indexed()
    response = await client.get("/api/titles", params={"q": "roadmap"}, headers=AUTH)
    assert response.status_code == 200, response.text
    assert [hit["relPath"] for hit in response.json()["hits"]] == ["projects/roadmap.md"]
    fuzzy = await client.get("/api/titles", params={"q": "prdrm"}, headers=AUTH)
    assert [hit["relPath"] for hit in fuzzy.json()["hits"]] == ["projects/roadmap.md"]
    by_path = await client.get("/api/titles", params={"q": "prd", "limit": 5}, headers=AUTH)
    assert by_path.json()["hits"][0]["relPath"] == "prd.md"


async def test_the_openapi_document_lists_search_with_its_parameters(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/api/openapi.json", headers=AUTH)).json()
    operation = document["paths"]["/api/search"]["get"]
    assert [parameter["name"] for parameter in operation["parameters"]] == [
        "q",
        "mode",
        "limit",
        "cursor",
        "workspace",
    ]
    assert "/api/backlinks" in document["paths"]
    assert "/api/titles" in document["paths"]
