"""The browser's document routes through the real app: the Read view's HTML, the document's
state, task checkbox clicks, ending a conflict, and `/open` links with their refusals."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from quire.markdown.head import HEAD_CHARS
from quire.services import rendering
from quire.services.app import AppServices
from quire.settings.model import Settings
from quire.web import preview, static_files
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

DOC = """# Title

- [ ] one
- [x] two

```mermaid
graph TD; A-->B
```

Inline $x^2$.
"""


@pytest.fixture
def ui_app(app: Starlette) -> Starlette:
    """The app with the UI's routes, mounted here when the app does not mount them yet."""
    mounted = {getattr(route, "path", None) for route in app.router.routes}
    for route in [*preview.routes, *static_files.routes]:
        if getattr(route, "path", None) not in mounted:
            app.router.routes.append(route)
    return app


@pytest.fixture
def doc(settings: Settings) -> Path:
    path = settings.workspaces[0].resolve() / "doc.md"
    path.write_text(DOC, encoding="utf-8")
    return path


async def open_doc(client: httpx.AsyncClient, path: Path) -> str:
    response = await client.post("/api/documents/open", json={"path": str(path)}, headers=AUTH)
    assert response.status_code == 200, response.text
    doc_id: str = response.json()["docId"]
    return doc_id


async def current(client: httpx.AsyncClient) -> str:
    content: str = (await client.get("/api/documents/current", headers=AUTH)).json()["content"]
    return content


