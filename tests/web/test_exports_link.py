"""``/export?path=&format=`` links and ``POST /api/export/dialog``: the window opens the file in
Read view and shows its export dialog; a refused link opens nothing and says why."""

from pathlib import Path
from urllib.parse import quote, unquote

import anyio
import httpx
import pytest

from quire.core.views import OWNER
from quire.services.app import AppServices
from quire.settings.model import Settings
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio


@pytest.fixture
def doc(settings: Settings) -> Path:
    path = settings.workspaces[0].resolve() / "doc.md"
    path.write_text("# Doc\n\nText.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("query", "format"), [("", "pdf"), ("&format=epub", "epub")])
async def test_an_export_link_opens_the_file_in_read_view_then_the_dialog(
    client: httpx.AsyncClient, doc: Path, query: str, format: str
) -> None:
    response = await client.get(f"/export?path={quote(str(doc))}{query}", headers=AUTH)
    assert response.status_code == 303
    assert response.headers["location"] == f"/#export={format}"
    assert response.headers["cache-control"] == "no-store"
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert [(tab["path"], tab["view"]) for tab in window["tabs"]] == [(str(doc), "read")]
    assert not doc.with_suffix("." + format).exists()


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("", "names no file"),
        ("format=pdf", "names no file"),
        ("path={dir}/doc.md&format=PDF", "export format 'PDF'"),
        ("path={dir}/doc.md&format=md", "export format 'md'"),
        ("path={dir}/doc.md&mode=edit", "Read view"),
        ("path={dir}/notes.txt", "Markdown"),
        ("path={dir}/.secret.md", "Markdown"),
        ("path={dir}/missing.md", "missing.md"),
        ("path=doc.md", "absolute"),
        ("path=%FF%FE.md", "UTF-8"),
    ],
)
async def test_a_refused_export_link_opens_nothing_and_says_why(
    client: httpx.AsyncClient, doc: Path, settings: Settings, query: str, says: str
) -> None:
    folder = settings.workspaces[0].resolve()
    (folder / "notes.txt").write_text("text\n", encoding="utf-8")
    (folder / ".secret.md").write_text("# secret\n", encoding="utf-8")
    response = await client.get(f"/export?{query.format(dir=quote(str(folder)))}", headers=AUTH)
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/#notice=")
    assert says.lower() in unquote(location.removeprefix("/#notice=")).lower()
    window = (await client.get("/api/window", headers=AUTH)).json()
    assert window["tabs"] == []


async def test_a_head_request_for_an_export_link_opens_nothing(
    client: httpx.AsyncClient, doc: Path
) -> None:
    response = await client.head(f"/export?path={quote(str(doc))}", headers=AUTH)
    assert response.status_code == 303
    assert (await client.get("/api/window", headers=AUTH)).json()["tabs"] == []


async def test_the_dialog_route_tells_the_open_window_which_file_and_format(
    client: httpx.AsyncClient, services: AppServices, doc: Path
) -> None:
    async with services.bus.subscribe(OWNER) as events:
        response = await client.post(
            "/api/export/dialog", json={"path": str(doc), "format": "html"}, headers=AUTH
        )
        with anyio.fail_after(5):
            async for event in events:
                if event.kind == "export":
                    break
    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "dialog": True,
        "path": str(doc),
        "format": "html",
        "browserConnected": True,
    }
    data = event.dump()["data"]
    assert data == {"path": str(doc), "format": "html", "docId": data["docId"]}


async def test_the_dialog_route_without_a_path_needs_an_open_document(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/api/export/dialog", json={"format": "pdf"}, headers=AUTH)
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "NotOpen"
