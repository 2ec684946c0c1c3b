"""Remote images through the real app: the Read view's HTML per folder setting, the page's
policy per setting, and the frame a clicked image loads in (its policy names that address
alone)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from quire.settings.model import Settings
from quire.web.remote_images import SIZE_SCRIPT
from tests.web.conftest import AUTH, PORT
from tests.web.test_static_files import needs_bundle

pytestmark = pytest.mark.anyio

NOTE = "# Pictures\n\n![pixel](https://tracker.example/p.png?u=1&amp;n=2)\n\n![local](a.png)\n"


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    """Two workspaces; the test's parameter names which of them show remote images."""
    workspaces = []
    for name in ("open", "closed"):
        folder = (tmp_path / name).resolve()
        folder.mkdir()
        (folder / "note.md").write_text(NOTE, encoding="utf-8")
        workspaces.append(folder)
    allowed = tuple(tmp_path.resolve() / name for name in getattr(request, "param", ()))
    return Settings(
        workspaces=tuple(workspaces),
        state_dir=tmp_path / "state",
        port=PORT,
        remote_images=allowed,
    )


async def _render(client: httpx.AsyncClient, path: Path) -> str:
    opened = await client.post("/api/documents/open", json={"path": str(path)}, headers=AUTH)
    assert opened.status_code == 200, opened.text
    doc_id = opened.json()["docId"]
    response = await client.get(f"/api/documents/render?docId={doc_id}", headers=AUTH)
    assert response.status_code == 200, response.text
    html: str = response.json()["html"]
    return html


def _srcs(html: str) -> list[str]:
    return re.findall(r'\ssrc="([^"]*)"', html)


async def test_by_default_no_note_carries_a_remote_src(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    for workspace in settings.workspaces:
        html = await _render(client, workspace / "note.md")
        assert _srcs(html) == ["a.png"]
        assert 'data-src="https://tracker.example/p.png?u=1&amp;n=2"' in html
        assert "Image from tracker.example not loaded: pixel" in html


@pytest.mark.parametrize("settings", [("open",)], indirect=True)
async def test_a_folder_in_the_setting_shows_its_remote_images_and_no_other_does(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    opened, closed = settings.workspaces
    assert _srcs(await _render(client, opened / "note.md")) == [
        "https://tracker.example/p.png?u=1&amp;n=2",
        "a.png",
    ]
    assert _srcs(await _render(client, closed / "note.md")) == ["a.png"]


async def test_a_chat_message_or_loose_text_never_carries_a_remote_src(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/api/render", json={"markdown": NOTE}, headers=AUTH)
    assert response.status_code == 200, response.text
    assert _srcs(response.json()["html"]) == ["a.png"]


def _image_policy(response: httpx.Response) -> str:
    policy = response.headers["content-security-policy"]
    found = re.search(r"img-src ([^;]*);", policy)
    assert found is not None, policy
    assert "frame-src 'self'" in policy
    return found.group(1)


@needs_bundle
async def test_the_page_allows_no_remote_image_when_no_folder_shows_them(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/", headers=AUTH)
    assert response.status_code == 200
    assert _image_policy(response) == "'self' data: blob:"


@needs_bundle
@pytest.mark.parametrize("settings", [("closed",)], indirect=True)
async def test_the_page_allows_remote_images_when_a_folder_shows_them(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/", headers=AUTH)
    assert _image_policy(response) == "'self' data: blob: https: http:"


async def test_the_frame_of_a_clicked_image_allows_that_address_alone(
    client: httpx.AsyncClient,
) -> None:
    url = "https://tracker.example/p.png?u=1&n=2"
    response = await client.get(f"/remote-image?url={quote(url, safe='')}", headers=AUTH)
    assert response.status_code == 200, response.text
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "img-src https://tracker.example/p.png;" in policy
    assert "sandbox allow-scripts" in policy
    assert "frame-ancestors 'self'" in policy
    assert response.headers["referrer-policy"] == "no-referrer"
    assert 'src="https://tracker.example/p.png?u=1&amp;n=2"' in response.text
    assert SIZE_SCRIPT in response.text
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/]+=*'", policy)


@pytest.mark.parametrize(
    "raw",
    [
        "javascript:alert(1)",
        "data:image/png;base64,AAAA",
        "//tracker.example/p.png",
        "/relative.png",
        "https://user:secret@tracker.example/p.png",
        "https://[::1]/p.png",
        "https://tracker.example/p.png; img-src *",
        "https://tracker.example/p.png' *",
        "http://" + "a" * 3000 + ".example/p.png",
        "ftp://tracker.example/p.png",
    ],
)
async def test_the_frame_refuses_any_address_but_an_absolute_http_one(
    client: httpx.AsyncClient, raw: str
) -> None:
    response = await client.get(f"/remote-image?url={quote(raw, safe='')}", headers=AUTH)
    assert response.status_code == 400
    assert "content-security-policy" not in response.headers
    assert "does not load it" in response.text


async def test_the_frame_wants_the_address_once(client: httpx.AsyncClient) -> None:
    twice = "/remote-image?url=https%3A%2F%2Fa.example%2Fx.png&url=https%3A%2F%2Fb.example%2Fy"
    assert (await client.get(twice, headers=AUTH)).status_code == 400
    assert (await client.get("/remote-image", headers=AUTH)).status_code == 400


async def test_the_frame_needs_a_signed_in_browser(client: httpx.AsyncClient) -> None:
    response = await client.get("/remote-image?url=https%3A%2F%2Fa.example%2Fx.png")
    assert response.status_code in (401, 403)