async def test_render_answers_the_shared_renderers_html_and_what_it_needs(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    doc_id = await open_doc(client, doc)
    response = await client.get(f"/api/documents/render?docId={doc_id}", headers=AUTH)
    assert response.status_code == 200
    data = response.json()
    assert '<h1 id="title">Title</h1>' in data["html"]
    assert 'data-line="3"' in data["html"]
    assert data["has_math"] is True
    assert data["has_mermaid"] is True
    assert data["dirty"] is False


async def test_render_reads_the_live_text_with_unsaved_edits(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    doc_id = await open_doc(client, doc)
    edit = {"find": "# Title", "replace": "# Changed title"}
    assert (await client.post("/api/documents/edit", json=edit, headers=AUTH)).status_code == 200
    data = (await client.get(f"/api/documents/render?docId={doc_id}", headers=AUTH)).json()
    assert "Changed title" in data["html"]
    assert data["dirty"] is True


async def test_the_head_of_a_long_document_renders_first_and_says_it_is_partial(
    ui_app: Starlette, client: httpx.AsyncClient, settings: Settings
) -> None:
    section = "## Part\n\n" + "A paragraph of plain words to read.\n\n" * 20
    path = settings.workspaces[0].resolve() / "long.md"
    path.write_text("# Long\n\n" + section * 400, encoding="utf-8")
    doc_id = await open_doc(client, path)
    head = (
        await client.get(f"/api/documents/render?docId={doc_id}&part=head", headers=AUTH)
    ).json()
    whole = (await client.get(f"/api/documents/render?docId={doc_id}", headers=AUTH)).json()
    assert head["partial"] is True
    assert whole["partial"] is False
    assert HEAD_CHARS < len(head["html"]) < len(whole["html"]) // 4
    assert whole["html"].startswith(head["html"])


async def test_rendering_the_same_text_again_is_remembered(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    doc_id = await open_doc(client, doc)
    url = f"/api/documents/render?docId={doc_id}"
    first = (await client.get(url, headers=AUTH)).json()
    view = rendering.BLOCKS.view(await current(client))
    assert (await client.get(url, headers=AUTH)).json() == first
    assert rendering.BLOCKS.view(await current(client)) is view
    edit = {"find": "# Title", "replace": "# Retitled"}
    assert (await client.post("/api/documents/edit", json=edit, headers=AUTH)).status_code == 200
    assert "Retitled" in (await client.get(url, headers=AUTH)).json()["html"]


async def test_the_head_of_a_short_document_is_the_whole_document(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    doc_id = await open_doc(client, doc)
    head = (
        await client.get(f"/api/documents/render?docId={doc_id}&part=head", headers=AUTH)
    ).json()
    whole = (await client.get(f"/api/documents/render?docId={doc_id}", headers=AUTH)).json()
    assert head == whole
    assert head["partial"] is False


@pytest.mark.parametrize("part", ["", "tail", "HEAD", "head\u0000"])
async def test_a_part_other_than_head_is_refused(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path, part: str
) -> None:
    doc_id = await open_doc(client, doc)
    response = await client.get(
        "/api/documents/render", params={"docId": doc_id, "part": part}, headers=AUTH
    )
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == "part"


@pytest.mark.parametrize(
    ("query", "status", "argument"),
    [
        ("", 400, "docId"),
        ("docId=", 400, "docId"),
        ("docId=XYZ", 400, "docId"),
        ("docId=0123456789abcdef01234567%00", 400, "docId"),
        ("docId=0123456789abcdef01234567&docId=0123456789abcdef01234567", 400, "docId"),
        ("docId=0123456789abcdef01234567&extra=1", 400, "extra"),
    ],
)
@pytest.mark.parametrize("route", ["/api/documents/render", "/api/documents/state"])
async def test_a_bad_doc_id_is_refused_naming_the_argument(
    ui_app: Starlette, client: httpx.AsyncClient, route: str, query: str, status: int, argument: str
) -> None:
    response = await client.get(f"{route}?{query}", headers=AUTH)
    assert response.status_code == status
    assert response.json()["error"]["argument"] == argument


@pytest.mark.parametrize("route", ["/api/documents/render", "/api/documents/state"])
async def test_an_unknown_document_is_not_open(
    ui_app: Starlette, client: httpx.AsyncClient, route: str
) -> None:
    response = await client.get(f"{route}?docId={'a' * 24}", headers=AUTH)
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "NotOpen"
    assert "Open the document first" in response.json()["error"]["message"]


@pytest.mark.parametrize("route", ["/api/documents/render?docId=" + "a" * 24, "/open?path=/x.md"])
async def test_the_routes_need_the_token(
    ui_app: Starlette, client: httpx.AsyncClient, route: str
) -> None:
    response = await client.get(route)
    assert response.status_code == 401


async def test_state_says_dirty_and_carries_a_conflict(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path, services: AppServices
) -> None:
    doc_id = await open_doc(client, doc)
    state = (await client.get(f"/api/documents/state?docId={doc_id}", headers=AUTH)).json()
    assert state == {"docId": doc_id, "path": str(doc), "dirty": False, "conflict": None}
    live = services.documents.get(doc_id)
    assert live is not None
    live.conflict = "# On disk\n"
    state = (await client.get(f"/api/documents/state?docId={doc_id}", headers=AUTH)).json()
    assert state["conflict"] == {"mine": DOC, "disk": "# On disk\n"}


@pytest.mark.parametrize(
    ("line", "checked", "expected", "changed"),
    [
        (3, True, "- [x] one", True),
        (4, False, "- [ ] two", True),
        (4, True, "- [x] two", False),
    ],
)
async def test_a_task_click_changes_the_live_text(
    ui_app: Starlette,
    client: httpx.AsyncClient,
    doc: Path,
    line: int,
    checked: bool,
    expected: str,
    changed: bool,
) -> None:
    doc_id = await open_doc(client, doc)
    body = {"docId": doc_id, "line": line, "checked": checked}
    response = await client.post("/api/documents/toggle-task", json=body, headers=AUTH)
    assert response.status_code == 200
    assert response.json() == {"ok": True, "changed": changed}
    text = await current(client)
    assert expected in text
    assert len(text) == len(DOC)
    assert await anyio.Path(doc).read_text(encoding="utf-8") == DOC


@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({"line": 1, "checked": True}, "line"),
        ({"line": 999, "checked": True}, "line"),
        ({"line": "3", "checked": True}, "line"),
        ({"line": True, "checked": True}, "line"),
        ({"line": 3, "checked": "yes"}, "checked"),
        ({"line": 3}, "checked"),
        ({"line": 3, "checked": True, "extra": 1}, "extra"),
    ],
)
async def test_a_bad_task_click_is_refused_and_changes_nothing(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path, body: dict[str, object], argument: str
) -> None:
    doc_id = await open_doc(client, doc)
    response = await client.post(
        "/api/documents/toggle-task", json={"docId": doc_id, **body}, headers=AUTH
    )
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == argument
    assert await current(client) == DOC


@pytest.mark.parametrize(("keep", "text"), [("mine", "# Mine\n"), ("disk", "# Disk\n")])
async def test_resolving_a_conflict_keeps_the_chosen_text(
    ui_app: Starlette,
    client: httpx.AsyncClient,
    doc: Path,
    services: AppServices,
    keep: str,
    text: str,
) -> None:
    doc_id = await open_doc(client, doc)
    body = {"content": "# Mine\n"}
    assert (await client.post("/api/documents/set-content", json=body, headers=AUTH)).is_success
    await anyio.Path(doc).write_text("# Disk\n", encoding="utf-8")
    live = services.documents.get(doc_id)
    assert live is not None
    live.conflict = "# Disk\n"
    response = await client.post(
        "/api/documents/resolve-conflict", json={"docId": doc_id, "keep": keep}, headers=AUTH
    )
    assert response.status_code == 200
    assert response.json() == {"ok": True, "dirty": keep == "mine"}
    assert await current(client) == text
    assert live.conflict is None


async def test_resolve_conflict_refuses_another_choice(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    doc_id = await open_doc(client, doc)
    response = await client.post(
        "/api/documents/resolve-conflict", json={"docId": doc_id, "keep": "both"}, headers=AUTH
    )
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == "keep"


async def test_an_open_link_opens_the_file_in_the_view_and_shows_the_window(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    response = await client.get(f"/open?path={quote(str(doc))}&mode=edit", headers=AUTH)
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert [(tab["path"], tab["view"]) for tab in window["tabs"]] == [(str(doc), "edit")]


async def test_an_open_link_decodes_once_and_keeps_plus_signs(
    ui_app: Starlette, client: httpx.AsyncClient, settings: Settings
) -> None:
    target = settings.workspaces[0].resolve() / "C++ 100%.md"
    target.write_text("# C++\n", encoding="utf-8")
    encoded = quote(str(target), safe="/+")
    response = await client.get(f"/open?path={encoded}", headers=AUTH)
    assert response.headers["location"] == "/"
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert window["tabs"][0]["path"] == str(target)


async def test_of_a_parameter_given_twice_the_first_counts(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path, settings: Settings
) -> None:
    other = settings.workspaces[0].resolve() / "welcome.md"
    query = f"path={quote(str(doc))}&path={quote(str(other))}&mode=read&mode=bogus&utm=x"
    response = await client.get(f"/open?{query}", headers=AUTH)
    assert response.headers["location"] == "/"
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert [(tab["path"], tab["view"]) for tab in window["tabs"]] == [(str(doc), "read")]


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("", "names no file"),
        ("path=", "names no file"),
        ("mode=read", "names no file"),
        ("path={dir}/doc.md&mode=source", "read or edit"),
        ("path={dir}/doc.md&mode=", "read or edit"),
        ("path={dir}/notes.txt", "Markdown"),
        ("path={dir}/.secret.md", "Markdown"),
        ("path={dir}/missing.md", "missing.md"),
        ("path={dir}", "Markdown"),
        ("path=doc.md", "absolute"),
        ("path=%FF%FE.md", "UTF-8"),
        ("path={dir}/doc.md%00", "NUL"),
    ],
)
async def test_a_refused_open_link_opens_nothing_and_says_why(
    ui_app: Starlette,
    client: httpx.AsyncClient,
    doc: Path,
    settings: Settings,
    query: str,
    says: str,
) -> None:
    folder = settings.workspaces[0].resolve()
    (folder / "notes.txt").write_text("text\n", encoding="utf-8")
    (folder / ".secret.md").write_text("# secret\n", encoding="utf-8")
    response = await client.get(f"/open?{query.format(dir=quote(str(folder)))}", headers=AUTH)
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/#notice=")
    assert says.lower() in unquote(location.removeprefix("/#notice=")).lower()
    assert response.headers["cache-control"] == "no-store"
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert window["tabs"] == []


async def test_a_head_request_for_an_open_link_opens_nothing(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    response = await client.head(f"/open?path={quote(str(doc))}", headers=AUTH)
    assert response.status_code == 303
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert window["tabs"] == []


SECTIONS = "".join(f"## Part {number}\n\nText of part {number}.\n\n" for number in range(40))


async def test_an_edit_to_one_block_sends_only_that_block(
    ui_app: Starlette, client: httpx.AsyncClient, settings: Settings
) -> None:
    path = settings.workspaces[0].resolve() / "long.md"
    path.write_text(SECTIONS, encoding="utf-8")
    doc_id = await open_doc(client, path)
    url = f"/api/documents/blocks?docId={doc_id}"
    first = (await client.get(url, headers=AUTH)).json()
    assert "base" not in first
    assert first["total"] == len(first["blocks"]) == 80
    assert (
        "".join(block["html"] for block in first["blocks"])
        == (
            (await client.get(f"/api/documents/render?docId={doc_id}", headers=AUTH)).json()["html"]
        )
    )
    edit = {"find": "Text of part 7.", "replace": "Text of part seven."}
    assert (await client.post("/api/documents/edit", json=edit, headers=AUTH)).status_code == 200
    second = (await client.get(f"{url}&since={first['version']}", headers=AUTH)).json()
    assert second["base"] == first["version"]
    assert (second["start"], second["deleteCount"], second["total"]) == (15, 1, 80)
    assert [block["html"] for block in second["blocks"]] == ["<p>Text of part seven.</p>\n"]
    unchanged = (await client.get(f"{url}&since={second['version']}", headers=AUTH)).json()
    assert (unchanged["deleteCount"], unchanged["blocks"]) == (0, [])


@pytest.mark.parametrize("since", ["", "XYZ", "0123456789abcdeg", "0123456789abcdef0"])
async def test_a_since_that_is_no_version_is_refused(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path, since: str
) -> None:
    doc_id = await open_doc(client, doc)
    response = await client.get(
        f"/api/documents/blocks?docId={doc_id}&since={quote(since)}", headers=AUTH
    )
    assert response.status_code == 400
    assert "since" in response.text


async def test_a_version_the_server_forgot_gets_every_block(
    ui_app: Starlette, client: httpx.AsyncClient, doc: Path
) -> None:
    doc_id = await open_doc(client, doc)
    answer = (
        await client.get(f"/api/documents/blocks?docId={doc_id}&since={'0' * 16}", headers=AUTH)
    ).json()
    assert "base" not in answer
    assert answer["start"] == answer["deleteCount"] == 0
    assert answer["has_mermaid"] and answer["has_math"]
    assert len(answer["blocks"]) == answer["total"]
