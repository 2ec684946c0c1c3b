"""``POST /api/export`` and ``GET /api/export/download``: exports confined to the server's
workspaces, every output rule refused with its reason, and a download that writes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx
import pytest

from quire.settings.model import Settings
from tests.support.export_outputs import REFUSED, Case, lay_out, untouched
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

needs_browser = pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="HTML exports draw diagrams and math in Chromium: apt-get install chromium",
)


@pytest.fixture
def folder(settings: Settings) -> Path:
    folder = settings.workspaces[0].resolve()
    (folder / "plan.md").write_text("# Plan\n\nStep one.\n", encoding="utf-8")
    return folder


@needs_browser
async def test_an_export_is_written_beside_the_file_and_described(
    client: httpx.AsyncClient, folder: Path
) -> None:
    response = await client.post(
        "/api/export", json={"path": str(folder / "plan.md"), "format": "html"}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    result = response.json()
    written = folder / "plan.html"
    assert result["path"] == str(written)
    assert result["bytes"] == written.stat().st_size
    assert result["diagramErrors"] == []
    assert "Step one." in written.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", REFUSED, ids=[case.id for case in REFUSED])
async def test_every_refused_output_is_a_400_naming_what_to_change(
    client: httpx.AsyncClient, folder: Path, case: Case
) -> None:
    paths = lay_out(folder, "html")
    response = await client.post(
        "/api/export",
        json={
            "path": str(folder / "plan.md"),
            "format": "html",
            "output_path": str(paths[case.id]),
            "overwrite": case.id != "existing",
        },
        headers=AUTH,
    )
    assert response.status_code in (400, 404), response.text
    assert case.says in response.json()["error"]["message"]
    assert untouched(folder, "html")


@pytest.mark.parametrize("exists", [True, False])
async def test_outside_the_workspaces_is_one_refusal_existing_or_not(
    client: httpx.AsyncClient, folder: Path, tmp_path: Path, exists: bool
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "plan.html"
    if exists:
        target.write_bytes(b"keep")
    response = await client.post(
        "/api/export",
        json={
            "path": str(folder / "plan.md"),
            "format": "html",
            "output_path": str(target),
            "overwrite": True,
        },
        headers=AUTH,
    )
    assert response.status_code == 400
    assert response.json()["error"] == {
        "type": "PathRefused",
        "message": (
            f"Refusing to write the export to '{target}': it is not inside an allowed folder. "
            f"The allowed folders are '{folder}'; pass a path inside one of them."
        ),
    }
    assert target.exists() is exists


@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({"path": "plan.md", "format": "pdf"}, "path"),
        ({"path": "/x/plan.md", "format": "md"}, "format"),
        ({"path": "/x/plan.md", "format": "pdf", "theme": "sepia"}, "theme"),
        ({"path": "/x/plan.md", "format": "pdf", "paper": "a3"}, "paper"),
        ({"path": "/x/plan.md", "format": "pdf", "overwrite": "yes"}, "overwrite"),
        ({"path": "/x/plan.md", "format": "pdf", "output_path": "out.pdf"}, "output_path"),
        ({"path": "/x/plan.md", "format": "pdf", "outputPath": "/x/o.pdf"}, "outputPath"),
    ],
)
async def test_a_bad_argument_is_refused_naming_it(
    client: httpx.AsyncClient, body: dict[str, object], argument: str
) -> None:
    response = await client.post("/api/export", json=body, headers=AUTH)
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == argument


@needs_browser
async def test_a_download_sends_the_bytes_and_writes_nothing_beside_the_file(
    client: httpx.AsyncClient, folder: Path
) -> None:
    response = await client.get(
        f"/api/export/download?path={quote(str(folder / 'plan.md'))}&format=html&theme=dark",
        headers=AUTH,
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-disposition"] == "attachment; filename*=UTF-8''plan.html"
    # Nothing to draw in this note, so no browser: the HTML engine alone.
    assert response.headers["x-quire-export-engine"] == "quire-html"
    assert b"Step one." in response.content
    left = await anyio.to_thread.run_sync(lambda: sorted(path.name for path in folder.iterdir()))
    assert left == ["plan.md", "welcome.md"]


@pytest.mark.parametrize(
    ("query", "status", "says"),
    [
        ("format=html", 400, "`path` is required"),
        ("path={dir}/plan.md&format=rtf", 400, "`format` must be one of"),
        ("path={dir}/plan.md&paper=a0", 400, "`paper` must be one of"),
        ("path={dir}/plan.md&extra=1", 400, "not a parameter"),
        ("path={outside}/secret.md&format=html", 400, "not inside an allowed folder"),
        ("path={dir}/notes.txt&format=html", 400, "Markdown"),
    ],
)
async def test_a_refused_download_says_why(
    client: httpx.AsyncClient,
    folder: Path,
    tmp_path: Path,
    query: str,
    status: int,
    says: str,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n", encoding="utf-8")
    (folder / "notes.txt").write_text("x\n", encoding="utf-8")
    url = "/api/export/download?" + query.format(
        dir=quote(str(folder)), outside=quote(str(outside))
    )
    response = await client.get(url, headers=AUTH)
    assert response.status_code == status
    assert says in response.json()["error"]["message"]
